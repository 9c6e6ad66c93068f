#include "core/io/capture.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "core/files/output_file.h"
#include "core/io/capture_meta.h"
#include "core/io/varint.h"

// Index of this file (META, what the run was, is capture_meta.cpp):
// [SECTION] The container: header, sections, zstd
// [SECTION] STRS, SPAN, CNTR: the trace as columns
// [SECTION] Writing
// [SECTION] Reading

namespace pinscope {
namespace {

using capture_meta::kMaxTime;
using capture_meta::Meta;
using capture_meta::meta_from_json;
using capture_meta::meta_json;

//------------------------------------------------------------------------------------------------------------
// [SECTION] The container: header, sections, zstd
//------------------------------------------------------------------------------------------------------------

constexpr char kMagic[8] = {'P', 'I', 'N', 'S', 'C', 'O', 'P', 'E'};
constexpr size_t kFileHeaderBytes = 16;
constexpr size_t kSectionHeaderBytes = 24;
// No section inflates beyond this: a corrupt size must not make the reader allocate the machine away.
// A full SPAN section takes at most kSpansPerSection * ~46 bytes, well under it.
constexpr uint64_t kMaxRawSectionBytes = 256ull << 20;
constexpr size_t kSpansPerSection = 1 << 20;
// Nor do the sections together inflate beyond this many times the file (plus a floor): a few hostile
// bytes can claim gigabytes of zeros, which real columns never compress to.
constexpr uint64_t kMaxInflation = 4096;
constexpr uint64_t kInflationFloorBytes = 64ull << 20;
constexpr int kZstdLevel = 3;  // fast to write, and the columns are what makes the file small

constexpr uint32_t tag(const char (&name)[5]) {
    return static_cast<uint32_t>(static_cast<uint8_t>(name[0])) |
           static_cast<uint32_t>(static_cast<uint8_t>(name[1])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(name[2])) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(name[3])) << 24;
}
constexpr uint32_t kMeta = tag("META");
constexpr uint32_t kStrings = tag("STRS");
constexpr uint32_t kSpans = tag("SPAN");
constexpr uint32_t kCounters = tag("CNTR");
constexpr uint32_t kEnd = tag("END.");

std::string tag_name(uint32_t t) {
    std::string name;
    for (int i = 0; i < 4; ++i) {
        const char c = static_cast<char>((t >> (8 * i)) & 0xFF);
        name += (c >= 32 && c < 127) ? c : '?';
    }
    return name;
}

void put_le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t get_le(const uint8_t* at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(at[i]) << (8 * i);
    return v;
}

struct CompressContext {
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx{ZSTD_createCCtx(), ZSTD_freeCCtx};
    CompressContext() {
        ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
        ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);
    }
};

std::string file_header_bytes(uint32_t version) {
    std::string header(kMagic, sizeof kMagic);
    put_le(header, version, 4);
    put_le(header, 0, 4);
    return header;
}

std::string section_header_bytes(uint32_t section_tag, uint64_t stored, uint64_t raw) {
    std::string header;
    put_le(header, section_tag, 4);
    put_le(header, 0, 4);
    put_le(header, stored, 8);
    put_le(header, raw, 8);
    return header;
}

// One section, header and zstd frame, ready to write.
std::string section_bytes(CompressContext& zstd, uint32_t section_tag, const void* raw, size_t raw_size) {
    std::string stored(ZSTD_compressBound(raw_size), '\0');
    const size_t size = ZSTD_compress2(zstd.ctx.get(), stored.data(), stored.size(), raw, raw_size);
    if (ZSTD_isError(size)) throw CaptureError(fmt::format("zstd: {}", ZSTD_getErrorName(size)));
    stored.resize(size);
    return section_header_bytes(section_tag, stored.size(), raw_size) + stored;
}

// Writes sections to a stream.
class SectionWriter {
  public:
    explicit SectionWriter(std::ostream& out) : out_(out) { write(file_header_bytes(kCaptureFormatVersion)); }

    void section(uint32_t section_tag, const std::vector<uint8_t>& raw) {
        write(section_bytes(zstd_, section_tag, raw.data(), raw.size()));
    }

    // The END section: a header and nothing else.
    void end() { write(section_header_bytes(kEnd, 0, 0)); }

  private:
    void write(const std::string& bytes) {
        out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

    std::ostream& out_;
    CompressContext zstd_;
};

// One section as read: its tag and its inflated bytes.
struct Section {
    uint32_t tag = 0;
    std::vector<uint8_t> raw;
};

class SectionReader {
  public:
    SectionReader(const uint8_t* data, size_t size) : data_(data), size_(size) {
        if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0)
            throw CaptureError("not a pinscope capture (it does not start with \"PINSCOPE\")");
        if (size < kFileHeaderBytes) throw CaptureError("cut short inside the file header");
        const uint32_t version = static_cast<uint32_t>(get_le(data + 8, 4));
        if (version == 0) throw CaptureError("format version 0 is not a version any pinscope wrote");
        if (version > kCaptureFormatVersion)
            throw CaptureError(
                fmt::format("written by a newer pinscope (capture format {}; this one reads up to {}): "
                            "update pinscope to "
                            "open it",
                            version, kCaptureFormatVersion));
        // Formats 1 and 2 write zeros here; anything else is damage, not a feature this reader lacks (a
        // later format that used these bytes would carry a newer version, refused above).
        if (get_le(data + 12, 4) != 0) throw CaptureError("its file header is corrupt (reserved bytes set)");
        version_ = version;
        at_ = kFileHeaderBytes;
    }

    uint32_t version() const { return version_; }

    // The next section; throws for one that is cut short, too big or does not inflate.
    Section next() {
        if (size_ - at_ < kSectionHeaderBytes)
            throw CaptureError(at_ == size_
                                   ? "cut short: it ends before its END section"
                                   : fmt::format("cut short inside a section header at byte {}", at_));
        Section section;
        section.tag = static_cast<uint32_t>(get_le(data_ + at_, 4));
        const uint64_t stored = get_le(data_ + at_ + 8, 8);
        const uint64_t raw = get_le(data_ + at_ + 16, 8);
        const size_t header_at = at_;
        const bool reserved_clear = get_le(data_ + at_ + 4, 4) == 0;
        at_ += kSectionHeaderBytes;
        const std::string name = tag_name(section.tag);
        if (!reserved_clear)
            throw CaptureError(fmt::format(
                "the header of section {} at byte {} is corrupt (reserved bytes set)", name, header_at));
        if (stored > size_ - at_)
            throw CaptureError(
                fmt::format("cut short: section {} at byte {} says {} bytes, the file holds {} more", name,
                            header_at, stored, size_ - at_));
        if (raw > kMaxRawSectionBytes)
            throw CaptureError(
                fmt::format("section {} at byte {} says it inflates to {} bytes, more than any "
                            "capture section holds ({})",
                            name, header_at, raw, kMaxRawSectionBytes));
        inflated_ += raw;
        if (inflated_ > kInflationFloorBytes + kMaxInflation * size_)
            throw CaptureError(
                fmt::format("its sections inflate to more than {} times its size, which no capture "
                            "does (section {} at byte {})",
                            kMaxInflation, name, header_at));
        if (section.tag == kEnd) {
            if (stored != 0 || raw != 0) throw CaptureError("its END section is not empty");
            at_ += stored;
            return section;
        }
        if (stored == 0) throw CaptureError(fmt::format("section {} at byte {} is empty", name, header_at));
        const unsigned long long content = ZSTD_getFrameContentSize(data_ + at_, stored);
        if (content == ZSTD_CONTENTSIZE_ERROR || content != raw)
            throw CaptureError(
                fmt::format("section {} at byte {} is corrupt (its compressed frame does not "
                            "match its header)",
                            name, header_at));
        section.raw.resize(raw);
        const size_t inflated =
            ZSTD_decompressDCtx(dctx_.get(), section.raw.data(), raw, data_ + at_, stored);
        if (ZSTD_isError(inflated) || inflated != raw)
            throw CaptureError(fmt::format("section {} at byte {} is corrupt ({})", name, header_at,
                                           ZSTD_isError(inflated) ? ZSTD_getErrorName(inflated) : "short"));
        at_ += stored;
        return section;
    }

    size_t offset() const { return at_; }
    bool at_end() const { return at_ == size_; }

  private:
    const uint8_t* data_;
    size_t size_;
    uint32_t version_ = 0;
    size_t at_ = 0;
    uint64_t inflated_ = 0;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_{ZSTD_createDCtx(), ZSTD_freeDCtx};
};

//------------------------------------------------------------------------------------------------------------
// [SECTION] STRS, SPAN, CNTR: the trace as columns
//------------------------------------------------------------------------------------------------------------

// Batch ids run from kNoBatch up; a hostile id far from the rest must not make the store's batch index
// (24 bytes a batch) allocate for the gap. Every batch of a run between its first and its last has spans,
// so the ids spread no wider than the spans are many, give or take batches whose spans were all lost.
constexpr int64_t kMaxBatchSpread = 1 << 26;
constexpr int64_t kBatchGapSlack = 1 << 16;

std::vector<uint8_t> encode_strings(const std::vector<std::string>& names) {
    std::vector<uint8_t> out;
    varint::put(out, names.size());
    for (const std::string& name : names) {
        varint::put(out, name.size());
        out.insert(out.end(), name.begin(), name.end());
    }
    return out;
}

// Interns the table into `store` name by name, so that its ids are the file's; returns how many. A name
// that repeats (or an empty one past the first) is an error at once: a few KiB that inflate to millions
// of repeats must not be held as millions of strings first.
size_t decode_strings(const std::vector<uint8_t>& raw, TraceStore& store) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t count = in.get_count("the string count");
    if (count == 0 || in.get("a string's length") != 0)
        throw varint::FormatError("the string table does not start with \"\"");
    for (uint64_t i = 1; i < count; ++i)
        if (store.intern(in.text(in.get("a string's length"), "a string")) != i)
            throw varint::FormatError("the string table holds a name twice");
    return count;
}

// The six columns of a run of spans.
enum Column { kStart, kDuration, kBatch, kBytes, kKindMemory, kName, kColumns };
// In the kind-and-memory byte: kind in bits 0-3, memory in 4-6, and from format 2 on, bit 7 for a span the
// run's end cut short (Span::cut).
constexpr uint8_t kCutBit = 0x80;

std::vector<uint8_t> encode_spans(LaneId lane, std::span<const Span> spans, TimeNs time_base) {
    std::array<std::vector<uint8_t>, kColumns> columns;
    TimeNs previous_start = time_base;
    int64_t previous_batch = kNoBatch;
    for (const Span& s : spans) {
        varint::put_signed(columns[kStart], s.start - previous_start);
        varint::put_signed(columns[kDuration], s.end - s.start);
        varint::put_signed(columns[kBatch], s.batch - previous_batch);
        varint::put(columns[kBytes], s.bytes);
        columns[kKindMemory].push_back(static_cast<uint8_t>(
            static_cast<uint8_t>(s.kind) | static_cast<uint8_t>(s.memory) << 4 | (s.cut ? kCutBit : 0)));
        varint::put(columns[kName], s.name);
        previous_start = s.start;
        previous_batch = s.batch;
    }
    std::vector<uint8_t> out;
    varint::put(out, lane);
    varint::put(out, spans.size());
    for (const auto& column : columns) {
        varint::put(out, column.size());
        out.insert(out.end(), column.begin(), column.end());
    }
    return out;
}

struct Limits {
    size_t lanes = 0;
    size_t names = 0;
    TimeNs time_base = 0;
    bool cut_marks = false;  // format 2 on: bit 7 of the kind byte marks a cut span
};

TimeNs checked_time(TimeNs base, int64_t delta, const char* what) {
    // In unsigned arithmetic, so a hostile delta wraps instead of overflowing; the bound catches it.
    const TimeNs t = static_cast<TimeNs>(static_cast<uint64_t>(base) + static_cast<uint64_t>(delta));
    if (t < 0 || t > kMaxTime) throw varint::FormatError(fmt::format("a span's {} is out of range", what));
    return t;
}

// The batch ids a capture's spans use, checked once every section is read.
struct BatchRange {
    int64_t min = std::numeric_limits<int64_t>::max(), max = kNoBatch;
    void note(int64_t batch) {
        if (batch == kNoBatch) return;
        min = std::min(min, batch);
        max = std::max(max, batch);
    }
};

// Appends one SPAN section's spans to their lane in `lanes`; returns how many.
size_t decode_spans(const std::vector<uint8_t>& raw, const Limits& limits,
                    std::vector<std::vector<Span>>& lanes, BatchRange& batches) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t lane_id = in.get("the lane id");
    if (lane_id >= limits.lanes)
        throw varint::FormatError(fmt::format("spans for lane {}, which the header does not list", lane_id));
    // Every span takes at least a byte in each column, and a writer puts at most kSpansPerSection in one.
    const uint64_t count = in.get_count("the span count", kColumns);
    if (count > kSpansPerSection)
        throw varint::FormatError(
            fmt::format("{} spans in one section, more than a writer puts there", count));
    std::array<varint::Reader, kColumns> columns;
    for (auto& column : columns) column = in.sub(in.get("a column's length"), "a column");
    if (!in.done()) throw varint::FormatError("a SPAN section has bytes after its columns");

    std::vector<Span>& spans = lanes[lane_id];
    TimeNs previous_start = limits.time_base;
    int64_t previous_batch = kNoBatch;
    const size_t first = spans.size();
    spans.resize(first + count);
    for (size_t i = first; i < spans.size(); ++i) {
        Span& s = spans[i];
        s.lane = static_cast<LaneId>(lane_id);
        s.start = checked_time(previous_start, columns[kStart].get_signed("a start"), "start");
        s.end = checked_time(s.start, columns[kDuration].get_signed("a duration"), "end");
        const int64_t batch =
            static_cast<int64_t>(static_cast<uint64_t>(previous_batch) +
                                 static_cast<uint64_t>(columns[kBatch].get_signed("a batch id")));
        if (batch < kNoBatch)
            throw varint::FormatError(fmt::format("a span's batch id {} is negative", batch));
        s.batch = batch;
        batches.note(batch);
        s.bytes = columns[kBytes].get("a byte count");
        uint8_t packed = columns[kKindMemory].byte("a kind");
        const bool cut = limits.cut_marks && (packed & kCutBit);
        if (cut) packed &= static_cast<uint8_t>(~kCutBit);
        if ((packed & 0xF) >= kSpanKindCount || (packed >> 4) > static_cast<int>(HostMemory::pinned))
            throw varint::FormatError(fmt::format("a span has an unknown kind or memory ({:#04x})", packed));
        s.kind = static_cast<SpanKind>(packed & 0xF);
        s.memory = static_cast<HostMemory>(packed >> 4);
        s.cut = cut;
        const uint64_t name = columns[kName].get("a name id");
        if (name >= limits.names)
            throw varint::FormatError(fmt::format("a span names string {}, past the string table", name));
        s.name = static_cast<uint32_t>(name);
        previous_start = s.start;
        previous_batch = batch;
    }
    for (const auto& column : columns)
        if (!column.done()) throw varint::FormatError("a span column holds more than its spans");
    return count;
}

std::vector<uint8_t> encode_counters(CounterKind kind, const std::vector<CounterSample>& samples) {
    std::vector<uint8_t> out;
    varint::put(out, static_cast<uint64_t>(kind));
    varint::put(out, samples.size());
    TimeNs previous = 0;
    for (const CounterSample& s : samples) {
        varint::put_signed(out, s.time - previous);
        previous = s.time;
    }
    for (const CounterSample& s : samples) varint::put_f64(out, s.value);
    return out;
}

void decode_counters(const std::vector<uint8_t>& raw, TraceStore& store,
                     std::array<bool, kCounterKindCount>& seen, uint64_t& samples_read) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t kind = in.get("the counter kind");
    if (kind >= kCounterKindCount) throw varint::FormatError(fmt::format("an unknown counter kind {}", kind));
    if (seen[kind]) throw varint::FormatError(fmt::format("counter kind {} appears twice", kind));
    seen[kind] = true;
    const uint64_t count = in.get_count("the sample count", 9);  // a time byte and a double each
    std::vector<TimeNs> times(count);
    TimeNs previous = 0;
    for (TimeNs& t : times) {
        t = checked_time(previous, in.get_signed("a sample time"), "sample time");
        if (t < previous) throw varint::FormatError("counter samples are out of time order");
        previous = t;
    }
    for (TimeNs t : times) {
        const double value = in.f64("a sample value");
        if (!std::isfinite(value)) throw varint::FormatError("a counter sample is not a finite number");
        store.add(CounterSample{t, value, static_cast<CounterKind>(kind)});
    }
    if (!in.done()) throw varint::FormatError("a CNTR section has bytes after its samples");
    samples_read += count;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Writing
//------------------------------------------------------------------------------------------------------------

TimeNs earliest_start(const TraceStore& store) {
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const LaneInfo& lane : store.lanes())
        if (!store.spans(lane.id).empty()) first = std::min(first, store.spans(lane.id).front().start);
    return first == std::numeric_limits<TimeNs>::max() ? 0 : first;
}

void write_capture(std::ostream& out, const TraceStore& store, const CaptureInfo& info,
                   const std::function<void(double)>& progress) {
    const TimeNs time_base = earliest_start(store);
    SectionWriter sections(out);
    const std::string meta = meta_json(store, info, time_base).dump();
    sections.section(kMeta, std::vector<uint8_t>(meta.begin(), meta.end()));
    sections.section(kStrings, encode_strings(store.names()));
    size_t written = 0;
    const double total = std::max<double>(1, static_cast<double>(store.span_count()));
    for (const LaneInfo& lane : store.lanes()) {
        const std::span<const Span> spans = store.spans(lane.id);
        for (size_t from = 0; from < spans.size(); from += kSpansPerSection) {
            const std::span<const Span> run =
                spans.subspan(from, std::min(kSpansPerSection, spans.size() - from));
            // Each section's deltas start afresh from the time base, so sections decode on their own.
            sections.section(kSpans, encode_spans(lane.id, run, time_base));
            written += run.size();
            if (progress) progress(static_cast<double>(written) / total);
        }
    }
    for (int kind = 0; kind < kCounterKindCount; ++kind) {
        const std::vector<CounterSample>& samples = store.counters(CounterKind(kind));
        if (!samples.empty()) sections.section(kCounters, encode_counters(CounterKind(kind), samples));
    }
    sections.end();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Reading
//------------------------------------------------------------------------------------------------------------

Capture read_capture(const uint8_t* data, size_t size, const std::function<bool(double)>& progress) {
    SectionReader sections(data, size);
    Section first = sections.next();
    if (first.tag != kMeta)
        throw CaptureError(fmt::format("its first section is {}, not META", tag_name(first.tag)));
    Meta meta = meta_from_json(first.raw);
    first.raw = {};

    Capture capture;
    capture.info = std::move(meta.info);
    capture.store.set_lanes(meta.lanes);
    capture.file_bytes = size;
    std::vector<std::vector<Span>> lanes(meta.lanes.size());
    Limits limits{meta.lanes.size(), 0, meta.time_base, sections.version() >= 2};
    bool have_strings = false;
    std::array<bool, kCounterKindCount> counters_seen{};
    uint64_t spans_read = 0, samples_read = 0;
    BatchRange batches;
    for (;;) {
        Section section = sections.next();
        if (section.tag == kEnd) break;
        const std::string name = tag_name(section.tag);
        try {
            if (section.tag == kStrings) {
                if (have_strings) throw varint::FormatError("a second string table");
                limits.names = decode_strings(section.raw, capture.store);
                have_strings = true;
            } else if (section.tag == kSpans) {
                if (!have_strings) throw varint::FormatError("spans before the string table");
                spans_read += decode_spans(section.raw, limits, lanes, batches);
                if (spans_read > meta.spans)
                    throw varint::FormatError(fmt::format("more spans than the header's {}", meta.spans));
            } else if (section.tag == kCounters) {
                decode_counters(section.raw, capture.store, counters_seen, samples_read);
            }
            // An unknown tag is a later format's addition this reader can skip.
        } catch (const varint::FormatError& e) {
            throw CaptureError(fmt::format("section {} is malformed: {}", name, e.what()));
        }
        if (progress && !progress(0.9 * static_cast<double>(sections.offset()) / static_cast<double>(size)))
            throw CaptureError("opening was cancelled");
    }
    if (!sections.at_end()) throw CaptureError("it has bytes after its END section");
    if (spans_read != meta.spans || samples_read != meta.counter_samples)
        throw CaptureError(
            fmt::format("it holds {} spans and {} counter samples where its header says {} and {}",
                        spans_read, samples_read, meta.spans, meta.counter_samples));
    const int64_t max_spread = std::min(kMaxBatchSpread, static_cast<int64_t>(spans_read) + kBatchGapSlack);
    if (batches.max != kNoBatch && batches.max - batches.min > max_spread)
        throw CaptureError(
            fmt::format("its batch ids spread from {} to {}, wider than its {} spans could cover",
                        batches.min, batches.max, spans_read));

    for (size_t id = 0; id < lanes.size(); ++id) {
        std::vector<Span>& spans = lanes[id];
        const auto by_start = [](const Span& a, const Span& b) { return a.start < b.start; };
        if (!std::is_sorted(spans.begin(), spans.end(), by_start))
            std::stable_sort(spans.begin(), spans.end(), by_start);
        if (!spans.empty()) capture.store.adopt_lane(static_cast<LaneId>(id), std::move(spans));
    }
    if (progress) progress(1.0);
    return capture;
}

std::string file_problem(const std::filesystem::path& path, const std::string& what) {
    return fmt::format("{}: {}", path.string(), what);
}

}  // namespace

Metrics capture_metrics(const Capture& capture) {
    return compute_metrics(capture.store, capture.info.config.batch_size, capture.info.window,
                           capture.info.config.slow_motion);
}

void save_capture(OutputFile& file, const TraceStore& store, const CaptureInfo& info,
                  const std::function<void(double)>& progress) {
    try {
        file.write([&](std::ostream& out) { write_capture(out, store, info, progress); });
    } catch (const CaptureError& e) {
        throw CaptureError(file_problem(file.path(), e.what()));
    } catch (const OutputPathError&) {
        throw;  // a bad path, not a failed write: the caller reports it as bad input
    } catch (const std::exception& e) {
        throw CaptureError(e.what());  // OutputFile's messages name the file already
    }
}

void save_capture(const std::filesystem::path& path, const TraceStore& store, const CaptureInfo& info,
                  const std::function<void(double)>& progress) {
    OutputFile file(path, "the capture");
    save_capture(file, store, info, progress);
}

Capture load_capture_bytes(const uint8_t* data, size_t size, const std::string& name) {
    try {
        return read_capture(data, size, {});
    } catch (const CaptureError& e) {
        throw CaptureError(fmt::format("{}: {}", name, e.what()));
    }
}

Capture load_capture(const std::filesystem::path& path, const std::function<bool(double)>& progress) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw CaptureError(
            file_problem(path, std::filesystem::exists(path) ? "cannot be read" : "no such file"));
    if (std::filesystem::is_directory(path))
        throw CaptureError(file_problem(path, "is a folder, not a capture"));
    const std::streamoff size = in.tellg();
    if (size <= 0) throw CaptureError(file_problem(path, "is empty"));
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    // Read in pieces so that a big file shows progress while it comes off the disk.
    constexpr size_t kPiece = 16 << 20;
    for (size_t at = 0; at < bytes.size(); at += kPiece) {
        const size_t n = std::min(kPiece, bytes.size() - at);
        if (!in.read(reinterpret_cast<char*>(bytes.data() + at), static_cast<std::streamsize>(n)))
            throw CaptureError(file_problem(path, "could not be read to its end"));
        if (progress && !progress(0.1 * static_cast<double>(at + n) / static_cast<double>(bytes.size())))
            throw CaptureError(file_problem(path, "opening was cancelled"));
    }
    try {
        Capture capture = read_capture(bytes.data(), bytes.size(),
                                       [&](double share) { return !progress || progress(0.1 + share); });
        capture.path = path;
        return capture;
    } catch (const CaptureError& e) {
        throw CaptureError(file_problem(path, e.what()));
    } catch (const std::bad_alloc&) {
        throw CaptureError(file_problem(path, "does not fit in memory"));
    }
}

namespace capture_format {

std::string file_header(uint32_t version) {
    return file_header_bytes(version);
}

std::string section(std::string_view tag, std::string_view raw) {
    if (tag.size() != 4) throw std::invalid_argument("a section tag has four characters");
    uint32_t section_tag = 0;
    for (int i = 0; i < 4; ++i) section_tag |= static_cast<uint32_t>(static_cast<uint8_t>(tag[i])) << (8 * i);
    CompressContext zstd;
    return section_bytes(zstd, section_tag, raw.data(), raw.size());
}

std::string end() {
    return section_header_bytes(kEnd, 0, 0);
}

}  // namespace capture_format

bool looks_like_capture(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    char head[sizeof kMagic] = {};
    return in.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

}  // namespace pinscope
