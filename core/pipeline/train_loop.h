#pragma once
// The GPU side of a training step: each batch is copied to the device, processed by a kernel and a
// result is copied back. A batch is split into `chunks`; chunk c of batch i runs on stream
// (i * chunks + c) mod streams, and on its stream its H2D, kernel and D2H run in order, as in NVIDIA's
// copy/compute overlap experiment. Issue order is per chunk or all copies first.
// Up to streams + 1 batches are in flight: the host issues batch i + 1 while the GPU works on batch i
// (what non_blocking buys), and waits (a `sync` span) before reusing the slot of batch i - streams.
#include <deque>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/pipeline/loaded_batch.h"
#include "core/trace/recorder.h"

namespace pinscope {

class TrainLoop {
  public:
    TrainLoop(const PipelineConfig& config, Device& device, Recorder& recorder, LaneId lane);
    ~TrainLoop();  // waits for the GPU, then returns every buffer
    TrainLoop(const TrainLoop&) = delete;
    TrainLoop& operator=(const TrainLoop&) = delete;

    static int batches_in_flight(const PipelineConfig& config) { return config.streams + 1; }

    void submit(LoadedBatch batch);
    void drain();  // waits for every batch in flight and releases it

    int64_t completed() const { return completed_; }

  private:
    struct Slot {
        DeviceBuffer input;
        DeviceBuffer normalized;  // transfer_dtype uint8: the batch as float32, made on the GPU
        DeviceBuffer output;
        HostBuffer result;                 // where the result lands on the host
        std::vector<Event> done;           // one per stream; recorded after the batch's last op there
        std::vector<bool> used;            // which streams the occupant used
        std::optional<LoadedBatch> batch;  // the occupant, until its work is done
    };

    void retire(Slot& slot);  // waits for the occupant's work and releases it
    void copy_in(Slot& slot, const LoadedBatch& batch, size_t offset, size_t bytes, Stream& stream);
    void normalize(Slot& slot, const LoadedBatch& batch, size_t in_offset, size_t in_bytes, Stream& stream);
    void compute(Slot& slot, const LoadedBatch& batch, size_t in_offset, size_t in_bytes, size_t out_offset,
                 size_t out_bytes, Stream& stream);
    void copy_out(Slot& slot, const LoadedBatch& batch, size_t offset, size_t bytes, Stream& stream);

    const PipelineConfig config_;
    Device& device_;
    Recorder& recorder_;
    const LaneId lane_;
    std::vector<Stream> streams_;
    std::vector<Slot> slots_;
    int64_t submitted_ = 0;
    int64_t completed_ = 0;
};

}  // namespace pinscope
