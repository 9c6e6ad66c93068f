#include "core/io/capture_stream.h"

#include <fmt/format.h>

namespace pinscope {
namespace {

// Thrown inside the write when the stream is abandoned, so that OutputFile discards the temporary.
struct Abandoned {};

}  // namespace

CaptureStream::CaptureStream(OutputFile file) : file_(std::move(file)) {
    thread_ = std::thread([this] {
        try {
            file_.write([this](std::ostream& out) { write_all(out); });
        } catch (const Abandoned&) {
            // the target stays as it was
        } catch (...) {
            std::lock_guard lock(mutex_);
            error_ = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        done_ = true;
        changed_.notify_all();
    });
}

CaptureStream::~CaptureStream() {
    {
        std::lock_guard lock(mutex_);
        if (!finishing_) abandoned_ = true;
        changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();  // finish() joined it already
}

void CaptureStream::span(const Span& span) {
    if (span.lane >= lanes_.size()) lanes_.resize(span.lane + 1);
    std::vector<Span>& buffer = lanes_[span.lane];
    if (buffer.empty()) buffer.reserve(kBlockSpans);
    buffer.push_back(span);
    ++spans_;
    first_start_ = std::min(first_start_, span.start);
    if (span.kind == SpanKind::h2d) first_h2d_ = std::min(first_h2d_, span.start);
    last_end_ = std::max(last_end_, span.end);
    if (buffer.size() == kBlockSpans) push(Block{span.lane, std::exchange(buffer, {}), {}, {}});
}

MetricsWindow CaptureStream::recorded_window() const {
    if (first_start_ == std::numeric_limits<TimeNs>::max()) return {};
    return {first_h2d_ != std::numeric_limits<TimeNs>::max() ? first_h2d_ : first_start_, last_end_};
}

void CaptureStream::counter(const CounterSample& sample) {
    // Times as TraceStore::first_time() and last_time() count them: counter samples included.
    first_start_ = std::min(first_start_, sample.time);
    last_end_ = std::max(last_end_, sample.time);
    std::vector<CounterSample>& buffer = counters_[static_cast<int>(sample.kind)];
    buffer.push_back(sample);
    if (buffer.size() == kBlockSpans) push(Block{kNoLane, {}, sample.kind, std::exchange(buffer, {})});
}

void CaptureStream::push(Block block) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kQueuedBlocks || done_; });
    if (done_) return;  // the stream failed: finish() reports it
    queue_.push_back(std::move(block));
    changed_.notify_all();
}

void CaptureStream::flush_buffers() {
    for (size_t lane = 0; lane < lanes_.size(); ++lane)
        if (!lanes_[lane].empty())
            push(Block{static_cast<LaneId>(lane), std::exchange(lanes_[lane], {}), {}, {}});
    for (int kind = 0; kind < kCounterKindCount; ++kind)
        if (!counters_[kind].empty())
            push(Block{kNoLane, {}, CounterKind(kind), std::exchange(counters_[kind], {})});
}

void CaptureStream::write_all(std::ostream& out) {
    CaptureWriter writer(out);
    for (;;) {
        Block block;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return !queue_.empty() || finishing_ || abandoned_; });
            if (abandoned_) throw Abandoned{};
            if (queue_.empty()) break;  // finishing, and everything is written
            block = std::move(queue_.front());
            queue_.pop_front();
            changed_.notify_all();
        }
        if (block.lane != kNoLane)
            writer.spans(block.lane, block.spans);
        else
            writer.counters(block.counter, block.samples);
        if (!out) return;  // OutputFile reports the failed write
    }
    writer.finish(*tables_, *info_);
}

void CaptureStream::finish(const TraceStore& tables, const CaptureInfo& info) {
    flush_buffers();
    {
        std::lock_guard lock(mutex_);
        tables_ = &tables;
        info_ = &info;
        finishing_ = true;
        changed_.notify_all();
    }
    thread_.join();
    if (!error_) return;
    try {
        std::rethrow_exception(error_);
    } catch (const CaptureError&) {
        throw;
    } catch (const OutputPathError&) {
        throw;
    } catch (const std::exception& e) {
        throw CaptureError(e.what());  // OutputFile's messages name the file already
    }
}

}  // namespace pinscope
