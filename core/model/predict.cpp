#include "core/model/predict.h"

#include <algorithm>
#include <cmath>

#include "core/model/batches_modelled.h"
#include "core/model/folder_sample_cost.h"
#include "core/model/pipeline_model.h"

namespace pinscope {
namespace {

using model::Interval;
using model::LoopState;
using model::ModelTrace;

// Where the steady state is counted: between two batch ends at the same point of the pipeline's rhythm.
// Workers that run in step finish their batches in bursts (one kernel after another, then a gap while they
// all build the next ones); counted from the middle of one burst to the end of another, a window holds half
// a burst more than its periods: 8 workers decoding 1,300 us a sample on 2 cores, batches of 8, were
// predicted at 1,755 samples/s, 14% over the 1,540 the two cores can decode. Each bound is the batch before
// the longest gap in its quarter of the modelled batches (the second and the last): a burst's end, or any
// batch where they come evenly. Indices into `ends`, which has at least 4.
struct SteadyBounds {
    size_t from, to;
};

// The batch i in [lo, hi) after which the longest gap to the next batch's end comes.
size_t before_longest_gap(const std::vector<double>& ends, size_t lo, size_t hi) {
    size_t best = lo;
    for (size_t i = lo; i < hi; ++i)
        if (ends[i + 1] - ends[i] >= ends[best + 1] - ends[best]) best = i;
    return best;
}

SteadyBounds steady_bounds(const std::vector<double>& ends) {
    const size_t n = ends.size();
    return {before_longest_gap(ends, n / 4, n / 2), before_longest_gap(ends, 3 * n / 4, n - 1)};
}

// Whether the steady window is past the start-up's transient: its two halves (split where a burst ends,
// near its middle) run at rates within kSettled of each other. Batches that queued up while fresh buffers
// faulted in can come out fast for a few rounds after the last first touch: 6 workers sleeping 620 us a
// sample in batches of 16 (all 6 take 11.6 ms a batch in the model) had their window start among them,
// at 618 batches a second where the steady state makes 524 and the workers' sleeps allow 605 at most
// (seed 2727's #23, predicted 45% over its run). 5%, half the predictor's bar, was chosen before trying it.
bool settled(const std::vector<double>& ends, SteadyBounds window) {
    constexpr double kSettled = 0.05;
    if (window.to < window.from + 4) return true;
    const size_t quarter = (window.to - window.from) / 4;
    const size_t mid = before_longest_gap(ends, window.from + quarter, window.to - quarter);
    const double first = static_cast<double>(mid - window.from) / (ends[mid] - ends[window.from]);
    const double second = static_cast<double>(window.to - mid) / (ends[window.to] - ends[mid]);
    return std::abs(first / second - 1) <= kSettled;
}

// Sorted by start and merged where they overlap.
std::vector<Interval> merged(std::vector<Interval> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> out;
    for (const Interval& s : spans) {
        if (!out.empty() && s.start <= out.back().end)
            out.back().end = std::max(out.back().end, s.end);
        else
            out.push_back(s);
    }
    return out;
}

double length(const std::vector<Interval>& set, double lo, double hi) {
    double total = 0;
    for (const Interval& s : set) total += std::max(0.0, std::min(s.end, hi) - std::max(s.start, lo));
    return total;
}

// |a ∩ b| within [lo, hi], for two merged sets.
double common_length(const std::vector<Interval>& a, const std::vector<Interval>& b, double lo, double hi) {
    double total = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const double start = std::max({a[i].start, b[j].start, lo});
        const double end = std::min({a[i].end, b[j].end, hi});
        if (end > start) total += end - start;
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return total;
}

// a \ b, for two merged sets: merged too.
std::vector<Interval> difference(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    std::vector<Interval> out;
    size_t j = 0;
    for (Interval piece : a) {
        while (j < b.size() && b[j].end <= piece.start) ++j;
        for (size_t k = j; k < b.size() && b[k].start < piece.end; ++k) {
            if (b[k].start > piece.start) out.push_back({piece.start, b[k].start});
            piece.start = std::max(piece.start, b[k].end);
        }
        if (piece.end > piece.start) out.push_back(piece);
    }
    return out;
}

std::vector<Interval> joined(std::vector<Interval> a, const std::vector<Interval>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return merged(std::move(a));
}

// What a stretch of model time holds: the numerators of the metrics.
struct Amounts {
    double window = 0, batches = 0;
    double kernel = 0, h2d = 0, d2h = 0, copy = 0, copy_under_kernel = 0;
    double loader_idle = 0, staging_idle = 0, copies_idle = 0, sync_idle = 0;
    double h2d_bytes = 0, d2h_bytes = 0;

    Amounts& add(const Amounts& o, double k) {
        window += k * o.window, batches += k * o.batches;
        kernel += k * o.kernel, h2d += k * o.h2d, d2h += k * o.d2h, copy += k * o.copy;
        copy_under_kernel += k * o.copy_under_kernel;
        loader_idle += k * o.loader_idle, staging_idle += k * o.staging_idle, sync_idle += k * o.sync_idle;
        copies_idle += k * o.copies_idle;
        h2d_bytes += k * o.h2d_bytes, d2h_bytes += k * o.d2h_bytes;
        return *this;
    }
};

class TraceMeasure {
  public:
    explicit TraceMeasure(const ModelTrace& trace) : trace_(trace) {
        kernels_ = merged(trace.kernels);
        h2d_ = merged(trace.h2d);
        d2h_ = merged(trace.d2h);
        std::vector<Interval> copies = trace.h2d;
        copies.insert(copies.end(), trace.d2h.begin(), trace.d2h.end());
        copies_ = merged(std::move(copies));
        for (const model::LoopSpan& span : trace.loop)
            loop_[static_cast<int>(span.state)].push_back(span.time);
        // As Metrics splits the idle time (metrics.h): the loader, then staging, then copies running,
        // then the train loop's other waits on the GPU.
        const auto& loader = loop_[static_cast<int>(LoopState::loader)];
        const auto& staging = loop_[static_cast<int>(LoopState::staging)];
        waiting_for_copies_ = difference(copies_, joined(joined(kernels_, loader), staging));
        other_sync_ = difference(merged(loop_[static_cast<int>(LoopState::sync)]), joined(kernels_, copies_));
    }

    Amounts in(double lo, double hi) const {
        Amounts a;
        a.window = std::max(0.0, hi - lo);
        for (double end : trace_.batch_ends) a.batches += end > lo && end <= hi;
        a.kernel = length(kernels_, lo, hi);
        a.h2d = length(h2d_, lo, hi);
        a.d2h = length(d2h_, lo, hi);
        a.copy = length(copies_, lo, hi);
        a.copy_under_kernel = common_length(copies_, kernels_, lo, hi);
        // Train-loop spans never overlap one another, so each cause is its spans less the kernel time.
        double* idle[] = {&a.loader_idle, &a.staging_idle};
        for (int s = 0; s < 2; ++s)
            *idle[s] = length(loop_[s], lo, hi) - common_length(loop_[s], kernels_, lo, hi);
        a.copies_idle = length(waiting_for_copies_, lo, hi);
        a.sync_idle = length(other_sync_, lo, hi);
        for (size_t i = 0; i < trace_.h2d.size(); ++i)
            if (trace_.h2d[i].end > lo && trace_.h2d[i].end <= hi) a.h2d_bytes += trace_.h2d_bytes[i];
        for (size_t i = 0; i < trace_.d2h.size(); ++i)
            if (trace_.d2h[i].end > lo && trace_.d2h[i].end <= hi) a.d2h_bytes += trace_.d2h_bytes[i];
        return a;
    }

  private:
    const ModelTrace& trace_;
    std::vector<Interval> kernels_, h2d_, d2h_, copies_;
    std::vector<Interval> loop_[3];
    std::vector<Interval> waiting_for_copies_, other_sync_;  // GPU idle: copies running; other syncs
};

Metrics metrics_of(const Amounts& a, const PipelineConfig& config) {
    Metrics m;
    const double seconds = a.window * 1e-9;
    m.seconds = seconds;
    m.batches = static_cast<int64_t>(a.batches + 0.5);
    m.samples = m.batches * config.batch_size;
    if (seconds <= 0) return m;
    m.batches_per_s = a.batches / seconds;
    m.samples_per_s = m.batches_per_s * config.batch_size;
    m.h2d_bytes = static_cast<uint64_t>(a.h2d_bytes);
    m.d2h_bytes = static_cast<uint64_t>(a.d2h_bytes);
    m.h2d_gbps = a.h2d > 0 ? a.h2d_bytes / a.h2d : 0;  // bytes/ns == GB/s
    m.d2h_gbps = a.d2h > 0 ? a.d2h_bytes / a.d2h : 0;
    m.h2d_sustained_gbps = a.h2d_bytes / a.window;
    m.d2h_sustained_gbps = a.d2h_bytes / a.window;
    m.gpu_busy = a.kernel / a.window;
    m.h2d_busy = a.h2d / a.window;
    m.d2h_busy = a.d2h / a.window;
    m.copy_busy = a.copy / a.window;
    m.overlap = a.kernel > 0 ? a.copy_under_kernel / a.kernel : 0;
    m.gpu_idle = 1 - m.gpu_busy;
    m.idle.loader = a.loader_idle / a.window;
    m.idle.staging = a.staging_idle / a.window;
    m.idle.copies = a.copies_idle / a.window;
    m.idle.sync = a.sync_idle / a.window;
    m.idle.other = std::max(0.0, m.gpu_idle - m.idle.loader - m.idle.staging - m.idle.copies - m.idle.sync);
    m.stall = m.idle.loader;
    m.outstanding_max = config.max_outstanding();
    m.pageable_h2d_fraction = config.pin_memory ? 0 : 1;
    return m;
}

}  // namespace

Calibration calibration_for(const PipelineConfig& config) {
    Calibration calibration =
        config.calibration.empty() ? builtin_calibration() : load_calibration(config.calibration);
    if (config.copy_engines > 0) calibration.copy_engines = config.copy_engines;
    return calibration;
}

Metrics predict(const PipelineConfig& given, const Calibration& calibration, const HostRates& host) {
    // data_on_gpu has no loader: its workers, queue and pin copy mean nothing, and the model runs none.
    PipelineConfig config = given;
    if (config.data_on_gpu) {
        config.num_workers = 0;
        config.prefetch_factor.reset();
        config.pin_mode = PinMode::direct;  // nothing is loaded, so nothing is copied into pinned memory
    }
    // A run lasts `seconds` of the clock; in slow motion that is fewer seconds of the real pipeline.
    const double seconds = config.seconds > 0 ? config.seconds / config.slow_motion : 0;
    // Ended by the model's batch cap, not by the run's bounds: the later batches are taken as the steady
    // state and stretched to fill the run's seconds. It runs over whole periods of the batches' rhythm
    // (steady_bounds), and it must start after the last batch that paid a fresh buffer's first touch: out
    // of order, two workers with warm buffers took turns for 32 batches while two others faulted theirs in
    // (4 workers, 48 MiB batches: half the in-order prediction, where the simulated GPU ran out of order as
    // fast or faster); and its two halves must run at one rate (settled). So the model runs more batches,
    // up to kMaxBatchesModelled, until both hold.
    const bool bounded = config.batches == 0 && seconds > 0;
    int64_t cap = config.batches > 0 ? config.batches : model::batches_to_model(config);
    ModelTrace trace = model::run_model(config, calibration, host, cap, seconds);
    const auto capped = [&] {
        return bounded && trace.stopped < seconds * 1e9 && trace.batch_ends.size() >= 4;
    };
    const auto in_steady_state = [&] {
        const SteadyBounds window = steady_bounds(trace.batch_ends);
        return trace.batch_ends[window.from] >= trace.warm_from && settled(trace.batch_ends, window);
    };
    while (capped() && !in_steady_state()) {
        const int64_t more = model::more_batches_to_model(cap, config);
        if (more == cap) break;
        cap = more;
        trace = model::run_model(config, calibration, host, cap, seconds);
    }
    if (trace.first_h2d < 0 || trace.end <= trace.first_h2d) return metrics_of({}, config);

    const TraceMeasure measure(trace);
    const double start = trace.first_h2d;
    if (!capped()) return metrics_of(measure.in(start, trace.end), config);
    const SteadyBounds bounds = steady_bounds(trace.batch_ends);
    const double from = trace.batch_ends[bounds.from], to = trace.batch_ends[bounds.to];
    const Amounts head = measure.in(start, from), steady = measure.in(from, to),
                  tail = measure.in(to, trace.end);
    const double target = seconds * 1e9 - start;
    const double stretch =
        steady.window > 0 ? std::max(1.0, (target - head.window - tail.window) / steady.window) : 1.0;
    Amounts total;
    total.add(head, 1).add(steady, stretch).add(tail, 1);
    return metrics_of(total, config);
}

namespace {

Metrics predict_on(const PipelineConfig& config, const HostRates& host) {
    // An image folder's samples cost what decoding its files costs here: measured, then modelled as CPU work.
    return predict(with_measured_sample_cost(config), calibration_for(config), host);
}

}  // namespace

Metrics predict(const PipelineConfig& config) {
    return predict_on(config, this_host_rates());
}

std::optional<Metrics> predict_if_modelled(const PipelineConfig& config) {
    // Not modelled: no need to measure the host (this_host_rates()) to say so.
    if (config.device == DeviceChoice::cuda || config.naive_benchmark) return std::nullopt;
    return predict_if_modelled(config, this_host_rates());
}

std::optional<Metrics> predict_if_modelled(const PipelineConfig& config, const HostRates& host) {
    // A naive benchmark is one cold copy, not a pipeline with a steady state.
    if (config.device == DeviceChoice::cuda || config.naive_benchmark) return std::nullopt;
    try {
        return predict_on(config, host);
    } catch (const CalibrationError&) {
        return std::nullopt;
    } catch (const std::invalid_argument&) {  // an image folder that cannot be used: the run says why
        return std::nullopt;
    }
}

std::optional<double> predicted_samples_per_s(const PipelineConfig& config) {
    const std::optional<Metrics> predicted = predict_if_modelled(config);
    return predicted ? std::optional(predicted->samples_per_s) : std::nullopt;
}

}  // namespace pinscope
