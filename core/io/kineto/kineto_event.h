#pragma once
// One event of a PyTorch profiler trace (Chrome trace format, as Kineto and the legacy profiler write
// it), as parsed from its JSON: only the fields pinscope reads. Strings point into the parser's buffer
// and live until the next chunk is parsed.
#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>

#include "core/io/kineto/trace_json_splitter.h"

namespace pinscope {

// A pid or tid: a number, or a string ("CPU functions", "stream 7") in older traces.
struct TraceId {
    int64_t number = 0;
    std::string_view text;  // non-empty when the trace wrote a string
    bool present = false;
};

struct KinetoEvent {
    static constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
    static constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();

    char ph = 0;  // 'X' complete, 'i'/'I' instant, 's'/'f' flow, 'M' metadata, 'C' counter...
    std::string_view cat, name, bp;
    TraceId pid, tid;
    double ts = kAbsent, dur = kAbsent;  // microseconds
    int64_t id = kNoValue;               // a flow's id (the correlation id for ac2g)
    // args
    double bytes = kAbsent;
    double bandwidth_gbps = kAbsent;  // "memory bandwidth (GB/s)": a number, or "N/A" (absent)
    int64_t correlation = kNoValue, device = kNoValue, stream = kNoValue, sort_index = kNoValue;
    std::string_view arg_name;  // a metadata event's args.name (a process's or thread's name)
};

// Why events of a chunk were skipped, counted.
struct EventProblems {
    uint64_t malformed = 0;      // not parseable as JSON, or a field of the wrong type
    uint64_t missing_field = 0;  // no ph, or an X event with no ts or dur, or no pid/tid
};

// Parses every event of `chunk` and hands each sound one to `sink`. A chunk that simdjson cannot parse
// whole is parsed an event at a time, so one broken event costs only itself.
class KinetoEventParser {
  public:
    KinetoEventParser();
    ~KinetoEventParser();
    KinetoEventParser(const KinetoEventParser&) = delete;
    KinetoEventParser& operator=(const KinetoEventParser&) = delete;

    template <class Sink>
    void parse(const EventChunk& chunk, Sink&& sink) {
        parse_with(
            chunk, [](void* s, const KinetoEvent& e) { (*static_cast<Sink*>(s))(e); }, &sink);
    }
    const EventProblems& problems() const { return problems_; }

  private:
    using SinkFn = void (*)(void*, const KinetoEvent&);
    void parse_with(const EventChunk& chunk, SinkFn fn, void* sink);

    struct Impl;
    std::unique_ptr<Impl> impl_;
    EventProblems problems_;
};

}  // namespace pinscope
