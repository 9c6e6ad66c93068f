#include "core/pipeline/data_loader.h"

#include <cstring>

#include "core/trace/recorder.h"

namespace pinscope {

DataLoader::DataLoader(const PipelineConfig& config, LoaderContext context)
    : config_(config),
      context_(context),
      workers_(config.num_workers),
      max_outstanding_(config.max_outstanding()),
      data_queue_(&worker_results_) {
    const size_t batch_bytes = static_cast<size_t>(config.batch_bytes());
    // Every batch alive holds at most one buffer of each pool: the outstanding ones, the ones the
    // train loop holds, and one being pinned. The pools never make anyone wait in steady state.
    const size_t capacity = static_cast<size_t>(max_outstanding_ + context.batches_held_downstream + 2);
    const bool direct = config.pin_memory && config.pin_mode == PinMode::direct;
    collate_pool_ = HostBufferPool::create(context.device, direct ? HostMemory::pinned : HostMemory::pageable,
                                           batch_bytes, capacity, context.pinned_gauge);
    if (config.pin_memory && !direct)
        pinned_pool_ = HostBufferPool::create(context.device, HostMemory::pinned, batch_bytes, capacity,
                                              context.pinned_gauge);
    record_levels();
    if (workers_ == 0) return;

    for (int w = 0; w < workers_; ++w) index_queues_.push_back(std::make_unique<BlockingQueue<IndexBatch>>());
    if (pinned_pool_) data_queue_ = &pinned_results_;
    for (int w = 0; w < workers_; ++w)
        threads_.emplace_back("worker " + std::to_string(w), [this, w] { worker_loop(w); });
    if (pinned_pool_) threads_.emplace_back("pin thread", [this] { pin_loop(); });
    for (int i = 0; i < max_outstanding_; ++i) try_dispatch();  // PyTorch's prefetch at iterator start
}

DataLoader::~DataLoader() {
    interrupt();
    for (PipelineThread& thread : threads_) thread.join();
    // Nothing runs any more: drop what is still queued, returning every buffer to its pool.
    worker_results_.clear();
    pinned_results_.clear();
    reorder_buffer_.clear();
    outstanding_ = 0;
    record_levels();
}

void DataLoader::interrupt() {
    stop_ = true;
    for (auto& queue : index_queues_) queue->close();
    worker_results_.close();
    pinned_results_.close();
    collate_pool_->close();
    if (pinned_pool_) pinned_pool_->close();
}

void DataLoader::try_dispatch() {
    if (outstanding_ >= max_outstanding_ || stop_) return;
    const int worker = assignment_.assign();
    const int64_t index = send_index_++;
    index_queues_[worker]->push(IndexBatch{index, index * config_.batch_size});
    ++outstanding_;
    record_levels();
}

std::optional<LoadedBatch> DataLoader::next() {
    return workers_ == 0 ? next_inline() : next_from_workers();
}

std::optional<LoadedBatch> DataLoader::next_from_workers() {
    std::optional<LoadedBatch> batch;
    if (config_.in_order) {
        while (!batch) {
            if (auto early = reorder_buffer_.find(receive_index_); early != reorder_buffer_.end()) {
                batch = std::move(early->second);
                reorder_buffer_.erase(early);
                break;
            }
            ScopedSpan waiting(&context_.recorder, context_.lane, SpanKind::wait,
                               context_.first_batch_id + receive_index_);
            std::optional<LoadedBatch> arrived = data_queue_->pop();
            waiting.finish();
            if (!arrived) return std::nullopt;
            assignment_.delivered(arrived->worker);
            if (arrived->index == receive_index_) {
                batch = std::move(arrived);
            } else {
                reorder_buffer_.emplace(arrived->index, std::move(*arrived));  // head-of-line blocking
                record_levels();
            }
        }
        ++receive_index_;
    } else {
        ScopedSpan waiting(&context_.recorder, context_.lane, SpanKind::wait);
        batch = data_queue_->pop();
        if (!batch) return std::nullopt;
        waiting.set_batch(batch->id);
        assignment_.delivered(batch->worker);
    }
    --outstanding_;
    try_dispatch();  // each batch handed over lets exactly one more be dispatched
    record_levels();
    if (batch->failure) throw WorkerError(*batch->failure);
    return batch;
}

std::optional<LoadedBatch> DataLoader::next_inline() {
    if (stop_) return std::nullopt;
    LoadedBatch batch;
    batch.index = send_index_++;
    batch.id = context_.first_batch_id + batch.index;
    // With num_workers=0 PyTorch raises the dataset's exception itself: fill() lets it through.
    if (!fill(batch, batch.index * config_.batch_size, context_.recorder, context_.lane)) return std::nullopt;
    if (pinned_pool_ && !pin(batch, context_.recorder, context_.lane)) return std::nullopt;
    return batch;
}

void DataLoader::record_levels() {
    context_.recorder.counter(CounterKind::outstanding_batches, outstanding_);
    context_.recorder.counter(CounterKind::reorder_depth, static_cast<double>(reorder_buffer_.size()));
}

}  // namespace pinscope
