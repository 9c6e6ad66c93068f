#include "core/config/validate.h"

#include <fmt/format.h>
#include <cmath>

namespace pinscope {
namespace {

// Upper bounds keep a typo (an extra zero) from eating the machine; each is generous for real use.
constexpr int kMaxWorkers = 256;
constexpr int kMaxPrefetchFactor = 64;
constexpr int kMaxBatchSize = 1 << 16;
constexpr int64_t kMaxBatchBytes = 4LL << 30;  // 4 GiB of float32 per batch
constexpr double kMaxSampleUs = 1e6;
constexpr double kMaxKernelUs = 10e6;
constexpr int64_t kMaxD2hBytes = 1LL << 30;
constexpr int kMaxStreams = 16;
constexpr int kMaxChunks = 64;

std::string number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<int64_t>(v));
    return fmt::format("{}", v);
}

class Checker {
  public:
    void error(std::string option, std::string value, std::string message) {
        result.errors.push_back({std::move(option), std::move(value), std::move(message)});
    }
    void warning(std::string option, std::string value, std::string message) {
        result.warnings.push_back({std::move(option), std::move(value), std::move(message)});
    }
    // A per-sample or per-batch time in microseconds: finite, non-negative, not absurd.
    void microseconds(const char* option, double value, double max) {
        if (!std::isfinite(value) || value < 0)
            error(option, number(value),
                  fmt::format("{} should be a non-negative number of microseconds; use 0 for none.", option));
        else if (value > max)
            error(option, number(value),
                  fmt::format("{} should be at most {} microseconds; use a smaller value.", option,
                              number(max)));
    }
    Validation result;
};

}  // namespace

Validation validate(const PipelineConfig& c, unsigned host_cores) {
    Checker check;

    // DataLoader rules, in PyTorch's words where PyTorch has them.
    if (c.num_workers < 0)
        check.error(
            "num_workers", std::to_string(c.num_workers),
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
    else if (c.num_workers > kMaxWorkers)
        check.error("num_workers", std::to_string(c.num_workers),
                    fmt::format("num_workers should be at most {}; use fewer workers.", kMaxWorkers));
    else if (host_cores > 0 && static_cast<unsigned>(c.num_workers) > host_cores)
        check.warning(
            "num_workers", std::to_string(c.num_workers),
            fmt::format(
                "This DataLoader will create {} worker threads in total. The suggested max number "
                "of workers on this system is {}; workers beyond the core count only help with io_us.",
                c.num_workers, host_cores));

    if (c.prefetch_factor) {
        const int pf = *c.prefetch_factor;
        if (c.num_workers == 0)
            check.error(
                "prefetch_factor", std::to_string(pf),
                "prefetch_factor option could only be specified in multiprocessing. let num_workers > 0 to "
                "enable multiprocessing, otherwise leave prefetch_factor unset.");
        else if (pf < 1)
            check.error("prefetch_factor", std::to_string(pf),
                        "prefetch_factor option should be at least 1; leave it unset for the default of 2.");
        else if (pf > kMaxPrefetchFactor)
            check.error("prefetch_factor", std::to_string(pf),
                        fmt::format("prefetch_factor should be at most {}; use a smaller value.",
                                    kMaxPrefetchFactor));
    }

    if (c.batch_size <= 0)
        check.error(
            "batch_size", std::to_string(c.batch_size),
            fmt::format(
                "batch_size should be a positive integer value, but got batch_size={}; use 1 or more.",
                c.batch_size));
    else if (c.batch_size > kMaxBatchSize)
        check.error("batch_size", std::to_string(c.batch_size),
                    fmt::format("batch_size should be at most {}; use a smaller batch.", kMaxBatchSize));

    // Workload.
    bool shape_ok = !c.sample_shape.dims.empty() && c.sample_shape.dims.size() <= 4;
    for (int64_t d : c.sample_shape.dims) shape_ok = shape_ok && d >= 1 && d <= (1 << 20);
    if (!shape_ok)
        check.error("sample_shape", c.sample_shape.to_string(),
                    "sample_shape should be 1 to 4 positive sizes joined by 'x', e.g. 3x224x224.");
    else if (c.batch_size > 0 && c.sample_shape.elements() > kMaxBatchBytes / 4 / c.batch_size)
        check.error(
            "sample_shape", c.sample_shape.to_string(),
            fmt::format(
                "a batch of {} samples of {} would exceed {} GiB of float32; use a smaller shape or batch.",
                c.batch_size, c.sample_shape.to_string(), kMaxBatchBytes >> 30));

    check.microseconds("decode_us", c.decode_us, kMaxSampleUs);
    check.microseconds("io_us", c.io_us, kMaxSampleUs);
    check.microseconds("kernel_us", c.kernel_us, kMaxKernelUs);
    if (c.d2h_bytes < 0 || c.d2h_bytes > kMaxD2hBytes)
        check.error("d2h_bytes", std::to_string(c.d2h_bytes),
                    fmt::format("d2h_bytes should be between 0 and {} (1 GiB); use 0 for no result copy.",
                                kMaxD2hBytes));
    if (c.fail_at_sample < -1)
        check.error("fail_at_sample", std::to_string(c.fail_at_sample),
                    "fail_at_sample should be a sample index, or -1 for no failure.");

    // GPU side.
    if (c.streams < 1 || c.streams > kMaxStreams)
        check.error("streams", std::to_string(c.streams),
                    fmt::format("streams should be between 1 and {}; use 1 for PyTorch's default stream.",
                                kMaxStreams));
    if (c.chunks < 1 || c.chunks > kMaxChunks)
        check.error(
            "chunks", std::to_string(c.chunks),
            fmt::format("chunks should be between 1 and {}; use 1 to copy each batch whole.", kMaxChunks));
    else if (shape_ok && c.batch_size > 0 && c.batch_bytes() < c.chunks)
        check.error("chunks", std::to_string(c.chunks),
                    fmt::format("chunks={} is more than the {} bytes of a batch; use fewer chunks.", c.chunks,
                                c.batch_bytes()));

    if (c.pinned_budget_mb < 0)
        check.error("pinned_budget_mb", std::to_string(c.pinned_budget_mb),
                    "pinned_budget_mb should be non-negative; use 0 for the default (half of the RAM).");

    // Length of the run.
    if (!std::isfinite(c.seconds) || c.seconds < 0)
        check.error("seconds", number(c.seconds),
                    "seconds should be a non-negative number; use 0 for no time limit.");
    if (c.batches < 0)
        check.error("batches", std::to_string(c.batches),
                    "batches should be non-negative; use 0 for no batch limit.");

    return check.result;
}

std::string describe(const ConfigIssue& issue) {
    return fmt::format("{}={}: {}", issue.option, issue.value, issue.message);
}

}  // namespace pinscope
