#pragma once
// Splits a profiler trace's JSON into what can be parsed a piece at a time, without holding the whole
// text: the top-level values other than "traceEvents" (small: deviceProperties, baseTimeNanoseconds,
// distributedInfo...) one by one, and the "traceEvents" array in chunks of whole events, each chunk a
// JSON array of its own with simdjson's padding after it. Both layouts PyTorch writes are read: an object
// with "traceEvents" among its keys (before or after the others), and a bare array of events (the legacy
// profiler's). The scan only tracks strings and brackets; the events themselves are parsed by the caller.
//
// A text that ends early (a truncated file) ends the split: `truncated()` says so, and the chunks handed
// over before hold every event that was whole.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/kineto/trace_bytes.h"

namespace pinscope {

// A run of whole events: `text` is "[ev,ev,...]" (json_size bytes) followed by at least 64 bytes of
// padding (simdjson's), and event i is json().substr(offsets[i], ends[i] - offsets[i]).
struct EventChunk {
    std::string text;
    size_t json_size = 0;
    std::vector<uint32_t> offsets, ends;
    std::string_view json() const { return {text.data(), json_size}; }
    size_t size() const { return offsets.size(); }
};

struct TraceJsonParts {
    std::function<void(std::string_view key, std::string_view value_json)> top_level_value;
    // May take the chunk's contents (swap them with another chunk's, whose capacity is then reused).
    std::function<void(EventChunk&)> events;
    std::function<bool()> keep_going;  // asked between chunks: false cancels (split_trace_json returns)
};

struct SplitOutcome {
    bool found_events = false;  // a "traceEvents" array, or a top-level array
    bool truncated = false;     // the text ended before the JSON did
    bool cancelled = false;
    uint64_t non_objects = 0;  // elements of the event array that were not objects (skipped)
    std::string problem;       // "" or why the split stopped early (not JSON, a value too big)
};

// Reads `bytes` to its end. Throws CaptureError for text that is not JSON of either layout at all.
SplitOutcome split_trace_json(TraceBytes& bytes, const TraceJsonParts& parts);

}  // namespace pinscope
