#include "core/model/model_gpu.h"

#include <algorithm>
#include <cmath>

namespace pinscope::model {

ModelGpu::ModelGpu(const Calibration& calibration, int streams)
    : calibration_(calibration), streams_(static_cast<size_t>(std::max(1, streams))) {}

OpRef ModelGpu::enqueue(int stream, GpuOp op) {
    op.ticket = next_ticket_++;
    Stream& s = streams_[stream];
    s.ops.push_back(op);
    return OpRef{stream, static_cast<int>(s.ops.size()) - 1};
}

bool ModelGpu::started(OpRef ref) const {
    const Stream& s = streams_[ref.stream];
    return s.head > ref.index || (s.head == ref.index && s.ops[ref.index].running);
}

bool ModelGpu::start_ready(double now) {
    bool any = false;
    for (bool changed = true; changed;) {
        changed = false;
        // The oldest copy not started, for one engine's strict order.
        uint64_t oldest_copy = UINT64_MAX;
        if (calibration_.copy_engines == 1)
            for (const Stream& s : streams_)
                for (int i = s.head; i < static_cast<int>(s.ops.size()); ++i)
                    if (s.ops[i].kind != OpKind::kernel && !s.ops[i].running) {
                        oldest_copy = std::min(oldest_copy, s.ops[i].ticket);
                        break;
                    }
        // Engines go to ready work in issue order, across streams.
        Stream* best = nullptr;
        uint64_t after = 0;
        for (;;) {
            best = nullptr;
            for (Stream& s : streams_)
                if (s.head < static_cast<int>(s.ops.size()) && !s.ops[s.head].running &&
                    s.ops[s.head].ticket > after &&
                    (!best || s.ops[s.head].ticket < best->ops[best->head].ticket))
                    best = &s;
            if (!best) break;
            GpuOp& op = best->ops[best->head];
            after = op.ticket;
            if (op.kind == OpKind::kernel) {
                if (kernel_running_) continue;
                kernel_running_ = true;
            } else {
                if (copies_running_ >= calibration_.copy_engines) continue;
                if (calibration_.copy_engines == 1 && op.ticket != oldest_copy) continue;
                ++copies_running_;
                op.remaining = op.bytes;
                const CopyDirection direction =
                    op.kind == OpKind::h2d ? CopyDirection::h2d : CopyDirection::d2h;
                const double seconds =
                    calibration_.curve(direction, op.pinned ? HostMemory::pinned : HostMemory::pageable)
                        .seconds(op.bytes);
                op.solo_rate = std::max(op.bytes, 1.0) / (seconds * 1e9);
            }
            op.running = true;
            op.start = now;
            changed = any = true;
        }
    }
    return any;
}

void ModelGpu::update_rates() {
    double demand[2] = {0, 0}, capacity[2] = {0, 0};
    for (Stream& s : streams_) {
        if (s.head >= static_cast<int>(s.ops.size())) continue;
        GpuOp& op = s.ops[s.head];
        if (!op.running || op.kind == OpKind::kernel) continue;
        op.rate = 0;
        if (op.remaining <= 0) continue;
        const int d = op.kind == OpKind::h2d ? 0 : 1;
        demand[d] += op.solo_rate;
        capacity[d] = std::max(capacity[d], op.solo_rate);
    }
    double scale[2], granted = 0;
    for (int d = 0; d < 2; ++d) {
        scale[d] = demand[d] > capacity[d] ? capacity[d] / demand[d] : 1.0;
        granted += demand[d] * scale[d];
    }
    const double bidir = calibration_.bidir_total_gbps;
    const double shared = granted > bidir && demand[0] > 0 && demand[1] > 0 ? bidir / granted : 1.0;
    for (Stream& s : streams_) {
        if (s.head >= static_cast<int>(s.ops.size())) continue;
        GpuOp& op = s.ops[s.head];
        if (op.running && op.kind != OpKind::kernel && op.remaining > 0)
            op.rate = op.solo_rate * scale[op.kind == OpKind::h2d ? 0 : 1] * shared;
    }
}

double ModelGpu::next_completion(double now) const {
    double next = kNever;
    for (const Stream& s : streams_) {
        if (s.head >= static_cast<int>(s.ops.size()) || !s.ops[s.head].running) continue;
        const GpuOp& op = s.ops[s.head];
        if (op.kind == OpKind::kernel)
            next = std::min(next, op.start + op.duration);
        else if (op.remaining > 0)
            next = std::min(next, now + op.remaining / op.rate);
        else if (!op.staging)
            next = std::min(next, now);
    }
    return next;
}

void ModelGpu::advance(double from, double to) {
    const double dt = to - from;
    if (dt <= 0) return;
    for (Stream& s : streams_) {
        if (s.head >= static_cast<int>(s.ops.size())) continue;
        GpuOp& op = s.ops[s.head];
        if (!op.running || op.kind == OpKind::kernel || op.remaining <= 0) continue;
        op.remaining -= op.rate * dt;
        if (op.remaining <= op.rate * 0.5) {
            op.remaining = 0;
            op.moved = to;
        }
    }
}

bool ModelGpu::finished(const GpuOp& op, double now) const {
    return op.kind == OpKind::kernel ? op.start + op.duration <= now + 0.5 : !op.staging && op.remaining <= 0;
}

void ModelGpu::retire(Stream& s, double now) {
    GpuOp& op = s.ops[s.head];
    op.end = now;
    if (op.kind == OpKind::d2h && !op.pinned && op.moved > 0) op.end = op.moved;
    if (op.kind == OpKind::kernel)
        kernel_running_ = false;
    else
        --copies_running_;
    op.running = false;
    ++s.head;
}

}  // namespace pinscope::model
