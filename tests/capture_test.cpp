// The capture file: what goes in comes back exactly, a run survives save and open to the nanosecond, and
// no damaged file gets past the reader.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <zstd.h>

#include "core/config/config_json.h"
#include "core/io/capture.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "scratch.h"
#include "tests/sim_configs.h"

using namespace pinscope;

namespace {

constexpr TimeNs kBase = 1'700'000'000'123'456'789;  // a steady_clock reading of a long-running machine

std::filesystem::path temp_path(const std::string& name) {
    return testing::scratch_path(name);
}

// Every field of every span, in lane order: two stores hold the same trace when these are equal.
std::vector<std::tuple<TimeNs, TimeNs, int64_t, uint64_t, LaneId, int, int, std::string>> rows(
    const TraceStore& s) {
    std::vector<std::tuple<TimeNs, TimeNs, int64_t, uint64_t, LaneId, int, int, std::string>> out;
    for (const LaneInfo& lane : s.lanes())
        for (const Span& x : s.spans(lane.id))
            out.emplace_back(x.start, x.end, x.batch, x.bytes, x.lane, int(x.kind), int(x.memory),
                             std::string(s.name(x.name)));
    return out;
}

std::vector<std::tuple<TimeNs, double, int>> samples(const TraceStore& s) {
    std::vector<std::tuple<TimeNs, double, int>> out;
    for (int k = 0; k < kCounterKindCount; ++k)
        for (const CounterSample& c : s.counters(CounterKind(k))) out.emplace_back(c.time, c.value, k);
    return out;
}

// A store with what real traces have and what they rarely have: overlapping spans, a span recorded
// with its end before its start, spans without a batch, names, big byte counts, every kind and memory.
TraceStore varied_store() {
    LaneRegistry registry;
    const LaneId main = registry.lane(LaneRole::main);
    const LaneId worker = registry.lane(LaneRole::worker, 3);
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    const LaneId kernel = registry.lane(LaneRole::kernel, 0);
    registry.lane(LaneRole::d2h, 1);  // a lane that never recorded
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    std::mt19937_64 random(7);
    const uint32_t gemm = store.intern("sm90_xmma_gemm_bf16 \"quoted\" \xce\xbb");
    for (int b = 0; b < 500; ++b) {
        const TimeNs t = kBase + b * 10'000 + static_cast<TimeNs>(random() % 300);
        store.add(Span{t, t + 4'000, b, 0, worker, SpanKind::fetch});
        store.add(Span{t + 4'000, t + 4'500, kNoBatch, 0, main, SpanKind::wait});
        store.add(Span{t + 4'500, t + 6'500, b, (1ull << 40) + b, h2d, SpanKind::h2d,
                       b % 3 ? HostMemory::pinned : HostMemory::pageable});
        store.add(Span{t + 5'000, t + 7'000, b, 77, h2d, SpanKind::h2d, HostMemory::pinned});  // overlaps
        store.add(Span{t + 6'500, t + 9'000, b, 0, kernel, SpanKind::kernel, HostMemory::none,
                       b % 2 ? gemm : kNoName});
        store.add(CounterSample{t, double(b % 5), CounterKind::outstanding_batches});
        store.add(CounterSample{t + 1, 1.5e9 + b * 0.25, CounterKind::pinned_bytes});
    }
    store.add(Span{kBase + 20, kBase + 10, 3, 0, main, SpanKind::sync});  // end before start
    return store;
}

CaptureInfo varied_info() {
    CaptureInfo info;
    info.config = testing::tiny_run(40);
    info.config->num_workers = 5;
    info.device = DeviceInfo{"cuda", "NVIDIA H100 80GB HBM3", 3, 53.1, 54.6, 85'000'000'000};
    info.device_why = "asked for cuda";
    info.window = {kBase + 5'000, kBase + 4'000'000};
    info.metrics = {{"samples_per_s", 1234.5}};
    info.dropped_spans = 2;
    info.gpu_trace = GpuTraceReport{true, "GPU spans from CUPTI", 1000, 1, 2, 3};
    info.created = "2026-11-23T10:00:00Z";
    return info;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string capture_bytes(const TraceStore& store, const CaptureInfo& info) {
    const std::filesystem::path path = temp_path("bytes.pinscope");
    save_capture(path, store, info);
    std::string bytes = read_file(path);
    std::filesystem::remove(path);
    return bytes;
}

Capture load_bytes(const std::string& bytes) {
    return load_capture_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "test.pinscope");
}

// A capture's sections as tag and inflated bytes, and back again: to make files no writer makes.
struct RawSection {
    std::string tag, raw;
};

uint64_t get_le(const std::string& bytes, size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
    return v;
}

std::string le(uint64_t v, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
    return out;
}

std::vector<RawSection> split_sections(const std::string& file) {
    std::vector<RawSection> sections;
    for (size_t at = 16; at < file.size();) {
        const uint64_t stored = get_le(file, at + 8);
        // END's raw-size field is where INDX is (format 3), not a size: join_sections() puts it back.
        const uint64_t raw = file.compare(at, 4, "END.") == 0 ? 0 : get_le(file, at + 16);
        RawSection section{file.substr(at, 4), std::string(raw, '\0')};
        if (stored > 0)
            REQUIRE(ZSTD_decompress(section.raw.data(), raw, file.data() + at + 24, stored) == raw);
        sections.push_back(std::move(section));
        at += 24 + stored;
    }
    return sections;
}

std::string join_sections(const std::string& file_header, const std::vector<RawSection>& sections) {
    std::string file = file_header.substr(0, 16);
    uint64_t index_at = 0;
    for (const RawSection& s : sections) {
        if (s.tag == "INDX") index_at = file.size();
        if (s.tag == "END.") {
            file += s.tag + le(0, 4) + le(0, 8) + le(index_at, 8);
            continue;
        }
        std::string stored;
        if (!s.raw.empty()) {
            stored.resize(ZSTD_compressBound(s.raw.size()));
            stored.resize(ZSTD_compress(stored.data(), stored.size(), s.raw.data(), s.raw.size(), 1));
        }
        file += s.tag + le(0, 4) + le(stored.size(), 8) + le(s.raw.size(), 8) + stored;
    }
    return file;
}

// A varint as the capture writes it.
std::string varint(uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
}

}  // namespace

TEST_CASE("a capture gives back every span, sample, lane and name exactly, and what the run was") {
    const TraceStore store = varied_store();
    const CaptureInfo info = varied_info();
    const std::filesystem::path path = temp_path("varied.pinscope");
    save_capture(path, store, info);
    const Capture capture = load_capture(path);
    std::filesystem::remove(path);

    CHECK(capture.store.span_count() == store.span_count());
    CHECK(rows(capture.store) == rows(store));
    CHECK(samples(capture.store) == samples(store));
    REQUIRE(capture.store.lanes().size() == store.lanes().size());
    for (size_t i = 0; i < store.lanes().size(); ++i) {
        CHECK(capture.store.lanes()[i].name == store.lanes()[i].name);
        CHECK(capture.store.lanes()[i].role == store.lanes()[i].role);
        CHECK(capture.store.lanes()[i].index == store.lanes()[i].index);
        CHECK(capture.store.lanes()[i].group == store.lanes()[i].group);
        CHECK(capture.store.lanes()[i].sort_key == store.lanes()[i].sort_key);
    }
    CHECK(capture.store.first_time() == store.first_time());
    CHECK(capture.store.last_time() == store.last_time());
    CHECK(capture.store.batch_extent(250)->first_start == store.batch_extent(250)->first_start);

    CHECK(config_to_json(*capture.info.config) == config_to_json(*info.config));
    CHECK(capture.info.device.name == "NVIDIA H100 80GB HBM3");
    CHECK(capture.info.device.memory_bytes == 85'000'000'000);
    CHECK(capture.info.device.h2d_peak_gbps == 53.1);
    CHECK(capture.info.window.start == info.window.start);
    CHECK(capture.info.window.end == info.window.end);
    CHECK(capture.info.metrics == info.metrics);
    CHECK(capture.info.dropped_spans == 2);
    REQUIRE(capture.info.gpu_trace.has_value());
    CHECK(capture.info.gpu_trace->uncorrelated == 3);
    CHECK(capture.info.created == "2026-11-23T10:00:00Z");
    CHECK(!capture.info.writer_version.empty());
}

TEST_CASE("a lane longer than one section comes back whole and in order") {
    LaneRegistry registry;
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    const int64_t n = (1 << 20) + 12'345;  // past kSpansPerSection
    for (int64_t i = 0; i < n; ++i)
        store.add(Span{kBase + i * 100, kBase + i * 100 + 60, i, 4096, h2d, SpanKind::h2d});
    const Capture capture = load_bytes(capture_bytes(store, CaptureInfo{}));
    REQUIRE(capture.store.span_count() == static_cast<size_t>(n));
    const std::span<const Span> spans = capture.store.spans(h2d);
    CHECK(spans[(1 << 20) - 1].batch == (1 << 20) - 1);
    CHECK(spans[1 << 20].start == kBase + (int64_t{1} << 20) * 100);
    CHECK(spans.back().end == kBase + (n - 1) * 100 + 60);
}

TEST_CASE("a run saved and opened has the same span count, metrics to the nanosecond and Chrome export") {
    MeasuredRun run(testing::tiny_run(60));
    run.run();
    const CaptureInfo info = session_capture_info(run);
    const Metrics live = run.metrics();
    const std::filesystem::path path = temp_path("run.pinscope");
    std::string live_export;
    {
        const TraceCollector::Snapshot snapshot = run.trace();
        save_capture(path, snapshot.store(), info);
        const Capture capture = load_capture(path);
        CHECK(capture.store.span_count() == snapshot->span_count());
        CHECK(rows(capture.store) == rows(snapshot.store()));

        const Metrics opened = capture_metrics(capture);
        CHECK(opened.start == live.start);
        CHECK(opened.end == live.end);
        CHECK(opened.batches == live.batches);
        CHECK(opened.h2d_bytes == live.h2d_bytes);
        CHECK(metrics_json(opened) == metrics_json(live));
        CHECK(capture.info.metrics == metrics_json(live));
        CHECK(capture.info.device.kind == "sim");
        CHECK(capture.info.calibration.contains("copy_bandwidth_GBps"));

        ExportInfo live_info{info.device.name, "pinscope", config_to_json(*info.config), metrics_json(live)};
        std::ostringstream a, b;
        write_chrome_trace(a, snapshot.store(), live_info);
        ExportInfo opened_info{capture.info.device.name, "pinscope", config_to_json(*capture.info.config),
                               metrics_json(opened)};
        write_chrome_trace(b, capture.store, opened_info);
        CHECK(a.str().size() > 10'000);
        CHECK(a.str() == b.str());
    }
    std::filesystem::remove(path);
}

TEST_CASE("a failed save leaves the existing file as it was and no temporary behind") {
    const std::filesystem::path folder = temp_path("atomic");
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    const std::filesystem::path path = folder / "keep.pinscope";
    write_file(path, "the old contents");
    const TraceStore store = varied_store();
    CHECK_THROWS_AS(save_capture(path, store, varied_info(),
                                 [](double share) {
                                     if (share > 0) throw CaptureError("interrupted");
                                 }),
                    CaptureError);
    CHECK(read_file(path) == "the old contents");
    CHECK(std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator()) ==
          1);
    save_capture(path, store, varied_info());
    CHECK(load_capture(path).store.span_count() == store.span_count());
    CHECK(std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator()) ==
          1);
    std::filesystem::remove_all(folder);
}

TEST_CASE("a capture cut short anywhere is an error that says so, never a crash or a partial trace") {
    const std::string bytes = capture_bytes(varied_store(), varied_info());
    for (size_t length = 0; length < bytes.size(); length += 1 + length / 16) {
        CAPTURE(length);
        try {
            load_bytes(bytes.substr(0, length));
            FAIL("a capture cut at byte ", length, " opened");
        } catch (const CaptureError& e) {
            const std::string message = e.what();
            CHECK(message.rfind("test.pinscope: ", 0) == 0);
            CHECK(message.find('\n') == std::string::npos);
        }
    }
}

TEST_CASE("a capture with any byte changed opens exactly as written or is an error, never a crash") {
    const TraceStore store = varied_store();
    const std::string bytes = capture_bytes(store, varied_info());
    std::mt19937 random(11);
    int errors = 0, opened = 0;
    for (size_t at = 0; at < bytes.size(); at += 1 + at / 64) {
        std::string damaged = bytes;
        damaged[at] = static_cast<char>(damaged[at] ^ (1 + random() % 255));
        try {
            const Capture capture = load_bytes(damaged);
            // Only the reserved header words are not checked; a change there changes nothing else.
            CHECK(rows(capture.store) == rows(store));
            ++opened;
        } catch (const CaptureError&) {
            ++errors;
        }
    }
    CHECK(errors > 100);
    MESSAGE(errors, " damaged files refused, ", opened, " changed only reserved bytes");
}

TEST_CASE("files that are not captures, or are from a newer pinscope, say what they are") {
    const std::filesystem::path path = temp_path("foreign.pinscope");
    write_file(path, R"({"num_workers": 4})");
    CHECK(!looks_like_capture(path));
    try {
        load_capture(path);
        FAIL("a config opened as a capture");
    } catch (const CaptureError& e) {
        // JSON is offered to the profiler-trace importer, which says what it is not.
        CHECK(std::string(e.what()) == path.string() +
                                           ": is not a pinscope capture, nor a PyTorch profiler trace (it is "
                                           "JSON without \"traceEvents\")");
    }
    std::string newer = capture_bytes(varied_store(), varied_info());
    CHECK(load_bytes(newer).store.span_count() > 0);
    newer[8] = static_cast<char>(kCaptureFormatVersion + 1);
    write_file(path, newer);
    CHECK(looks_like_capture(path));
    const std::string newer_words =
        fmt::format("newer pinscope (capture format {}", kCaptureFormatVersion + 1);
    CHECK_THROWS_WITH_AS(load_capture(path), doctest::Contains(newer_words.c_str()), CaptureError);
    CHECK_THROWS_WITH_AS(load_capture(temp_path("missing.pinscope")), doctest::Contains("no such file"),
                         CaptureError);
    std::filesystem::remove(path);
}

// Files made by hand, a few KiB each, that inflate to what no run writes: fuzz_capture crashed on them or
// took seconds and gigabytes over each before the reader refused them.
TEST_CASE("a hostile capture of a few KiB is an error at once, not gigabytes, seconds or a stack overflow") {
    const std::string file = capture_bytes(varied_store(), varied_info());
    std::vector<RawSection> sections = split_sections(file);
    const auto position = [&](const char* tag) {
        const auto at =
            std::find_if(sections.begin(), sections.end(), [&](const RawSection& s) { return s.tag == tag; });
        REQUIRE(at != sections.end());
        return static_cast<size_t>(at - sections.begin());
    };
    const size_t meta_at = position("META"), strings_at = position("STRS");
    const auto error_with = [&](std::vector<RawSection> changed) -> std::string {
        const std::string hostile = join_sections(file, changed);
        CHECK(hostile.size() < 64 * 1024);
        try {
            load_bytes(hostile);
        } catch (const CaptureError& e) {
            return e.what();
        }
        return "it opened";
    };

    // 50 million empty names: 1.6 GB of strings before the first repeat was noticed. More names than a
    // span can index are refused by their count; 10 million, by the first repeat.
    std::vector<RawSection> repeats = sections;
    repeats[strings_at].raw = varint(50'000'000) + std::string(50'000'000, '\0');
    CHECK(error_with(repeats) == "test.pinscope: section STRS is malformed: more names than a trace holds");
    repeats[strings_at].raw = varint(10'000'000) + std::string(10'000'000, '\0');
    CHECK(error_with(repeats) ==
          "test.pinscope: section STRS is malformed: the string table holds a name twice");

    // A calibration nested 200,000 levels deep: copying it recursed once per level.
    std::vector<RawSection> deep = sections;
    nlohmann::json meta = nlohmann::json::parse(deep[meta_at].raw);
    meta["calibration"] = "deep";
    deep[meta_at].raw = meta.dump();
    deep[meta_at].raw.replace(deep[meta_at].raw.find("\"deep\""), 6,
                              std::string(200'000, '[') + std::string(200'000, ']'));
    CHECK(error_with(deep) == "test.pinscope: its header (META) nests deeper than 32 levels");

    // A 60 MB header is refused before it is parsed: 30 million numbers took seconds and a gigabyte.
    std::vector<RawSection> big = sections;
    meta = nlohmann::json::parse(big[meta_at].raw);
    meta["metrics"] = std::string(60'000'000, 'x');
    big[meta_at].raw = meta.dump();
    CHECK(error_with(big).find("its header (META) is 600") != std::string::npos);
}

TEST_CASE("batch ids may skip a few batches but not spread wider than the spans could cover") {
    LaneRegistry registry;
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    store.add(Span{kBase, kBase + 10, 0, 0, h2d, SpanKind::h2d});
    store.add(Span{kBase + 20, kBase + 30, 1'000, 0, h2d, SpanKind::h2d});  // batches lost while recording
    CHECK(load_bytes(capture_bytes(store, CaptureInfo{})).store.span_count() == 2);
    // Two spans 2^20 batches apart: the batch index would hold every batch between them.
    store.add(Span{kBase + 40, kBase + 50, 1 << 20, 0, h2d, SpanKind::h2d});
    CHECK_THROWS_WITH_AS(load_bytes(capture_bytes(store, CaptureInfo{})),
                         doctest::Contains("spread from 0 to 1048576, wider than its 3 spans could cover"),
                         CaptureError);
}

#include "core/io/capture_columns.h"

TEST_CASE("a format 3 capture's imported categories move up past the kinds format 4 added") {
    using namespace pinscope::capture_columns;
    std::vector<Span> spans(3);
    const SpanKind written[] = {SpanKind::h2d, SpanKind(kKindCountBefore4), SpanKind(kKindCountBefore4 + 1)};
    for (size_t i = 0; i < spans.size(); ++i) {
        spans[i].start = 1000 + static_cast<TimeNs>(i) * 10;
        spans[i].end = spans[i].start + 5;
        spans[i].kind = written[i];
    }
    const std::vector<uint8_t> raw = encode_spans(0, spans);
    for (const uint32_t version : {3u, 4u}) {
        CAPTURE(version);
        std::vector<std::vector<Span>> lanes;
        SpanUse use;
        decode_spans(raw, Limits{version, 0}, lanes, use);
        REQUIRE(lanes.size() == 1);
        REQUIRE(lanes[0].size() == 3);
        CHECK(lanes[0][0].kind == SpanKind::h2d);  // pinscope's own kinds keep their ids
        const int shift = version < 4 ? kSpanKindCount - kKindCountBefore4 : 0;
        CHECK(static_cast<int>(lanes[0][1].kind) == kKindCountBefore4 + shift);
        CHECK(static_cast<int>(lanes[0][2].kind) == kKindCountBefore4 + 1 + shift);
    }
}
