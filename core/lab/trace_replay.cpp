#include "core/lab/trace_replay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/analysis/intervals.h"
#include "core/analysis/profiler_steps.h"
#include "core/device/median.h"
#include "core/io/kineto/loader_side_files.h"

namespace pinscope {

namespace {

// A shape of `elements` float32 values: 3xSxS when that is within 1% (an image), else 1xHxW exactly.
SampleShape shape_of(int64_t elements) {
    elements = std::max<int64_t>(elements, 1);
    const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(elements) / 3)));
    if (side > 0 && std::llabs(3 * side * side - elements) <= elements / 100)
        return SampleShape{{3, side, side}};
    int64_t h = static_cast<int64_t>(std::sqrt(static_cast<double>(elements)));
    while (h > 1 && elements % h != 0) --h;
    return SampleShape{{1, h, elements / h}};
}

bool is_copy_call(std::string_view name) {
    return name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy");
}

}  // namespace

TraceModel model_of_trace(const Capture& capture) {
    const TraceStore& store = capture.store;
    const ProfilerSteps steps = profiler_steps(store);
    if (steps.steps.empty())
        throw std::invalid_argument(
            "it has no profiler steps (ProfilerStep#N) to model: record it with "
            "torch.profiler's schedule and prof.step()");
    TraceModel model;
    PipelineConfig& c = model.config;
    model.steps = static_cast<int>(steps.steps.size());
    model.steps_per_s = steps.steps_per_s;
    const auto note = [&](std::string key, std::string value, std::string from) {
        model.knobs.push_back({std::move(key), std::move(value), std::move(from)});
    };

    // The DataLoader's settings: the side files say them; without them, what the copies show.
    const nlohmann::json& loader = capture.info.loader;
    const auto setting = [&](const char* key) -> const nlohmann::json* {
        if (!loader.is_object()) return nullptr;
        const auto at = loader.find(key);
        return at == loader.end() || at->is_null() ? nullptr : &*at;
    };
    c.batch_size = capture.info.samples_per_batch > 0 ? capture.info.samples_per_batch : 1;
    note("batch_size", std::to_string(c.batch_size),
         capture.info.samples_per_batch > 0
             ? "the loader's side files"
             : "not in the trace (no side files): a batch is modelled as one sample");
    if (const nlohmann::json* workers = setting("num_workers"); workers && workers->is_number_integer()) {
        c.num_workers = std::clamp(workers->get<int>(), 0, 256);
        note("num_workers", std::to_string(c.num_workers), "the loader's side files");
    } else {
        note("num_workers", std::to_string(c.num_workers),
             "not in the trace (no side files): pinscope's default");
    }
    if (const nlohmann::json* prefetch = setting("prefetch_factor");
        prefetch && prefetch->is_number_integer() && c.num_workers > 0) {
        c.prefetch_factor = std::clamp(prefetch->get<int>(), 1, 64);
        note("prefetch_factor", std::to_string(*c.prefetch_factor), "the loader's side files");
    }

    // Copies: bytes and memory per batch, and whether the calls returned before their copies ended.
    std::map<int64_t, uint64_t> h2d_bytes_of_batch;
    uint64_t pinned_bytes = 0, pageable_bytes = 0;
    std::map<std::pair<LaneId, TimeNs>, const Span*> h2d_at;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& span : store.spans(lane.id)) {
            if (span.kind != SpanKind::h2d) continue;
            if (span.batch != kNoBatch) h2d_bytes_of_batch[span.batch] += span.bytes;
            (span.memory == HostMemory::pinned ? pinned_bytes : pageable_bytes) += span.bytes;
            h2d_at[{lane.id, span.start}] = &span;
        }
    std::vector<double> per_batch;
    for (const auto& [batch, bytes] : h2d_bytes_of_batch) per_batch.push_back(static_cast<double>(bytes));
    const double batch_bytes = per_batch.empty() ? 0 : median(per_batch);
    if (batch_bytes > 0) {
        c.sample_shape = shape_of(static_cast<int64_t>(batch_bytes / 4 / c.batch_size));
        note("sample_shape", c.sample_shape.to_string(),
             fmt::format("{:.0f} bytes copied in per batch (median of {}), as float32 samples", batch_bytes,
                         per_batch.size()));
    } else {
        note("sample_shape", c.sample_shape.to_string(),
             "no H2D copies with a batch in the trace: pinscope's default");
    }
    c.pin_memory = pinned_bytes > pageable_bytes;
    note("pin_memory", c.pin_memory ? "true" : "false",
         fmt::format("the H2D copies: {:.0f}% of their bytes from pinned memory",
                     100.0 * static_cast<double>(pinned_bytes) /
                         std::max<double>(1, double(pinned_bytes + pageable_bytes))));
    int returned_early = 0, waited = 0;
    for (const Flow& flow : store.flows()) {
        const auto copy = h2d_at.find({flow.to_lane, flow.to_start});
        if (copy == h2d_at.end() || copy->second->memory != HostMemory::pinned) continue;
        for (const Span& call : store.spans(flow.from_lane))
            if (call.start == flow.from_start && is_copy_call(store.name(call.name))) {
                (call.end < copy->second->end ? returned_early : waited) += 1;
                break;
            }
    }
    c.non_blocking = returned_early >= waited;
    note("non_blocking", c.non_blocking ? "true" : "false",
         returned_early + waited > 0
             ? fmt::format("{} of {} pinned copy calls returned before their copy ended", returned_early,
                           returned_early + waited)
             : "no pinned copies: pinscope's default");

    // Per sample: the workers' fetches (the train loop's with num_workers=0).
    std::vector<double> fetch_us;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& span : store.spans(lane.id))
            if (store.category_name(span.kind) == kSampleCategory)
                fetch_us.push_back(static_cast<double>(span.duration()) / 1e3);
    if (!fetch_us.empty()) {
        c.decode_us = std::round(median(fetch_us));
        note("decode_us", fmt::format("{:.0f}", c.decode_us),
             fmt::format("median of {} samples' fetch on the loader's lanes", fetch_us.size()));
    } else {
        c.decode_us = 0;
        note("decode_us", "0", "no fetches in the trace (no side files): loading is not modelled");
    }
    c.io_us = 0;

    // Per step: kernel time (the compute engine's union), results copied out, the train loop's own time.
    std::vector<double> kernel_us, d2h_bytes, host_us;
    for (const ProfilerStep& step : steps.steps) {
        const Interval in_step{step.start, step.end};
        IntervalList kernels, blocked;
        double d2h = 0;
        for (const LaneInfo& lane : store.lanes())
            for (const Span& span : store.spans_touching(lane.id, in_step)) {
                if (span.start >= step.end) break;
                if (span.kind == SpanKind::kernel)
                    kernels.push_back({std::max(span.start, step.start), std::min(span.end, step.end)});
                if (span.kind == SpanKind::d2h && span.end > step.start && span.end <= step.end)
                    d2h += static_cast<double>(span.bytes);
                // The train loop's time that pinscope's own loop models: waiting for data, for the GPU,
                // and in the copy calls (staging pageable copies).
                if (lane.role == LaneRole::main &&
                    (span.kind == SpanKind::wait || span.kind == SpanKind::sync ||
                     span.kind == SpanKind::fetch || span.kind == SpanKind::pin ||
                     is_copy_call(store.name(span.name))))
                    blocked.push_back({std::max(span.start, step.start), std::min(span.end, step.end)});
            }
        const auto union_us = [&](IntervalList list) {
            return list.empty()
                       ? 0.0
                       : static_cast<double>(total_length(normalized(std::move(list), in_step))) / 1e3;
        };
        kernel_us.push_back(union_us(kernels));
        d2h_bytes.push_back(d2h);
        host_us.push_back(
            std::max(0.0, static_cast<double>(step.end - step.start) / 1e3 - union_us(blocked)));
    }
    c.kernel_us = std::round(median(kernel_us));
    note("kernel_us", fmt::format("{:.0f}", c.kernel_us),
         fmt::format("median over {} steps of the time kernels ran", steps.steps.size()));
    c.d2h_bytes = static_cast<int64_t>(median(d2h_bytes));
    note("d2h_bytes", std::to_string(c.d2h_bytes), "median per step of the D2H copies' bytes");
    c.step_host_us = std::round(median(host_us));
    note("step_host_us", fmt::format("{:.0f}", c.step_host_us),
         "median per step of the train loop's time outside waits for data, for the GPU and copy calls");
    // PyTorch runs a train loop's work on one stream, in one piece.
    c.streams = 1;
    c.chunks = 1;
    note("streams", "1", "PyTorch's default stream");
    return model;
}

}  // namespace pinscope
