#pragma once
// Record: capture the last N seconds, or the next N seconds, of the live trace to a capture (.pinscope,
// which the app, `pinscope stats` and `diff` open) or a Chrome Trace file (.json: Perfetto,
// chrome://tracing), by the file's extension. The window is copied out of the store on the GUI thread (cheap:
// only the window, TraceStore::extract) and written on a background thread, so the timeline keeps moving
// while a large capture is written. The file is readied when the recording starts (core/io/output_plan.h:
// a place that cannot be written, or a capture that a trace would replace, is refused at once) and written
// whole or not at all.
#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/intervals.h"
#include "core/io/capture.h"
#include "core/trace/trace_store.h"

namespace pinscope::gui {

enum class RecordMode { last, next };

struct RecordRequest {
    RecordMode mode = RecordMode::last;
    double seconds = 5;
    std::filesystem::path file;
};

// What goes into the file besides the spans: the run's description (its window and metrics are the
// recording's own).
struct RecordContext {
    CaptureInfo info;
};

enum class RecordPhase { capturing, writing, done, failed };

class Recording {
  public:
    static constexpr double kMaxSeconds = 120;
    // Spans end after they start: a "next N seconds" capture waits this long past its end.
    static constexpr TimeNs kSettle = 100 * kNsPerMs;

    // `now` is the trace clock now; `latest` the newest span end in the store (where "last N" ends).
    // Throws std::invalid_argument for a bad request (no file, seconds out of range), OutputPathError for a
    // file that cannot be written.
    Recording(RecordRequest request, RecordContext context, TimeNs now, TimeNs latest);
    ~Recording();  // waits for a write in progress
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

    // Once per frame: starts the write when the window is complete, and notices when it ends.
    void update(const TraceStore& store, TimeNs now);

    RecordPhase phase() const { return phase_; }
    bool finished() const { return phase_ == RecordPhase::done || phase_ == RecordPhase::failed; }
    // Of the capture, in [0, 1]: how much of the window has passed (1 while writing and after).
    double progress(TimeNs now) const;
    // "wrote 12,345 spans to trace.json", or what went wrong and how to fix it.
    const std::string& message() const { return message_; }
    const RecordRequest& request() const { return request_; }
    Interval window() const { return window_; }

  private:
    RecordRequest request_;
    RecordContext context_;
    Interval window_;
    RecordPhase phase_ = RecordPhase::capturing;
    std::string message_;
    std::shared_ptr<OutputFile> output_;  // readied up front, written on the writer's thread
    std::future<std::string> writer_;     // the error message, empty on success
    size_t spans_written_ = 0;
};

}  // namespace pinscope::gui
