#include "core/io/capture_columns.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/io/capture_meta.h"
#include "core/io/capture_sections.h"
#include "core/io/varint.h"
#include "core/units/units.h"

namespace pinscope::capture_columns {

using capture_meta::kMaxTime;
using capture_sections::kSpansPerSection;

//------------------------------------------------------------------------------------------------------------
// [SECTION] STRS, CATS, SPAN, CNTR, FLOW, INDX: the trace as columns
//------------------------------------------------------------------------------------------------------------

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

TimeNs checked_time(TimeNs base, int64_t delta, const char* what) {
    // In unsigned arithmetic, so a hostile delta wraps instead of overflowing; the bound catches it.
    const TimeNs t = static_cast<TimeNs>(static_cast<uint64_t>(base) + static_cast<uint64_t>(delta));
    if (t < 0 || t > kMaxTime) throw varint::FormatError(fmt::format("a span's {} is out of range", what));
    return t;
}

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
            int kind = columns[kKind].byte("a kind");
            if (limits.version < 4 && kind >= kKindCountBefore4) kind += kSpanKindCount - kKindCountBefore4;
            if (kind >= kMaxSpanKinds)
                throw varint::FormatError(fmt::format("a span's kind {} is past any category", kind));
            s.kind = static_cast<SpanKind>(kind);
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
            if ((packed & 0xF) >= kKindCountBefore4 || (packed >> 4) > static_cast<int>(HostMemory::pinned))
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
                     const Interval* keep) {
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

}  // namespace pinscope::capture_columns
