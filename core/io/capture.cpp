#include "core/io/capture.h"

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
#include "core/io/capture_meta.h"
#include "core/io/varint.h"
#include "core/units/units.h"

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
constexpr uint32_t kCategories = tag("CATS");
constexpr uint32_t kFlows = tag("FLOW");
constexpr uint32_t kIndex = tag("INDX");

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
        // Formats 1 to 3 write zeros here; anything else is damage, not a feature this reader lacks (a
        // later format that used these bytes would carry a newer version, refused above).
        if (get_le(data + 12, 4) != 0) throw CaptureError("its file header is corrupt (reserved bytes set)");
        version_ = version;
        at_ = kFileHeaderBytes;
    }

    uint32_t version() const { return version_; }

    // Goes to the section header at `offset` (one an index named); throws for one outside the file.
    void seek(uint64_t offset) {
        if (offset < kFileHeaderBytes || offset >= size_)
            throw CaptureError(fmt::format("its index points at byte {}, outside the file", offset));
        at_ = static_cast<size_t>(offset);
    }

    // The next section; throws for one that is cut short, too big or does not inflate. With `inflate`
    // false, a section is checked as far as its header and passed over: its bytes are never touched.
    Section next(bool inflate = true) {
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
        if (section.tag == kEnd) {
            // Format 3's END holds no bytes but says where the index is, in its raw-size field.
            if (stored != 0 || (raw != 0 && version_ < 3)) throw CaptureError("its END section is not empty");
            end_value_ = raw;
            return section;
        }
        if (stored > size_ - at_)
            throw CaptureError(
                fmt::format("cut short: section {} at byte {} says {} bytes, the file holds {} more", name,
                            header_at, stored, size_ - at_));
        if (!inflate) {
            if (stored == 0)
                throw CaptureError(fmt::format("section {} at byte {} is empty", name, header_at));
            at_ += stored;
            return section;
        }
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
    // What the END section's raw-size field held: in format 3, the offset of the index.
    uint64_t end_value() const { return end_value_; }

  private:
    const uint8_t* data_;
    size_t size_;
    uint32_t version_ = 0;
    size_t at_ = 0;
    uint64_t inflated_ = 0;
    uint64_t end_value_ = 0;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_{ZSTD_createDCtx(), ZSTD_freeDCtx};
};

//------------------------------------------------------------------------------------------------------------
// [SECTION] STRS, CATS, SPAN, CNTR, FLOW, INDX: the trace as columns
//------------------------------------------------------------------------------------------------------------

// Batch ids run from kNoBatch up; a hostile id far from the rest must not make the store's batch index
// (24 bytes a batch) allocate for the gap. Every batch of a run between its first and its last has spans,
// so the ids spread no wider than the spans are many, give or take batches whose spans were all lost.
constexpr int64_t kMaxBatchSpread = 1 << 26;
constexpr int64_t kBatchGapSlack = 1 << 16;

std::vector<uint8_t> encode_strings(std::span<const std::string> names) {
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
    if (count > uint64_t{kMaxNameId} + 1) throw varint::FormatError("more names than a trace holds");
    for (uint64_t i = 1; i < count; ++i)
        if (store.intern(in.text(in.get("a string's length"), "a string")) != i)
            throw varint::FormatError("the string table holds a name twice");
    if (!in.done()) throw varint::FormatError("a STRS section has bytes after its names");
    return count;
}

// CATS: an imported trace's own categories, in id order from kSpanKindCount.
size_t decode_categories(const std::vector<uint8_t>& raw, TraceStore& store) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t count = in.get_count("the category count");
    if (count > kMaxSpanKinds - kSpanKindCount)
        throw varint::FormatError("more categories than a trace holds");
    for (uint64_t i = 0; i < count; ++i) {
        const std::string name(in.text(in.get("a category's length"), "a category"));
        const SpanKind kind = store.intern_category(name);
        if (static_cast<uint64_t>(kind) != kSpanKindCount + i)
            throw varint::FormatError(
                fmt::format("category \"{}\" is listed twice, or is one of pinscope's own", printable(name)));
    }
    if (!in.done()) throw varint::FormatError("a CATS section has bytes after its names");
    return kSpanKindCount + count;
}

// The columns of a run of spans. Format 3 keeps kind, memory-and-cut and depth apart; formats 1 and 2
// packed kind and memory (and from 2 the cut mark) into one byte and had no depth.
enum Column { kStart, kDuration, kBatch, kBytes, kKind, kName, kFlags, kDepth, kColumns };
constexpr int kColumnsBefore3 = kName + 1;
// In format 2's kind-and-memory byte: kind in bits 0-3, memory in 4-6, bit 7 for a span the run's end
// cut short (Span::cut). In format 3's flags byte: memory in bits 0-1, the cut mark in bit 2.
constexpr uint8_t kCutBit = 0x80;
constexpr uint8_t kFlagCut = 0x04;

// A SPAN section of format 3: lane, count, the time its deltas start from, then the columns.
std::vector<uint8_t> encode_spans(LaneId lane, std::span<const Span> spans) {
    std::array<std::vector<uint8_t>, kColumns> columns;
    const TimeNs base = spans.empty() ? 0 : spans.front().start;
    TimeNs previous_start = base;
    int64_t previous_batch = kNoBatch;
    for (const Span& s : spans) {
        varint::put_signed(columns[kStart], s.start - previous_start);
        varint::put_signed(columns[kDuration], s.end - s.start);
        varint::put_signed(columns[kBatch], s.batch - previous_batch);
        varint::put(columns[kBytes], s.bytes);
        columns[kKind].push_back(static_cast<uint8_t>(s.kind));
        varint::put(columns[kName], s.name);
        columns[kFlags].push_back(
            static_cast<uint8_t>(static_cast<uint8_t>(s.memory) | (s.cut ? kFlagCut : 0)));
        columns[kDepth].push_back(static_cast<uint8_t>(s.depth));
        previous_start = s.start;
        previous_batch = s.batch;
    }
    std::vector<uint8_t> out;
    varint::put(out, lane);
    varint::put(out, spans.size());
    varint::put(out, static_cast<uint64_t>(base));
    for (const auto& column : columns) {
        varint::put(out, column.size());
        out.insert(out.end(), column.begin(), column.end());
    }
    return out;
}

struct Limits {
    uint32_t version = kCaptureFormatVersion;
    TimeNs time_base = 0;  // formats 1 and 2: every section's deltas start here (META says)
    bool cut_marks() const { return version >= 2; }
};

TimeNs checked_time(TimeNs base, int64_t delta, const char* what) {
    // In unsigned arithmetic, so a hostile delta wraps instead of overflowing; the bound catches it.
    const TimeNs t = static_cast<TimeNs>(static_cast<uint64_t>(base) + static_cast<uint64_t>(delta));
    if (t < 0 || t > kMaxTime) throw varint::FormatError(fmt::format("a span's {} is out of range", what));
    return t;
}

// What the spans use, checked once META and the tables are read (format 3 writes them last).
struct SpanUse {
    int64_t min_batch = std::numeric_limits<int64_t>::max(), max_batch = kNoBatch;
    uint64_t max_name = 0;
    int max_kind = 0;
    void note(const Span& s) {
        if (s.batch != kNoBatch) {
            min_batch = std::min(min_batch, s.batch);
            max_batch = std::max(max_batch, s.batch);
        }
        max_name = std::max<uint64_t>(max_name, s.name);
        max_kind = std::max(max_kind, static_cast<int>(s.kind));
    }
};

// Appends one SPAN section's spans to their lane in `lanes` (by lane id; LaneId bounds it); returns how
// many.
size_t decode_spans(const std::vector<uint8_t>& raw, const Limits& limits,
                    std::vector<std::vector<Span>>& lanes, SpanUse& use) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t lane_id = in.get("the lane id");
    if (lane_id >= kNoLane)
        throw varint::FormatError(fmt::format("spans for lane {}, past any lane", lane_id));
    const bool v3 = limits.version >= 3;
    const int column_count = v3 ? kColumns : kColumnsBefore3;
    // Every span takes at least a byte in each column, and a writer puts at most kSpansPerSection in one.
    const uint64_t count = in.get_count("the span count", static_cast<size_t>(column_count));
    if (count > kSpansPerSection)
        throw varint::FormatError(
            fmt::format("{} spans in one section, more than a writer puts there", count));
    const TimeNs base =
        v3 ? checked_time(0, static_cast<int64_t>(in.get("the section's time")), "start") : limits.time_base;
    std::array<varint::Reader, kColumns> columns;
    for (int c = 0; c < column_count; ++c) columns[c] = in.sub(in.get("a column's length"), "a column");
    if (!in.done()) throw varint::FormatError("a SPAN section has bytes after its columns");

    if (lanes.size() <= lane_id) lanes.resize(lane_id + 1);
    std::vector<Span>& spans = lanes[lane_id];
    TimeNs previous_start = base;
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
        s.bytes = columns[kBytes].get("a byte count");
        if (v3) {
            s.kind = static_cast<SpanKind>(columns[kKind].byte("a kind"));
            const uint8_t flags = columns[kFlags].byte("a span's flags");
            if ((flags & 0x3) > static_cast<int>(HostMemory::pinned) || (flags & ~(0x3 | kFlagCut)))
                throw varint::FormatError(fmt::format("a span has unknown flags ({:#04x})", flags));
            s.memory = static_cast<HostMemory>(flags & 0x3);
            s.cut = (flags & kFlagCut) != 0;
            const uint8_t depth = columns[kDepth].byte("a depth");
            if (depth > kMaxSpanDepth)
                throw varint::FormatError(fmt::format("a span's depth {} is too deep", depth));
            s.depth = depth;
        } else {
            uint8_t packed = columns[kKind].byte("a kind");
            const bool cut = limits.cut_marks() && (packed & kCutBit);
            if (cut) packed &= static_cast<uint8_t>(~kCutBit);
            if ((packed & 0xF) >= kSpanKindCount || (packed >> 4) > static_cast<int>(HostMemory::pinned))
                throw varint::FormatError(
                    fmt::format("a span has an unknown kind or memory ({:#04x})", packed));
            s.kind = static_cast<SpanKind>(packed & 0xF);
            s.memory = static_cast<HostMemory>(packed >> 4);
            s.cut = cut;
        }
        const uint64_t name = columns[kName].get("a name id");
        if (name > kMaxNameId)
            throw varint::FormatError(fmt::format("a span names string {}, past any string table", name));
        s.name = static_cast<uint32_t>(name);
        use.note(s);
        previous_start = s.start;
        previous_batch = batch;
    }
    for (int c = 0; c < column_count; ++c)
        if (!columns[c].done()) throw varint::FormatError("a span column holds more than its spans");
    return count;
}

std::vector<uint8_t> encode_counters(CounterKind kind, std::span<const CounterSample> samples) {
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

// Formats 1 and 2 hold each series in one section; format 3, written as the run goes, in several.
// Keeps only the samples inside `keep` when given (a range read); counts every one it checked.
void decode_counters(const std::vector<uint8_t>& raw, TraceStore& store, bool several_per_kind,
                     std::array<bool, kCounterKindCount>& seen, uint64_t& samples_read,
                     const Interval* keep = nullptr) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t kind = in.get("the counter kind");
    if (kind >= kCounterKindCount) throw varint::FormatError(fmt::format("an unknown counter kind {}", kind));
    if (seen[kind] && !several_per_kind)
        throw varint::FormatError(fmt::format("counter kind {} appears twice", kind));
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
        if (!keep || (t >= keep->start && t <= keep->end))
            store.add(CounterSample{t, value, static_cast<CounterKind>(kind)});
    }
    if (!in.done()) throw varint::FormatError("a CNTR section has bytes after its samples");
    samples_read += count;
}

std::vector<uint8_t> encode_flows(std::span<const Flow> flows) {
    std::vector<uint8_t> out;
    varint::put(out, flows.size());
    for (const Flow& f : flows) {
        varint::put(out, f.from_lane);
        varint::put(out, f.to_lane);
        varint::put(out, static_cast<uint64_t>(f.from_start));
        varint::put_signed(out, f.to_start - f.from_start);
    }
    return out;
}

void decode_flows(const std::vector<uint8_t>& raw, TraceStore& store, uint64_t& flows_read) {
    varint::Reader in(raw.data(), raw.size());
    const uint64_t count = in.get_count("the flow count", 4);
    for (uint64_t i = 0; i < count; ++i) {
        Flow f;
        const uint64_t from = in.get("a flow's lane"), to = in.get("a flow's lane");
        if (from >= kNoLane || to >= kNoLane) throw varint::FormatError("a flow names a lane past any lane");
        f.from_lane = static_cast<LaneId>(from);
        f.to_lane = static_cast<LaneId>(to);
        f.from_start = checked_time(0, static_cast<int64_t>(in.get("a flow's start")), "flow start");
        f.to_start = checked_time(f.from_start, in.get_signed("a flow's end"), "flow end");
        store.add(f);
    }
    if (!in.done()) throw varint::FormatError("a FLOW section has bytes after its flows");
    flows_read += count;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Writing
//------------------------------------------------------------------------------------------------------------

// INDX: where each SPAN section is and what it covers, so that a reader can take only the sections of a
// time range; and where META and the tables are.
struct IndexEntry {
    uint64_t offset = 0;
    LaneId lane = kNoLane;
    uint64_t spans = 0;
    TimeNs first_start = 0, last_end = 0;
};

std::vector<uint8_t> encode_index(const std::vector<IndexEntry>& entries, uint64_t meta_offset) {
    std::vector<uint8_t> out;
    varint::put(out, meta_offset);
    varint::put(out, entries.size());
    for (const IndexEntry& e : entries) {
        varint::put(out, e.offset);
        varint::put(out, e.lane);
        varint::put(out, e.spans);
        varint::put(out, static_cast<uint64_t>(e.first_start));
        varint::put(out, static_cast<uint64_t>(e.last_end - e.first_start));
    }
    return out;
}

struct Index {
    uint64_t meta_offset = 0;
    std::vector<IndexEntry> entries;
};

Index decode_index(const std::vector<uint8_t>& raw) {
    varint::Reader in(raw.data(), raw.size());
    Index index;
    index.meta_offset = in.get("META's offset");
    const uint64_t count = in.get_count("the index's length", 5);
    index.entries.resize(count);
    for (IndexEntry& e : index.entries) {
        e.offset = in.get("a section's offset");
        const uint64_t lane = in.get("a section's lane");
        if (lane >= kNoLane) throw varint::FormatError("the index names a lane past any lane");
        e.lane = static_cast<LaneId>(lane);
        e.spans = in.get("a section's span count");
        e.first_start = checked_time(0, static_cast<int64_t>(in.get("a section's start")), "start");
        e.last_end = checked_time(e.first_start, static_cast<int64_t>(in.get("a section's length")), "end");
    }
    if (!in.done()) throw varint::FormatError("the index has bytes after its entries");
    return index;
}

}  // namespace

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
    if (selection) capture.info.loaded_range = selection->times;
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
    return info.config ? info.config->batch_size : 0;
}

double capture_slow_motion(const CaptureInfo& info) {
    return info.config ? info.config->slow_motion : 1.0;
}

Metrics capture_metrics(const Capture& capture) {
    MetricsWindow window = capture.info.window;
    if (const auto& part = capture.info.loaded_range) {  // the part read, within the recorded window
        if (window.end <= window.start) window = {part->start, part->end};
        window = {std::max(window.start, part->start), std::min(window.end, part->end)};
    }
    return compute_metrics(capture.store, capture_batch_size(capture.info), window,
                           capture_slow_motion(capture.info));
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
    if (std::filesystem::is_directory(path))
        throw CaptureError(file_problem(path, "is a folder, not a capture"));
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw CaptureError(file_problem(path, "no such file"));
    if (std::filesystem::is_regular_file(path, error) && std::filesystem::file_size(path, error) == 0)
        throw CaptureError(file_problem(path, "is empty"));
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
