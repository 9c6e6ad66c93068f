#pragma once
// The capture file's sections as columns (core/io/capture.h describes them): strings, categories, spans,
// counters, flows and the index, encoded for writing and decoded with every value checked. Internal to
// core/io.
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/io/capture.h"
#include "core/trace/trace_store.h"

namespace pinscope::capture_columns {

// Batch ids run from kNoBatch up; a hostile id far from the rest must not make the store's batch index
// (24 bytes a batch) allocate for the gap. Every batch of a run between its first and its last has spans,
// so the ids spread no wider than the spans are many, give or take batches whose spans were all lost.
inline constexpr int64_t kMaxBatchSpread = 1 << 26;
inline constexpr int64_t kBatchGapSlack = 1 << 16;

struct Limits {
    uint32_t version = kCaptureFormatVersion;
    TimeNs time_base = 0;  // formats 1 and 2: every section's deltas start here (META says)
    bool cut_marks() const { return version >= 2; }
};

// `base` plus `delta`, in range or a FormatError naming `what`.
TimeNs checked_time(TimeNs base, int64_t delta, const char* what);

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

// INDX: where each SPAN section is and what it covers, so that a reader can take only the sections of a
// time range; and where META and the tables are.
struct IndexEntry {
    uint64_t offset = 0;
    LaneId lane = kNoLane;
    uint64_t spans = 0;
    TimeNs first_start = 0, last_end = 0;
};

struct Index {
    uint64_t meta_offset = 0;
    std::vector<IndexEntry> entries;
};

std::vector<uint8_t> encode_strings(std::span<const std::string> names);
// Interns the table into `store` name by name, so that its ids are the file's; returns how many.
size_t decode_strings(const std::vector<uint8_t>& raw, TraceStore& store);
// CATS: an imported trace's own categories, in id order from kSpanKindCount.
size_t decode_categories(const std::vector<uint8_t>& raw, TraceStore& store);
// A SPAN section of format 3: lane, count, the time its deltas start from, then the columns.
std::vector<uint8_t> encode_spans(LaneId lane, std::span<const Span> spans);
// Appends one SPAN section's spans to their lane in `lanes`; returns how many.
size_t decode_spans(const std::vector<uint8_t>& raw, const Limits& limits,
                    std::vector<std::vector<Span>>& lanes, SpanUse& use);
std::vector<uint8_t> encode_counters(CounterKind kind, std::span<const CounterSample> samples);
// Keeps only the samples inside `keep` when given (a range read); counts every one it checked.
void decode_counters(const std::vector<uint8_t>& raw, TraceStore& store, bool several_per_kind,
                     std::array<bool, kCounterKindCount>& seen, uint64_t& samples_read,
                     const Interval* keep = nullptr);
std::vector<uint8_t> encode_flows(std::span<const Flow> flows);
void decode_flows(const std::vector<uint8_t>& raw, TraceStore& store, uint64_t& flows_read);
std::vector<uint8_t> encode_index(const std::vector<IndexEntry>& entries, uint64_t meta_offset);
Index decode_index(const std::vector<uint8_t>& raw);

}  // namespace pinscope::capture_columns
