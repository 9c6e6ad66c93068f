// The DataLoader's threads: workers that build batches and the pin thread that pins them.
#include <cstring>

#include "core/pipeline/data_loader.h"

#include "core/trace/recorder.h"
#include "core/trace/slow_motion.h"
#include "core/trace/thread_lane.h"

namespace pinscope {

// Builds one batch into a buffer from the collate pool. Returns false when shutting down.
// Dataset exceptions propagate to the caller.
bool DataLoader::fill(LoadedBatch& batch, int64_t first_sample, Recorder& recorder, LaneId lane) {
    ScopedSpan span(&recorder, lane, SpanKind::fetch, batch.id);
    BufferLease lease = collate_pool_->acquire();
    if (!lease) {
        span.cancel();  // shut down before any work began
        return false;
    }
    span.set_bytes(static_cast<uint64_t>(config_.batch_bytes()));
    span.set_memory(lease.memory());
    if (const std::string name = context_.dataset.batch_name(first_sample, config_.batch_size); !name.empty())
        span.set_name(context_.trace.intern(name));
    const int64_t sample_bytes = context_.dataset.sample_bytes();
    for (int k = 0; k < config_.batch_size; ++k) {
        context_.dataset.fetch(first_sample + k, lease.data() + k * sample_bytes, stop_);
        if (stop_) {  // the run ended with the batch half built: its span ends here, cut
            span.mark_cut();
            return false;
        }
    }
    batch.buffer = std::move(lease);
    batch.bytes = static_cast<size_t>(config_.batch_bytes());
    return true;
}

// Copies a batch into page-locked memory, as PyTorch's pin thread does. Returns false when shutting down.
bool DataLoader::pin(LoadedBatch& batch, Recorder& recorder, LaneId lane) {
    ScopedSpan span(&recorder, lane, SpanKind::pin, batch.id, batch.bytes, HostMemory::pinned);
    BufferLease pinned = pinned_pool_->acquire();
    if (!pinned) {
        span.cancel();
        return false;
    }
    {
        StretchedWork slowed(config_.slow_motion, &stop_);
        std::memcpy(pinned.data(), batch.buffer.data(), batch.bytes);
    }
    if (stop_) {  // slow motion's stretch of the copy was cut short by the run's end
        span.mark_cut();
        return false;
    }
    batch.buffer = std::move(pinned);  // the pageable buffer goes back to its pool here
    return true;
}

void DataLoader::worker_loop(int worker) {
    std::shared_ptr<Recorder> recorder = context_.trace.make_recorder();
    const LaneId lane = context_.trace.lanes().lane(LaneRole::worker, worker);
    this_thread_lane() = lane;
    while (std::optional<IndexBatch> task = index_queues_[worker]->pop()) {
        LoadedBatch batch;
        batch.index = task->index;
        batch.id = context_.first_batch_id + task->index;
        batch.worker = worker;
        try {
            if (!fill(batch, task->first_sample, *recorder, lane)) break;
        } catch (const std::exception& error) {
            // Like PyTorch's ExceptionWrapper: the failure travels in place of the batch.
            batch.buffer.release();
            batch.failure = WorkerFailure{worker, python_exception_name(error), error.what()};
        }
        if (!worker_results_.push(std::move(batch))) break;
    }
}

void DataLoader::pin_loop() {
    std::shared_ptr<Recorder> recorder = context_.trace.make_recorder();
    const LaneId lane = context_.trace.lanes().lane(LaneRole::pin);
    this_thread_lane() = lane;
    while (std::optional<LoadedBatch> batch = worker_results_.pop()) {
        if (!batch->failure && !pin(*batch, *recorder, lane)) break;
        if (!pinned_results_.push(std::move(*batch))) break;
    }
}

}  // namespace pinscope
