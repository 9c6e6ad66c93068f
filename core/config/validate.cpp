#include "core/config/validate.h"

#include <fmt/format.h>

#include "core/config/knobs.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

constexpr int64_t kMaxBatchBytes = 4LL << 30;  // 4 GiB of float32 per batch: a typo, not a batch

class Checker {
  public:
    void error(std::string_view option, std::string value, std::string message) {
        result.errors.push_back({std::string(option), std::move(value), std::move(message)});
    }
    void warning(std::string_view option, std::string value, std::string message) {
        result.warnings.push_back({std::string(option), std::move(value), std::move(message)});
    }
    bool flagged(std::string_view option) const {
        for (const ConfigIssue& issue : result.errors)
            if (issue.option == option) return true;
        return false;
    }
    Validation result;
};

// Rules that join knobs, in PyTorch's words where PyTorch has them. Each knob's own range is in the
// knob table.
void check_across_knobs(const PipelineConfig& c, unsigned host_cores, Checker& check) {
    if (c.prefetch_factor && c.num_workers == 0 && !check.flagged("prefetch_factor"))
        check.error(
            "prefetch_factor", std::to_string(*c.prefetch_factor),
            "prefetch_factor option could only be specified in multiprocessing. let num_workers > 0 to "
            "enable multiprocessing, otherwise leave prefetch_factor unset.");

    if (host_cores > 0 && !check.flagged("num_workers") && static_cast<unsigned>(c.num_workers) > host_cores)
        check.warning(
            "num_workers", std::to_string(c.num_workers),
            fmt::format(
                "This DataLoader will create {} worker threads in total. The suggested max number "
                "of workers on this system is {}; workers beyond the core count only help with io_us.",
                c.num_workers, host_cores));

    // A real GPU runs at its own speed with its own engines: these two describe the simulated one.
    if (c.device == DeviceChoice::cuda && c.slow_motion != 1 && !check.flagged("slow_motion"))
        check.error(
            "slow_motion", knob_number(c.slow_motion),
            "slow motion needs the simulated GPU (a real one runs at its own speed); use device=sim.");
    if (c.device == DeviceChoice::cuda && c.copy_engines != 0 && !check.flagged("copy_engines"))
        check.error("copy_engines", std::to_string(c.copy_engines),
                    "a real GPU has the copy engines it has; use device=sim to model another count.");
    // A real GPU starts once per process, and pinscope's pipeline runs in its own: naive_benchmark, which
    // runs a fresh process, is how to see a real one's start-up.
    if (c.device == DeviceChoice::cuda && c.cold_start)
        check.error("cold_start", "true",
                    "a real GPU starts once per process, and pinscope's has started; use device=sim, or "
                    "naive_benchmark, which runs its copy in a fresh process.");

    const bool batch_ok = !check.flagged("sample_shape") && !check.flagged("batch_size");
    if (batch_ok && c.sample_shape.elements() > kMaxBatchBytes / 4 / c.batch_size)
        check.error("sample_shape", c.sample_shape.to_string(),
                    fmt::format("a batch of {} samples of {} would exceed {} of float32; use a smaller shape "
                                "or batch.",
                                c.batch_size, c.sample_shape.to_string(),
                                format_bytes(static_cast<double>(kMaxBatchBytes))));
    else if (batch_ok && !check.flagged("chunks") && c.batch_bytes() < c.chunks)
        check.error("chunks", std::to_string(c.chunks),
                    fmt::format("chunks={} is more than the {} bytes of a batch; use fewer chunks.", c.chunks,
                                c.batch_bytes()));
}

}  // namespace

Validation validate(const PipelineConfig& c, unsigned host_cores) {
    Checker check;
    for (const Knob& knob : knobs())
        if (std::optional<std::string> problem = knob.problem(c))
            check.error(knob.key, knob.text(c), *problem);
    check_across_knobs(c, host_cores, check);
    return check.result;
}

std::string describe(const ConfigIssue& issue) {
    return fmt::format("{}={}: {}", issue.option, issue.value, issue.message);
}

}  // namespace pinscope
