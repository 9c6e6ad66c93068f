#pragma once
// A capture written while the run records it: every span the collector moves goes to disk in
// compressed blocks (format 3's SPAN sections), so the capture holds the whole run however long, while
// the live store keeps only its memory bound. The tables and META that only the end knows are written by
// finish(). The file is still replaced atomically (OutputFile): a run that fails or is killed before
// finish() leaves the target as it was. It can also go to a FIFO, whose reader then sees the run as it
// records.
//
// Threads: span() and counter() run on the collector's thread (a TraceTap); the blocks are compressed
// and written on the stream's own thread, which a queue of kQueuedBlocks separates from it. A disk (or
// FIFO reader) slower than the run fills the queue, and the collector then waits, as a full recorder
// ring makes its producer wait: nothing is dropped, the run is held back, and the trace shows it.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/files/output_file.h"
#include "core/io/capture.h"
#include "core/trace/trace_tap.h"

namespace pinscope {

class CaptureStream final : public TraceTap {
  public:
    static constexpr size_t kBlockSpans = 1 << 16;  // a lane's spans per SPAN section: 2.6 MB in memory
    static constexpr size_t kQueuedBlocks = 8;

    // Starts writing `file` (the file header goes first; a FIFO waits for its reader on the stream's thread).
    explicit CaptureStream(OutputFile file);
    // Without finish(): the file is abandoned, the target left as it was.
    ~CaptureStream() override;
    CaptureStream(const CaptureStream&) = delete;
    CaptureStream& operator=(const CaptureStream&) = delete;

    void span(const Span& span) override;
    void counter(const CounterSample& sample) override;

    // Once the last collection is done: writes what is still buffered, then the tables of `tables` (lanes,
    // names, categories, flows; its spans are not read) and META from `info`, and puts the file in place.
    // Throws CaptureError (OutputPathError for the path) naming the file.
    void finish(const TraceStore& tables, const CaptureInfo& info);

    uint64_t spans() const { return spans_; }  // taken so far
    // The run's measured window over every span taken, as measured_window() reads a whole store: from
    // the first batch's first copy (or the first span or sample, without one) to the last span's end or
    // sample.
    MetricsWindow recorded_window() const;
    const OutputFile& file() const { return file_; }

  private:
    struct Block {
        LaneId lane = kNoLane;
        std::vector<Span> spans;
        CounterKind counter = CounterKind::outstanding_batches;
        std::vector<CounterSample> samples;
    };
    void push(Block block);
    void flush_buffers();
    void write_all(std::ostream& out);  // the stream's thread

    OutputFile file_;
    std::vector<std::vector<Span>> lanes_;  // by lane id: spans not yet handed to the stream's thread
    std::vector<CounterSample> counters_[kCounterKindCount];
    uint64_t spans_ = 0;
    TimeNs first_start_ = std::numeric_limits<TimeNs>::max(), first_h2d_ = std::numeric_limits<TimeNs>::max();
    TimeNs last_end_ = 0;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Block> queue_;
    const TraceStore* tables_ = nullptr;  // set by finish(): the end's tables to write
    const CaptureInfo* info_ = nullptr;
    bool finishing_ = false, abandoned_ = false, done_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: starts once the rest exists
};

}  // namespace pinscope
