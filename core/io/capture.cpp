#include "core/io/capture.h"
#include "core/io/kineto/profiler_trace_import.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

#include "core/files/input_file.h"
#include "core/files/mapped_file.h"
#include "core/files/output_file.h"
#include "core/io/capture_columns.h"
#include "core/io/capture_meta.h"
#include "core/io/capture_sections.h"
#include "core/io/varint.h"
#include "core/units/units.h"

// Index of this file (the container is capture_sections.h, the columns capture_columns.cpp, META
// capture_meta.cpp):
// [SECTION] Writing
// [SECTION] Reading

namespace pinscope {

using capture_meta::kMaxTime;
using capture_meta::Meta;
using capture_meta::meta_from_json;
using capture_meta::meta_json;
using namespace capture_sections;
using namespace capture_columns;

//------------------------------------------------------------------------------------------------------------
// [SECTION] Writing
//------------------------------------------------------------------------------------------------------------

struct CaptureWriter::State {
    explicit State(std::ostream& stream) : out(stream) {}
    std::ostream& out;
    CompressContext zstd;
    uint64_t offset = 0;
    std::vector<IndexEntry> index;
    uint64_t spans = 0, samples = 0;

    void write(const std::string& bytes) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        offset += bytes.size();
    }
    void section(uint32_t section_tag, const std::vector<uint8_t>& raw) {
        write(section_bytes(zstd, section_tag, raw.data(), raw.size()));
    }
};

CaptureWriter::CaptureWriter(std::ostream& out) : state_(std::make_unique<State>(out)) {
    state_->write(file_header_bytes(kCaptureFormatVersion));
}

CaptureWriter::~CaptureWriter() = default;

void CaptureWriter::spans(LaneId lane, std::span<const Span> spans) {
    for (size_t from = 0; from < spans.size(); from += kSpansPerSection) {
        const std::span<const Span> run =
            spans.subspan(from, std::min(kSpansPerSection, spans.size() - from));
        IndexEntry entry{state_->offset, lane, run.size(), run.front().start, run.front().end};
        for (const Span& s : run) {
            entry.first_start = std::min(entry.first_start, s.start);
            entry.last_end = std::max(entry.last_end, s.end);
        }
        state_->section(kSpans, encode_spans(lane, run));
        state_->index.push_back(entry);
        state_->spans += run.size();
    }
}

void CaptureWriter::counters(CounterKind kind, std::span<const CounterSample> samples) {
    if (samples.empty()) return;
    state_->section(kCounters, encode_counters(kind, samples));
    state_->samples += samples.size();
}

void CaptureWriter::finish(const TraceStore& tables, const CaptureInfo& info) {
    State& st = *state_;
    st.section(kStrings, encode_strings(tables.names()));
    st.section(kCategories, encode_strings(tables.categories().custom()));
    st.section(kFlows, encode_flows(tables.flows()));
    const uint64_t meta_offset = st.offset;
    const std::string meta = meta_json(tables, info, {st.spans, st.samples}).dump();
    st.section(kMeta, std::vector<uint8_t>(meta.begin(), meta.end()));
    const uint64_t index_offset = st.offset;
    st.section(kIndex, encode_index(st.index, meta_offset));
    st.write(section_header_bytes(kEnd, 0, index_offset));  // format 3's END says where INDX is
}

namespace {

void write_capture(std::ostream& out, const TraceStore& store, const CaptureInfo& info,
                   const std::function<void(double)>& progress) {
    CaptureWriter writer(out);
    size_t written = 0;
    const double total = std::max<double>(1, static_cast<double>(store.span_count()));
    for (const LaneInfo& lane : store.lanes()) {
        const std::span<const Span> spans = store.spans(lane.id);
        for (size_t from = 0; from < spans.size(); from += kSpansPerSection) {
            const std::span<const Span> run =
                spans.subspan(from, std::min(kSpansPerSection, spans.size() - from));
            writer.spans(lane.id, run);
            written += run.size();
            if (progress) progress(static_cast<double>(written) / total);
        }
    }
    for (int kind = 0; kind < kCounterKindCount; ++kind)
        writer.counters(CounterKind(kind), store.counters(CounterKind(kind)));
    writer.finish(store, info);
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Reading
//------------------------------------------------------------------------------------------------------------

// What a format-3 file says at its end: its index (found through END) and its header (through the index).
struct Trailer {
    Index index;
    Meta meta;
};

Trailer read_trailer(SectionReader& sections, const uint8_t* data, size_t size) {
    if (size < kFileHeaderBytes + kSectionHeaderBytes) throw CaptureError("cut short: it has no END section");
    const uint8_t* end = data + size - kSectionHeaderBytes;
    if (get_le(end, 4) != kEnd || get_le(end + 4, 4) != 0 || get_le(end + 8, 8) != 0)
        throw CaptureError("cut short: it does not end with its END section");
    sections.seek(get_le(end + 16, 8));
    Trailer trailer;
    const Section index = sections.next();
    if (index.tag != kIndex) throw CaptureError("its END section does not point at its index");
    try {
        trailer.index = decode_index(index.raw);
    } catch (const varint::FormatError& e) {
        throw CaptureError(fmt::format("section INDX is malformed: {}", e.what()));
    }
    sections.seek(trailer.index.meta_offset);
    const Section meta = sections.next();
    if (meta.tag != kMeta) throw CaptureError("its index does not point at its header (META)");
    trailer.meta = meta_from_json(meta.raw, sections.version());
    return trailer;
}

// A range read's choice: the times kept, and the SPAN sections (by offset) whose spans reach into them.
struct Selection {
    MetricsWindow whole;  // what the range counts from: the recorded window, or the spans' extent
    Interval times;
    std::unordered_set<uint64_t> sections;
    uint64_t spans = 0;  // in those sections
};

Selection select_sections(const Trailer& trailer, CaptureRange range) {
    const MetricsWindow& w = trailer.meta.info.window;
    TimeNs start = w.start, end = w.end;
    if (end <= start) {  // no window recorded: the spans' own extent
        start = std::numeric_limits<TimeNs>::max(), end = 0;
        for (const IndexEntry& e : trailer.index.entries)
            start = std::min(start, e.first_start), end = std::max(end, e.last_end);
    }
    if (!(range.from_s >= 0) || !(range.to_s > range.from_s))
        throw CaptureError(
            fmt::format("the range {:g} s to {:g} s is empty or starts before 0", range.from_s, range.to_s));
    if (end < start) start = end = 0;  // no window and no spans
    // In doubles, bounded before converting: a hostile window or a huge TO must not overflow.
    const auto at = [&](double seconds) {
        return static_cast<TimeNs>(
            std::min(static_cast<double>(start) + seconds * 1e9, static_cast<double>(end)));
    };
    if (static_cast<double>(start) + range.from_s * 1e9 > static_cast<double>(end))
        throw CaptureError(fmt::format("the range starts at {:g} s, after the capture's end ({:.3f} s)",
                                       range.from_s,
                                       (static_cast<double>(end) - static_cast<double>(start)) / 1e9));
    Selection selection;
    selection.whole = {start, end};
    selection.times = {at(range.from_s), at(range.to_s)};
    uint64_t spans_in_file = 0;
    for (const IndexEntry& e : trailer.index.entries) {
        spans_in_file += e.spans;
        if (e.last_end >= selection.times.start && e.first_start <= selection.times.end) {
            selection.sections.insert(e.offset);
            selection.spans += e.spans;
        }
    }
    if (spans_in_file != trailer.meta.spans)
        throw CaptureError(fmt::format("its index counts {} spans where its header says {}", spans_in_file,
                                       trailer.meta.spans));
    return selection;
}

// Reads every section in file order. Formats 1 and 2 start with META and put STRS before the spans;
// format 3, written as the run goes, puts the spans first and META, the tables and INDX last. Either way
// every id a span holds is checked against the tables once all are read. With `range`, SPAN sections the
// index says lie outside it are passed over unread, and counter samples outside it are dropped.
Capture read_capture(const uint8_t* data, size_t size, const std::function<bool(double)>& progress,
                     std::optional<CaptureRange> range = std::nullopt) {
    SectionReader sections(data, size);
    const uint32_t version = sections.version();
    std::optional<Selection> selection;
    if (range) {
        if (version < 3)
            throw CaptureError(fmt::format(
                "a capture of format {} has no index: it opens whole, not a range of it", version));
        selection = select_sections(read_trailer(sections, data, size), *range);
        sections.seek(kFileHeaderBytes);
    }
    Capture capture;
    capture.file_bytes = size;
    std::optional<Meta> meta;
    std::vector<std::vector<Span>> lanes;
    Limits limits{version, 0};
    bool have_strings = false, have_categories = false, have_flows = false, have_index = false;
    size_t names = 0, categories = kSpanKindCount;
    std::array<bool, kCounterKindCount> counters_seen{};
    uint64_t spans_read = 0, samples_read = 0, flows_read = 0, index_offset = 0;
    SpanUse use;
    for (bool first = true;; first = false) {
        const size_t offset = sections.offset();
        const bool skip = selection && size - offset >= 4 && get_le(data + offset, 4) == kSpans &&
                          !selection->sections.contains(offset);
        Section section = sections.next(!skip);
        if (skip) continue;
        if (section.tag == kEnd) {
            index_offset = sections.end_value();
            break;
        }
        const std::string name = tag_name(section.tag);
        if (first && version < 3 && section.tag != kMeta)
            throw CaptureError(fmt::format("its first section is {}, not META", name));
        try {
            if (section.tag == kMeta) {
                if (meta) throw varint::FormatError("a second header");
                meta = meta_from_json(section.raw, version);
                limits.time_base = meta->time_base;
            } else if (section.tag == kStrings) {
                if (have_strings) throw varint::FormatError("a second string table");
                names = decode_strings(section.raw, capture.store);
                have_strings = true;
            } else if (section.tag == kCategories && version >= 3) {
                if (have_categories) throw varint::FormatError("a second category table");
                categories = decode_categories(section.raw, capture.store);
                have_categories = true;
            } else if (section.tag == kSpans) {
                if (version < 3 && !have_strings) throw varint::FormatError("spans before the string table");
                spans_read += decode_spans(section.raw, limits, lanes, use);
                if (meta && spans_read > meta->spans)
                    throw varint::FormatError(fmt::format("more spans than the header's {}", meta->spans));
            } else if (section.tag == kCounters) {
                decode_counters(section.raw, capture.store, version >= 3, counters_seen, samples_read,
                                selection ? &selection->times : nullptr);
            } else if (section.tag == kFlows && version >= 3) {
                if (have_flows) throw varint::FormatError("a second flow table");
                decode_flows(section.raw, capture.store, flows_read);
                have_flows = true;
            } else if (section.tag == kIndex && version >= 3) {
                if (have_index) throw varint::FormatError("a second index");
                have_index = true;
                index_offset = offset;  // checked against what END says
            }
            // An unknown tag is a later format's addition this reader can skip.
        } catch (const varint::FormatError& e) {
            throw CaptureError(fmt::format("section {} is malformed: {}", name, e.what()));
        }
        if (progress && !progress(0.9 * static_cast<double>(sections.offset()) / static_cast<double>(size)))
            throw CaptureError("opening was cancelled");
    }
    if (!sections.at_end()) throw CaptureError("it has bytes after its END section");
    if (!meta) throw CaptureError("it has no header (META)");
    if (version >= 3 && (!have_index || !have_strings))
        throw CaptureError(
            fmt::format("it lacks its {}", have_strings ? "index (INDX)" : "string table (STRS)"));
    if (version >= 3 && sections.end_value() != index_offset)
        throw CaptureError("its END section does not point at its index");
    const uint64_t spans_expected = selection ? selection->spans : meta->spans;
    if (spans_read != spans_expected || samples_read != meta->counter_samples)
        throw CaptureError(fmt::format("it holds {} spans and {} counter samples where its {} says {} and {}",
                                       spans_read, samples_read, selection ? "index" : "header",
                                       spans_expected, meta->counter_samples));
    if (lanes.size() > meta->lanes.size())
        throw CaptureError(
            fmt::format("it has spans for lane {}, which its header does not list", lanes.size() - 1));
    if (spans_read > 0 && use.max_name >= names)
        throw CaptureError(fmt::format("a span names string {}, past the string table", use.max_name));
    if (spans_read > 0 && static_cast<size_t>(use.max_kind) >= categories)
        throw CaptureError(
            fmt::format("a span has category {}, which the capture does not name", use.max_kind));
    for (const Flow& f : capture.store.flows())
        if (f.from_lane >= meta->lanes.size() || f.to_lane >= meta->lanes.size())
            throw CaptureError("a flow names a lane its header does not list");
    const int64_t max_spread = std::min(kMaxBatchSpread, static_cast<int64_t>(spans_read) + kBatchGapSlack);
    if (use.max_batch != kNoBatch && use.max_batch - use.min_batch > max_spread)
        throw CaptureError(
            fmt::format("its batch ids spread from {} to {}, wider than its {} spans could cover",
                        use.min_batch, use.max_batch, spans_read));

    capture.info = std::move(meta->info);
    capture.info.spans_in_file = meta->spans;
    if (selection) {
        capture.info.loaded_range = selection->times;
        capture.info.window = selection->whole;  // set even where the file recorded none
    }
    capture.store.set_lanes(meta->lanes);
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

int capture_batch_size(const CaptureInfo& info) {
    return info.config ? info.config->batch_size : info.samples_per_batch;
}

double capture_slow_motion(const CaptureInfo& info) {
    return info.config ? info.config->slow_motion : 1.0;
}

Metrics capture_metrics(const Capture& capture) {
    MetricsWindow window = capture.info.window;
    if (const auto& part = capture.info.loaded_range)  // the part read, within the recorded window
        window = {std::max(window.start, part->start), std::min(window.end, part->end)};
    Metrics metrics = compute_metrics(capture.store, capture_batch_size(capture.info), window,
                                      capture_slow_motion(capture.info));
    add_startup_totals(capture.store, metrics, capture_slow_motion(capture.info));
    return metrics;
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

Capture load_capture_bytes(const uint8_t* data, size_t size, const std::string& name,
                           std::optional<CaptureRange> range) {
    try {
        return read_capture(data, size, {}, range);
    } catch (const CaptureError& e) {
        throw CaptureError(fmt::format("{}: {}", name, e.what()));
    }
}

Capture load_capture(const std::filesystem::path& path, const std::function<bool(double)>& progress,
                     std::optional<CaptureRange> range) {
    if (std::filesystem::is_directory(path)) {
        // tensorboard_trace_handler writes a folder of traces, one per worker and step: one is opened,
        // several are listed to pick from.
        const std::vector<std::filesystem::path> traces = profiler_traces_in(path);
        if (traces.size() == 1) return import_profiler_trace(traces.front(), progress);
        if (traces.empty()) throw CaptureError(file_problem(path, "is a folder, not a capture"));
        std::string names;
        for (size_t i = 0; i < traces.size() && i < 8; ++i)
            names += (i ? ", " : "") + traces[i].filename().string();
        if (traces.size() > 8) names += fmt::format(" and {} more", traces.size() - 8);
        throw CaptureError(file_problem(
            path,
            fmt::format("is a folder of {} profiler traces; name one of them: {}", traces.size(), names)));
    }
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw CaptureError(file_problem(path, "no such file"));
    if (std::filesystem::is_regular_file(path, error) && std::filesystem::file_size(path, error) == 0)
        throw CaptureError(file_problem(path, "is empty"));
    // A PyTorch profiler trace (JSON, or gzip) is imported; anything else is read as a capture, whose
    // reader says what is wrong with a file that is neither.
    if (looks_like_profiler_trace(path)) return import_profiler_trace(path, progress);
    std::optional<MappedFile> file;
    try {
        file.emplace(path);
    } catch (const InputFileError& e) {
        throw CaptureError(file_problem(path, e.what()));
    }
    if (progress && !progress(0.0)) throw CaptureError(file_problem(path, "opening was cancelled"));
    try {
        Capture capture = read_capture(
            file->data(), file->size(), [&](double share) { return !progress || progress(share); }, range);
        capture.path = path;
        return capture;
    } catch (const CaptureError& e) {
        throw CaptureError(file_problem(path, e.what()));
    } catch (const std::bad_alloc&) {
        throw CaptureError(file_problem(path, "does not fit in memory"));
    }
}

CaptureSize capture_size(const std::filesystem::path& path) {
    try {
        MappedFile file(path);
        SectionReader sections(file.data(), file.size());
        // Formats 1 and 2: no index; their columns inflate about tenfold into 40-byte spans.
        if (sections.version() < 3) return {0, static_cast<uint64_t>(file.size()) * 10, 0};
        const Trailer trailer = read_trailer(sections, file.data(), file.size());
        const MetricsWindow& w = trailer.meta.info.window;
        // About 110 bytes a span once open (the 40-byte spans, their lanes' growth, the batch index, what
        // metrics sort): a 118.8M-span capture took 12.7 GB to open and summarize.
        return {trailer.meta.spans, trailer.meta.spans * 110, w.end - w.start};
    } catch (const InputFileError& e) {
        throw CaptureError(file_problem(path, e.what()));
    } catch (const CaptureError& e) {
        throw CaptureError(file_problem(path, e.what()));
    }
}

std::optional<CaptureRange> range_that_fits(const CaptureSize& size, uint64_t budget_bytes) {
    if (size.memory_bytes <= budget_bytes || size.spans == 0 || size.window <= 0) return std::nullopt;
    const double share = static_cast<double>(budget_bytes) / static_cast<double>(size.memory_bytes);
    return CaptureRange{0, std::max(1e-3, share * ns_to_s(size.window))};
}

CaptureRange parse_capture_range(const std::string& text) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos)
        throw std::invalid_argument(fmt::format("\"{}\" is not FROM:TO (seconds, e.g. 120:150)", text));
    CaptureRange range;
    try {
        size_t used = 0;
        const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
        range.from_s = std::stod(from, &used);
        if (used != from.size()) throw std::invalid_argument("");
        range.to_s = std::stod(to, &used);
        if (used != to.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("\"{}\" is not FROM:TO (seconds, e.g. 120:150)", text));
    }
    if (!(range.from_s >= 0) || !(range.to_s > range.from_s) || !std::isfinite(range.to_s))
        throw std::invalid_argument(fmt::format(
            "\"{}\": FROM must be 0 or more and TO after it (seconds from the capture's start)", text));
    return range;
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
