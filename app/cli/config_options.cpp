#include "app/cli/config_options.h"

#include <thread>

#include <fmt/format.h>

#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/config/validate.h"

namespace pinscope {

// Raw option values; only those given on the command line are applied over the config.
struct ConfigOptions::Values {
    PipelineConfig defaults;
    std::string config_file;
    int num_workers = 0, prefetch_factor = 0, batch_size = 0, streams = 0, chunks = 0;
    bool pin_memory = false, non_blocking = false, in_order = false, cupti = true;
    int64_t pinned_budget_mb = 0;
    std::string pin_mode, sample_shape, issue_order, device, calibration;
    double decode_us = 0, io_us = 0, kernel_us = 0, seconds = 0;
    int64_t d2h_bytes = 0, batches = 0, fail_at_sample = 0;
    uint64_t seed = 0;
};

std::string ConfigOptions::flag_for(const std::string& config_key) {
    std::string flag = "--" + config_key;
    for (char& ch : flag)
        if (ch == '_') ch = '-';
    return flag;
}

ConfigOptions::ConfigOptions(CLI::App& cmd, const PipelineConfig& d)
    : values_(std::make_unique<Values>()), command_(cmd) {
    Values& v = *values_;
    v.defaults = d;
    auto def = [](auto value) { return fmt::format("{}", value); };
    auto on_off = [](bool value) { return value ? " (default: on)" : " (default: off)"; };

    cmd.add_option("--config", v.config_file,
                   "Load the config from a JSON file; options given here override it")
        ->option_text("FILE");
    auto* loader = "DataLoader (PyTorch's names)";
    cmd.add_option("--num-workers", v.num_workers, "Worker threads; 0 loads inline in the train loop")
        ->default_str(def(d.num_workers))
        ->group(loader);
    cmd.add_option("--prefetch-factor", v.prefetch_factor,
                   "Batches each worker may have outstanding; only with workers (unset: 2)")
        ->default_str(d.prefetch_factor ? def(*d.prefetch_factor) : "unset")
        ->group(loader);
    cmd.add_flag("--pin-memory,!--no-pin-memory", v.pin_memory,
                 std::string("Copy batches into page-locked (pinned) memory") + on_off(d.pin_memory))
        ->group(loader);
    cmd.add_option(
           "--pin-mode", v.pin_mode,
           "thread: PyTorch's pin thread copies each batch; direct: workers collate into pinned buffers")
        ->check(CLI::IsMember({"thread", "direct"}))
        ->default_str(std::string(to_string(d.pin_mode)))
        ->group(loader);
    cmd.add_flag("--non-blocking,!--no-non-blocking", v.non_blocking,
                 std::string("tensor.to(device, non_blocking=True): pinned copies return at once") +
                     on_off(d.non_blocking))
        ->group(loader);
    cmd.add_flag("--in-order,!--no-in-order", v.in_order,
                 std::string("Hand batches over in order (a reorder buffer) or as they arrive") +
                     on_off(d.in_order))
        ->group(loader);
    cmd.add_option("--batch-size", v.batch_size, "Samples per batch")
        ->default_str(def(d.batch_size))
        ->group(loader);

    auto* workload = "Workload";
    cmd.add_option("--sample-shape", v.sample_shape,
                   "uint8 image shape, converted to float32 while collating")
        ->default_str(d.sample_shape.to_string())
        ->type_name("CxHxW")
        ->group(workload);
    cmd.add_option("--decode-us", v.decode_us, "CPU work per sample in microseconds (needs a core)")
        ->default_str(def(d.decode_us))
        ->group(workload);
    cmd.add_option("--io-us", v.io_us,
                   "Waiting per sample in microseconds, as for storage reads (needs no core)")
        ->default_str(def(d.io_us))
        ->group(workload);
    cmd.add_option("--kernel-us", v.kernel_us, "GPU work per batch in microseconds")
        ->default_str(def(d.kernel_us))
        ->group(workload);
    cmd.add_option("--d2h-bytes", v.d2h_bytes, "Result bytes copied back per batch")
        ->default_str(def(d.d2h_bytes))
        ->group(workload);
    cmd.add_option("--fail-at-sample", v.fail_at_sample,
                   "The dataset raises a ValueError on this sample (-1: never)")
        ->default_str(def(d.fail_at_sample))
        ->group(workload);

    auto* gpu = "GPU";
    cmd.add_option("--streams", v.streams, "CUDA streams; batches (or chunks) take turns on them")
        ->default_str(def(d.streams))
        ->group(gpu);
    cmd.add_option("--chunks", v.chunks, "Pieces each batch is copied and processed in")
        ->default_str(def(d.chunks))
        ->group(gpu);
    cmd.add_option("--issue-order", v.issue_order,
                   "per-chunk: H2D, kernel, D2H per chunk; copies-first: all H2D, then kernels")
        ->check(CLI::IsMember({"per-chunk", "copies-first"}))
        ->default_str(std::string(to_string(d.issue_order)))
        ->group(gpu);
    cmd.add_option("--device", v.device, "auto: the GPU when there is one, else the simulated GPU")
        ->check(CLI::IsMember({"auto", "sim", "cuda"}))
        ->default_str(std::string(to_string(d.device)))
        ->group(gpu);
    cmd.add_option("--calibration", v.calibration,
                   "Copy bandwidths the simulated GPU models (from `pinscope probe`)")
        ->default_str(d.calibration.empty() ? "built-in H100" : d.calibration)
        ->type_name("FILE")
        ->group(gpu);
    cmd.add_flag("--cupti,!--no-cupti", v.cupti,
                 std::string("Record GPU activity with CUPTI (CUDA device); --no-cupti measures its cost") +
                     on_off(d.cupti))
        ->group(gpu);
    cmd.add_option("--pinned-budget-mb", v.pinned_budget_mb,
                   "Page-locked memory the pipeline may hold (0: half of the RAM)")
        ->default_str(def(d.pinned_budget_mb))
        ->group(gpu);

    auto* length = "Length";
    cmd.add_option("--seconds", v.seconds, "Stop after this long (0: no limit)")
        ->default_str(def(d.seconds))
        ->group(length);
    cmd.add_option("--batches", v.batches, "Stop after this many batches (0: no limit)")
        ->default_str(def(d.batches))
        ->group(length);
    cmd.add_option("--seed", v.seed, "Seed of the synthetic dataset")
        ->default_str(def(d.seed))
        ->group(length);
}

ConfigOptions::~ConfigOptions() = default;

PipelineConfig ConfigOptions::resolve() const {
    const Values& v = *values_;
    PipelineConfig c = v.defaults;
    if (!v.config_file.empty()) {
        try {
            c = load_config(v.config_file, c);
        } catch (const ConfigFileError& e) {
            throw UsageError(fmt::format("--config: {}", e.what()));
        }
    }
    auto given = [&](const char* flag) { return command_.count(flag) > 0; };
    if (given("--num-workers")) c.num_workers = v.num_workers;
    if (given("--prefetch-factor")) c.prefetch_factor = v.prefetch_factor;
    if (given("--pin-memory") || given("--no-pin-memory")) c.pin_memory = v.pin_memory;
    if (given("--pin-mode")) c.pin_mode = *parse_pin_mode(v.pin_mode);
    if (given("--non-blocking") || given("--no-non-blocking")) c.non_blocking = v.non_blocking;
    if (given("--in-order") || given("--no-in-order")) c.in_order = v.in_order;
    if (given("--batch-size")) c.batch_size = v.batch_size;
    if (given("--sample-shape")) {
        auto shape = parse_sample_shape(v.sample_shape);
        if (!shape)
            throw UsageError(
                fmt::format("--sample-shape {}: expected sizes joined by 'x', e.g. --sample-shape 3x224x224.",
                            v.sample_shape));
        c.sample_shape = *shape;
    }
    if (given("--decode-us")) c.decode_us = v.decode_us;
    if (given("--io-us")) c.io_us = v.io_us;
    if (given("--kernel-us")) c.kernel_us = v.kernel_us;
    if (given("--d2h-bytes")) c.d2h_bytes = v.d2h_bytes;
    if (given("--fail-at-sample")) c.fail_at_sample = v.fail_at_sample;
    if (given("--streams")) c.streams = v.streams;
    if (given("--chunks")) c.chunks = v.chunks;
    if (given("--issue-order")) c.issue_order = *parse_issue_order(v.issue_order);
    if (given("--device")) c.device = *parse_device_choice(v.device);
    if (given("--calibration")) c.calibration = v.calibration;
    if (given("--cupti") || given("--no-cupti")) c.cupti = v.cupti;
    if (given("--pinned-budget-mb")) c.pinned_budget_mb = v.pinned_budget_mb;
    if (given("--seconds")) c.seconds = v.seconds;
    if (given("--batches")) c.batches = v.batches;
    if (given("--seed")) c.seed = v.seed;

    Validation validation = validate(c, std::thread::hardware_concurrency());
    if (!validation.ok()) {
        const ConfigIssue& issue = validation.errors.front();
        throw UsageError(fmt::format("{} {}: {}", flag_for(issue.option), issue.value, issue.message));
    }
    return c;
}

}  // namespace pinscope
