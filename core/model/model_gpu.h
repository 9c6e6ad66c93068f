#pragma once
// The simulated GPU's engines as the predictor models them: the engine rules the simulated GPU follows
// (core/device/engine_rules.h: which op may start, how fast each copy moves), over model time instead of
// the clock. A pageable copy completes no earlier than its host staging.
#include <cstdint>
#include <vector>

#include "core/device/calibration.h"
#include "core/device/engine_rules.h"

namespace pinscope::model {

constexpr double kNever = 1e300;

enum class OpKind : uint8_t { h2d, kernel, d2h };

struct GpuOp {
    OpKind kind = OpKind::kernel;
    bool pinned = true;
    bool staging = false;  // a pageable copy whose host staging has not finished
    bool running = false;
    int64_t batch = 0;
    uint64_t ticket = 0;
    double bytes = 0;
    double duration = 0;  // kernels, ns
    double start = 0, end = 0;
    double remaining = 0, solo_rate = 0, rate = 0;  // copies: bytes, bytes/ns
    double moved = 0;                               // copies: when the last byte moved; 0 before
};

// A reference to an op: its stream and its place in that stream's order.
struct OpRef {
    int stream = -1;
    int index = -1;
};

class ModelGpu {
  public:
    ModelGpu(const Calibration& calibration, int streams);

    OpRef enqueue(int stream, GpuOp op);
    GpuOp& op(OpRef ref) { return streams_[ref.stream].ops[ref.index]; }
    void staged_to_device(OpRef ref, double from, double to);
    const Calibration& calibration() const { return calibration_; }
    const GpuOp& op(OpRef ref) const { return streams_[ref.stream].ops[ref.index]; }
    bool done(OpRef ref) const { return streams_[ref.stream].head > ref.index; }
    bool started(OpRef ref) const;

    // Starts what can start at `now`; returns true when anything started or completed.
    bool start_ready(double now);
    void update_rates(double now);
    double next_completion(double now) const;  // kNever when nothing runs
    void advance(double from, double to);      // moves bytes
    // Completes what has finished by `now`, calling on_done(op) for each; true when any did.
    template <class OnDone>
    bool complete_finished(double now, OnDone&& on_done);

  private:
    struct Stream {
        std::vector<GpuOp> ops;
        int head = 0;  // the oldest op not completed
    };
    bool finished(const GpuOp& op, double now) const;
    void retire(Stream& stream, double now);

    const Calibration& calibration_;
    std::vector<Stream> streams_;
    uint64_t next_ticket_ = 1;
    engine_rules::Engines engines_;
    engine_rules::HostWriteLoad host_writes_;  // what slows H2D copies (engine_rules.h)
};

template <class OnDone>
bool ModelGpu::complete_finished(double now, OnDone&& on_done) {
    bool any = false;
    for (Stream& s : streams_) {
        while (s.head < static_cast<int>(s.ops.size()) && s.ops[s.head].running &&
               finished(s.ops[s.head], now)) {
            retire(s, now);
            on_done(s.ops[s.head - 1]);
            any = true;
        }
    }
    return any;
}

}  // namespace pinscope::model
