#pragma once
// The rules of a GPU's engines, written once, for the two that follow them: the simulated GPU
// (core/device/sim), which runs them in real time, and the predictor's model of it (core/model), which runs
// them in model time. Each keeps its own queues and clock; what may start, and how fast a copy moves, is
// decided here:
// - ops on one stream run in issue order; across streams, engines go to ready work in issue order (the
//   callers offer each stream's first waiting op, lowest ticket first);
// - one compute engine runs one kernel at a time;
// - `copy_engines` copy engines each run one copy; with one engine, copies run strictly in issue order
//   across streams, so a D2H waiting for its kernel holds back the H2D issued after it (what made issue
//   order matter in NVIDIA's "How to Overlap Data Transfers in CUDA C/C++"); with more, one copy per
//   direction runs at a time, so an H2D and a D2H overlap but two H2D copies from two streams run one
//   after the other, as CUPTI shows an H100's do (the committed H100 captures: 425 H2D copies on three
//   streams, none overlapping the one before; sharing the link instead finished them together, late, and
//   the directions took turns: the simulated GPU ran 96 MiB copies both ways 15-18% slower than the H100);
// - a copy alone moves at the calibrated bandwidth for its size, direction and host memory kind; a pageable
//   one is staged by its caller through bounce buffers, and the engine moves it at the pinned rate (the
//   pageable rules below);
// - an H2D and a D2H moving bytes at once are held together to the measured bidirectional total;
// - an H2D copy keeps the share of its rate that the calibration measured for how fast the host is
//   writing memory as it starts, D2H copies' writes included (HostWriteLoad below).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/device/calibration.h"
#include "core/device/sim/pageable_staging.h"

namespace pinscope::engine_rules {

enum class Work : uint8_t { h2d, kernel, d2h };

inline bool is_copy(Work work) {
    return work != Work::kernel;
}

// No copy waits: the lowest ticket of waiting copies when there are none.
constexpr uint64_t kNoWaitingCopy = std::numeric_limits<uint64_t>::max();

// Which engines are busy.
class Engines {
  public:
    explicit Engines(int copy_engines) : copy_engines_(std::max(1, copy_engines)) {}

    // With one copy engine its queue is in order: the caller must find the oldest waiting copy.
    bool copies_in_issue_order() const { return copy_engines_ == 1; }

    // Whether `work` (issued as `ticket`) may start now. `oldest_waiting_copy` is the lowest ticket of a
    // copy not yet started, read only where copies run in issue order.
    bool can_start(Work work, uint64_t ticket, uint64_t oldest_waiting_copy = kNoWaitingCopy) const {
        if (!is_copy(work)) return !kernel_running_;
        if (copies_running_ >= copy_engines_) return false;
        if (copies_in_issue_order()) return ticket == oldest_waiting_copy;
        return running_[direction(work)] == 0;
    }
    void start(Work work) {
        if (is_copy(work))
            ++copies_running_, ++running_[direction(work)];
        else
            kernel_running_ = true;
    }
    void finish(Work work) {
        if (is_copy(work))
            --copies_running_, --running_[direction(work)];
        else
            kernel_running_ = false;
    }
    void reset() { copies_running_ = running_[0] = running_[1] = 0, kernel_running_ = false; }  // a cut

  private:
    static int direction(Work work) { return work == Work::h2d ? 0 : 1; }
    int copy_engines_;
    int copies_running_ = 0;
    int running_[2] = {0, 0};  // copies running, H2D and D2H
    bool kernel_running_ = false;
};

// The bytes per nanosecond a copy of `bytes` moves at alone: the calibration's curve for its direction
// and memory kind, `time_scale` times slower (slow motion). An empty copy still takes the fixed latency.
inline double solo_copy_rate(const Calibration& calibration, Work direction, HostMemory memory, double bytes,
                             double time_scale = 1) {
    const CopyDirection d = direction == Work::h2d ? CopyDirection::h2d : CopyDirection::d2h;
    const double seconds = calibration.curve(d, memory).seconds(bytes) * time_scale;
    return std::max(bytes, 1.0) / (seconds * 1e9);
}

// How fast the host writes memory, as the copies say it. A loader writes every byte it sends just before
// sending it (collating, pinning, staging), so the bytes H2D copies start with per second are the bytes the
// host's cores write per second, and the copy engine reads host memory through the memory controllers those
// writes go through: on an H100 host whose workers wrote 48 GB/s, 96 MiB copies ran at 49 GB/s against 55
// on the idle host (docs/h100-results.md). The load is the bytes copies start per ns, averaged exponentially
// over the last few milliseconds (so it costs nothing to keep). Read as a copy starts, the average without
// its bytes is the lowest it gets between two copies and with them the highest; halfway, with half of them,
// is the mean rate of copies started at a steady pace, so that is what a starting copy reads.
// D2H copies count in too where the calibration has no bidir_under_host_writes: the engine writes their
// bytes into host memory through the same controllers (with that curve, bidir_bytes_per_ns counts them).
// The probe's both-ways figure agrees: on an H200 host each direction kept 92% of its rate while the
// other ran (101.4 GB/s in all against 55.3 and 55.2 alone), where the same probe's curve gives 93% for
// 50 GB/s of the cores' writes. A loader sending 96 MiB each way (its workers writing ~42 GB/s, the D2H
// engine as much) moved its H2D copies at 42.5 GB/s on another H200 host; counting the workers' writes
// alone the simulated GPU said 48, counting the D2H's too 42.6 (docs/h100-results.md).
class HostWriteLoad {
  public:
    static constexpr double kWindowNs = 10e6;  // several batches of even the largest workloads
    // `window_ns`: slow motion stretches it with everything else.
    explicit HostWriteLoad(double window_ns = kWindowNs) : window_ns_(window_ns) {}

    // The load a copy of `bytes` starting at `now` moves under; then counts it in.
    double start(double now, double bytes) {
        const double before = at(now);
        rate_ = before + bytes / window_ns_;
        at_ = std::max(at_, now);
        return before + 0.5 * bytes / window_ns_;
    }
    // The load at `now`, nothing counted in.
    double at(double now) const { return rate_ * std::exp(-std::max(0.0, now - at_) / window_ns_); }

  private:
    double window_ns_;
    double rate_ = 0;  // bytes per ns as of at_
    double at_ = 0;
};

// The share of its idle rate an H2D copy of `bytes` starting at `now` keeps, by the calibration's
// h2d_under_host_writes at the load the copies make (HostWriteLoad::start).
// `time_scale`: in slow motion the host writes that many times slower than it really would.
inline double h2d_share_at_start(const Calibration& calibration, HostWriteLoad& load, double now,
                                 double bytes, double time_scale = 1) {
    return calibration.h2d_share_under_writes(load.start(now, bytes) * time_scale);
}

// The rate a copy starts at, at `now`. The engine moves a pageable copy's bytes at the pinned rate, from or
// into the driver's bounce buffers; to the device it has nothing to move until its caller has staged them
// (0 until then: staged_copy_rate). An H2D copy keeps the share the host's writes leave it.
inline double starting_copy_rate(const Calibration& calibration, Work direction, bool pageable, double bytes,
                                 HostWriteLoad& load, double now, double time_scale = 1) {
    if (pageable && direction == Work::h2d) return 0;
    const double rate = solo_copy_rate(calibration, direction, HostMemory::pinned, bytes, time_scale);
    if (direction == Work::h2d) return rate * h2d_share_at_start(calibration, load, now, bytes, time_scale);
    // A D2H copy writes host memory: it loads the H2D copies as the cores' writes do, unless the probe
    // measured both directions at once under the cores' writes (bidir_bytes_per_ns), which counts it.
    if (calibration.bidir_under_host_writes.empty()) load.start(now, bytes);
    return rate;
}

// What one H2D and one D2H moving bytes at once may move between them at `now` (bytes per ns): the
// calibration's both-ways total, at the share bidir_under_host_writes leaves it under the load the H2D
// copies make (the cores' writes; without that curve the total is not slowed, the D2H's writes slowing
// the H2D copies instead: starting_copy_rate).
inline double bidir_bytes_per_ns(const Calibration& calibration, const HostWriteLoad& load, double now,
                                 double time_scale = 1) {
    return calibration.bidir_total_gbps * calibration.bidir_share_under_writes(load.at(now) * time_scale) /
           time_scale;  // GB/s == bytes/ns
}

// A pageable copy, as sim_device.cpp's stage_pageable stages it. The caller copies the bytes through the
// driver's bounce buffers with its own memcpy; the engine moves each chunk as it is staged, so its span
// starts with the first chunk's DMA, and to the device only the last chunk is left when the staging ends.
inline double first_chunk_bytes(double bytes) {
    return std::min(bytes, static_cast<double>(PageableStaging::kChunkBytes));
}
inline double first_dma_start(double staging_start, double staging_end, double bytes) {
    return staging_start + (staging_end - staging_start) * first_chunk_bytes(bytes) / std::max(bytes, 1.0);
}
// The rate of the chunk a pageable H2D copy of `bytes` has left when its staging ends at `now`: the pinned
// rate of a chunk, at the share the host's writes leave it (the whole copy counts in the load).
inline double staged_copy_rate(const Calibration& calibration, double bytes, HostWriteLoad& load, double now,
                               double time_scale = 1) {
    return solo_copy_rate(calibration, Work::h2d, HostMemory::pinned, first_chunk_bytes(bytes), time_scale) *
           h2d_share_at_start(calibration, load, now, bytes, time_scale);
}
// The driver's cost of a pageable copy of `bytes` over the host's own staging memcpy, spent by the caller
// after its staging: to the device, what the probe measured at that size; to the host, the fixed cost of
// a pageable copy over a pinned one.
inline double pageable_extra_us(const Calibration& calibration, Work direction, double bytes) {
    if (direction == Work::h2d) return calibration.pageable_h2d_staging_extra_us(bytes);
    return std::max(0.0, calibration.pageable_copy_latency_us - calibration.copy_latency_us);
}
// The least the staging holds its caller: the calibrated pageable time of the bytes beyond the first
// chunk. The probe times buffers that are not in the cache, as a batch of many chunks is not; a batch of
// one chunk that a worker has just written stages faster than the probe's rate says.
inline double pageable_floor_seconds(const Calibration& calibration, Work direction, double bytes) {
    const double chunk = PageableStaging::kChunkBytes;
    if (bytes <= chunk) return 0;
    const CopyCurve& curve = calibration.curve(
        direction == Work::h2d ? CopyDirection::h2d : CopyDirection::d2h, HostMemory::pageable);
    return curve.seconds(bytes) - curve.seconds(chunk);
}

// The rate each copy that is moving bytes gets, given each one's direction and solo rate: its solo rate, and
// when both directions move bytes at once, both scaled to the bidirectional total if they would exceed it.
// (One copy per direction runs at a time: Engines.) `for_each_head` calls its argument with the op at the
// head of every stream that has one; an op has fields `running`, `remaining` (bytes), `solo_rate` and
// `rate`, and `is_kernel(op)` / `is_h2d(op)` say what it is. A copy whose bytes have all moved (a pageable
// one may still be staging) gets rate 0. `bidir_bytes_per_ns` is the calibration's both-directions total
// (GB/s is bytes/ns), slowed by the same time scale as the solo rates.
template <class ForEachHead, class IsKernel, class IsH2d>
void share_links(ForEachHead&& for_each_head, IsKernel&& is_kernel, IsH2d&& is_h2d,
                 double bidir_bytes_per_ns) {
    const auto for_each = [&](auto&& visit) {
        for_each_head([&](auto& op) {
            if (!op.running || is_kernel(op)) return;
            if (op.remaining <= 0)
                op.rate = 0;
            else
                visit(op);
        });
    };
    double demand[2] = {0, 0};
    for_each([&](const auto& copy) { demand[is_h2d(copy) ? 0 : 1] += copy.solo_rate; });
    const double granted = demand[0] + demand[1];
    const double shared =
        granted > bidir_bytes_per_ns && demand[0] > 0 && demand[1] > 0 ? bidir_bytes_per_ns / granted : 1.0;
    for_each([&](auto& copy) { copy.rate = copy.solo_rate * shared; });
}

}  // namespace pinscope::engine_rules
