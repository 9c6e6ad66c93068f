#include "core/model/model_gpu.h"

#include <algorithm>
#include <cmath>

namespace pinscope::model {

namespace {

engine_rules::Work work_of(OpKind kind) {
    using engine_rules::Work;
    return kind == OpKind::h2d ? Work::h2d : kind == OpKind::d2h ? Work::d2h : Work::kernel;
}

}  // namespace

ModelGpu::ModelGpu(const Calibration& calibration, int streams)
    : calibration_(calibration),
      streams_(static_cast<size_t>(std::max(1, streams))),
      engines_(calibration.copy_engines) {}

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
        uint64_t oldest_copy = engine_rules::kNoWaitingCopy;
        if (engines_.copies_in_issue_order())
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
            const engine_rules::Work work = work_of(op.kind);
            if (!engines_.can_start(work, op.ticket, oldest_copy)) continue;
            engines_.start(work);
            if (engine_rules::is_copy(work)) {
                op.remaining = op.bytes;
                op.solo_rate = engine_rules::starting_copy_rate(calibration_, work, op.staging, op.bytes,
                                                                host_writes_, now);
            }
            op.running = true;
            op.start = now;
            changed = any = true;
        }
    }
    return any;
}

void ModelGpu::update_rates(double now) {
    const auto for_each_head = [&](auto&& visit) {
        for (Stream& s : streams_)
            if (s.head < static_cast<int>(s.ops.size())) visit(s.ops[s.head]);
    };
    engine_rules::share_links(
        for_each_head, [](const GpuOp& op) { return op.kind == OpKind::kernel; },
        [](const GpuOp& op) { return op.kind == OpKind::h2d; },
        engine_rules::bidir_bytes_per_ns(calibration_, host_writes_, now));
}

double ModelGpu::next_completion(double now) const {
    double next = kNever;
    for (const Stream& s : streams_) {
        if (s.head >= static_cast<int>(s.ops.size()) || !s.ops[s.head].running) continue;
        const GpuOp& op = s.ops[s.head];
        if (op.kind == OpKind::kernel)
            next = std::min(next, op.start + op.duration);
        else if (op.staging && (op.remaining <= 0 || op.rate <= 0))
            continue;  // the host's staging says when
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

// The host has staged a pageable H2D copy from `from` to `to`: the engine has the last chunk left, and its
// span starts with the first chunk's DMA (engine_rules.h).
void ModelGpu::staged_to_device(OpRef ref, double from, double to) {
    GpuOp& op = this->op(ref);
    op.start = engine_rules::first_dma_start(from, to, op.bytes);
    op.remaining = engine_rules::first_chunk_bytes(op.bytes);
    op.solo_rate = engine_rules::staged_copy_rate(calibration_, op.bytes, host_writes_, to);
}

bool ModelGpu::finished(const GpuOp& op, double now) const {
    return op.kind == OpKind::kernel ? op.start + op.duration <= now + 0.5 : !op.staging && op.remaining <= 0;
}

void ModelGpu::retire(Stream& s, double now) {
    GpuOp& op = s.ops[s.head];
    op.end = now;
    if (op.kind == OpKind::d2h && !op.pinned && op.moved > 0) op.end = op.moved;
    engines_.finish(work_of(op.kind));
    op.running = false;
    ++s.head;
}

}  // namespace pinscope::model
