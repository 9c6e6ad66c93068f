#pragma once
// The advisor: reads a window of a trace, its metrics and its config, and says first whether the run
// is input-bound (a verdict in the manner of TensorFlow's Input Pipeline Analyzer), then what is wrong,
// each finding with its evidence (spans to zoom to), what it costs, and a fix (knob changes) that one
// click applies to the running pipeline. `pinscope run --advise`, `pinscope advise FILE` and the app's
// Advisor window all show this.
//
// The verdict. "Waiting for data" is the time the GPU's compute engine idles while the train loop is
// (a) waiting for the loader (or loading inline with num_workers=0): Metrics::idle.loader, or
// (b) staging a pageable copy through the driver's bounce buffer: Metrics::idle.staging.
// Both are the input pipeline's time: the batch is not on the GPU yet because the host has not finished
// delivering it, and both disappear with input-side knobs (workers, prefetch, pinning). A synchronous
// wait for the GPU (idle.sync) is not: there the host waits on the device, not the device on the input.
// As TensorFlow's analyzer does, a run whose input_share is at least 20% is HIGHLY input-bound, from 5%
// MODERATELY, else not input-bound.
//
// Unless the link is the larger cause: the GPU waiting for copies still crossing it (Metrics::idle.copies,
// the transfer_share) at least 5% of the time and more than it waits for the input makes the run
// TRANSFER-bound, the verdict naming the link's busy share and GB/s against its peak. The verdict names the
// largest cause; the findings list every cause that costs 5% or more, the smaller one included.
//
// Thresholds, the same for every rule:
// - A finding about time must cost at least kWorthFixing (5%) of the window: the verdict's own
//   MODERATELY line. A cause smaller than that could not change the verdict, and is of the order of the
//   run-to-run noise of these shares on a busy machine.
// - A host thread (the pin thread) is saturated when it is busy at least kSaturated (80%) of the window:
//   a stage that busy has no slack left to absorb a slow batch, so the queue before it grows and the
//   GPU waits on it (the usual utilization rule for bottlenecks in a pipeline of queues).
// Rules whose cost is memory rather than time (prefetch-too-deep, pinned-over-budget) state their cost
// as a share of the pinned memory held; see each rule.
//
// Rule ids follow NVIDIA Nsight Systems' expert rules where they overlap (cuda_memcpy_async with
// pageable memory, cuda_memcpy_sync, gpu_starvation). Every fix is a set of knob changes by config key
// ({"num_workers": 4}) that, applied to the config, still passes validate(); a finding that no knob can
// fix has an empty fix and says so in fix_text.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/metrics.h"
#include "core/config/pipeline_config.h"
#include "core/trace/trace_store.h"

namespace pinscope {

inline constexpr double kHighlyInputBound = 0.20;  // TensorFlow's Input Pipeline Analyzer's lines
inline constexpr double kModeratelyInputBound = 0.05;
inline constexpr double kWorthFixing = kModeratelyInputBound;
inline constexpr double kSaturated = 0.80;
// A copy engine busy at least half the window: the link, not the GPU's compute, sets the pace.
inline constexpr double kLinkBusy = 0.50;
inline constexpr size_t kMaxEvidence = 5;

enum class Verdict { not_input_bound, moderately, highly, transfer_bound };
// "not", "moderately", "highly", "transfer": what the JSON says.
std::string_view verdict_key(Verdict verdict);

// Where to look: a stretch of one lane (a click zooms the timeline to [start, end] and highlights the
// lane), and the batch it belongs to (kNoBatch when none).
struct SpanRef {
    LaneId lane = kNoLane;
    TimeNs start = 0, end = 0;
    int64_t batch = kNoBatch;
};

// Which way a fix should move the metric it names.
enum class Direction { fall, rise };
std::string_view direction_key(Direction direction);  // "fall", "rise"

struct Finding {
    std::string rule_id;      // "pageable-async-memcpy", "gpu-starvation", ...
    std::string title;        // one line: "Pageable memory in asynchronous copies"
    std::string explanation;  // why, in plain words, with the measured numbers
    // Share of the window's time it costs (GPU idle it explains), in [0, 1]; for the memory rules the
    // share of the pinned memory held that it accounts for.
    double cost = 0;
    std::vector<SpanRef> evidence;                  // at most kMaxEvidence, the most telling first
    nlohmann::json fix = nlohmann::json::object();  // knob changes by config key; {} when none helps
    std::string fix_text;                           // the fix in words: "Set pin_memory=true: ..."
    // A key of `run --json` (metrics_json), dotted for nested ones ("idle.pageable_staging",
    // "latency.fetch.p50_us"), and the way the fix should move it.
    std::string metric;
    Direction should = Direction::fall;
};

struct Advice {
    Verdict verdict = Verdict::not_input_bound;
    double input_share = 0;         // idle.loader + idle.staging: the share of the window waiting for data
    double transfer_share = 0;      // idle.copies: the share waiting for copies still on the link
    std::string verdict_line;       // "HIGHLY input-bound: the GPU waited for data 34% of the time (...)"
    std::vector<Finding> findings;  // most costly first
};

struct AdviceContext {
    MetricsWindow window;  // where `metrics` were measured (both 0: the whole store)
    unsigned cores = 0;    // the host's cores; 0: std::thread::hardware_concurrency()
    // Page-locked memory the run may hold, in bytes; 0 skips the pinned-over-budget rule.
    int64_t pinned_budget_bytes = 0;
    // The link's practical peak (DeviceInfo::h2d_peak_gbps) that copy rates are measured against; 0:
    // not known.
    double link_peak_gbps = 0;
};

// `metrics` must have been computed from `store` over ctx.window with config.batch_size.
Advice advise(const TraceStore& store, const Metrics& metrics, const PipelineConfig& config,
              const AdviceContext& ctx = {});

// `config` with a finding's fix applied (knob by knob, through the knob table).
PipelineConfig with_fix(const PipelineConfig& config, const nlohmann::json& fix);

}  // namespace pinscope
