#pragma once
// The DataLoader: PyTorch's torch.utils.data.DataLoader iterator, with threads where PyTorch has
// processes. Semantics (see docs/design.md "PyTorch semantics reproduced"):
// - one worker builds one whole batch; batch i goes to worker i mod W (in_order), or to the
//   least-loaded worker (in_order=false);
// - at most prefetch_factor * num_workers batches are outstanding (dispatched, not yet handed over),
//   and each batch handed over lets exactly one more be dispatched;
// - with in_order, an early batch waits in the reorder buffer and frees no slot;
// - pin_memory with pin_mode=thread: a pin thread copies each batch into pinned memory in arrival
//   order; pin_mode=direct: workers collate straight into pinned buffers;
// - num_workers=0: fetch, collate and pin happen inline in next(), with no prefetch;
// - a worker's exception is re-raised by next() as WorkerError when its batch's turn comes.
// next() and the destructor belong to one thread (the train loop); interrupt() may come from any.
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/pipeline/blocking_queue.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/host_buffer_pool.h"
#include "core/pipeline/loaded_batch.h"
#include "core/pipeline/pipeline_thread.h"
#include "core/pipeline/worker_assignment.h"
#include "core/trace/trace.h"

namespace pinscope {

struct LoaderContext {
    Device& device;
    Trace& trace;
    const Dataset& dataset;
    Recorder& recorder;     // the calling (train loop) thread's recorder
    LaneId lane = kNoLane;  // the calling thread's lane
    Gauge* pinned_gauge = nullptr;
    int64_t first_batch_id = 0;
    int batches_held_downstream = 2;  // batches the caller keeps after next() (in flight on the GPU)
};

class DataLoader {
  public:
    DataLoader(const PipelineConfig& config, LoaderContext context);
    ~DataLoader();
    DataLoader(const DataLoader&) = delete;
    DataLoader& operator=(const DataLoader&) = delete;

    // The next batch in order; nullopt once interrupted. Throws WorkerError for a failed batch (and,
    // with num_workers=0, the dataset's own exception, as PyTorch does).
    std::optional<LoadedBatch> next();
    // Stops the workers and wakes next(). Safe from any thread.
    void interrupt();

    int64_t dispatched() const { return send_index_; }  // batches handed to workers so far
    int outstanding() const { return outstanding_; }

  private:
    struct IndexBatch {
        int64_t index;
        int64_t first_sample;
    };

    void try_dispatch();  // PyTorch's _try_put_index
    std::optional<LoadedBatch> next_inline();
    std::optional<LoadedBatch> next_from_workers();
    void record_levels();

    // Thread bodies (loader_threads.cpp).
    void worker_loop(int worker);
    void pin_loop();
    bool fill(LoadedBatch& batch, int64_t first_sample, Recorder& recorder, LaneId lane);
    bool pin(LoadedBatch& batch, Recorder& recorder, LaneId lane);

    const PipelineConfig config_;
    LoaderContext context_;
    const int workers_;
    const int max_outstanding_;
    std::atomic<bool> stop_{false};

    // Pools first: they outlive every lease held by the queues and threads below.
    std::shared_ptr<HostBufferPool> collate_pool_;  // where batches are built (pinned with pin_mode=direct)
    std::shared_ptr<HostBufferPool> pinned_pool_;   // the pin stage's destination (pin_mode=thread)

    std::vector<std::unique_ptr<BlockingQueue<IndexBatch>>> index_queues_;
    BlockingQueue<LoadedBatch> worker_results_;  // workers -> pin thread (or straight to the train loop)
    BlockingQueue<LoadedBatch> pinned_results_;  // pin thread -> train loop
    BlockingQueue<LoadedBatch>* data_queue_;     // what next() reads

    // Train-loop side bookkeeping, as in _MultiProcessingDataLoaderIter.
    int64_t send_index_ = 0;
    int64_t receive_index_ = 0;
    int outstanding_ = 0;
    WorkerAssignment assignment_{config_.num_workers, config_.in_order};
    std::map<int64_t, LoadedBatch> reorder_buffer_;

    std::vector<PipelineThread> threads_;  // last: joined first on destruction
};

}  // namespace pinscope
