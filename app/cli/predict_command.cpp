#include "app/cli/predict_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli/config_options.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/io/metrics_json.h"
#include "core/model/folder_sample_cost.h"
#include "core/model/predict.h"
#include "core/model/recent_host_rates.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// The rates a prediction runs on: the median of the last few measurements kept between invocations
// (recent_host_rates.h), or with --fresh-rates one measurement taken now and kept nowhere.
RecentRates rates_for_prediction(bool fresh) {
    if (fresh) {
        RecentRates now;
        now.rates = measure_host_rates();
        now.measurements = 1;
        now.measured_now = true;
        return now;
    }
    return this_program_recent_rates(measure_host_rates);
}

std::string rates_line(const RecentRates& r, bool fresh) {
    if (fresh) return "one measurement, taken now (--fresh-rates), kept nowhere";
    std::string line =
        r.measurements == 1
            ? "one measurement, taken now"
            : fmt::format("the median of {} measurements, the oldest {:.0f} s ago{}", r.measurements,
                          r.oldest_age_s, r.measured_now ? ", one taken now" : "");
    if (!r.kept_error.empty()) return line + "; not kept: " + r.kept_error;
    return line + fmt::format("; kept {:.0f} min in {} (--fresh-rates: one taken now)",
                              KeptRates::kKeptSeconds / 60, default_kept_rates_file().string());
}

void print_summary(const PipelineConfig& config, const Metrics& m, const Calibration& calibration,
                   const RecentRates& rates, bool fresh) {
    std::cout << fmt::format("predicted for the simulated GPU ({}) on this host's measured rates\n",
                             calibration.name);
    std::cout << fmt::format("  samples/s    {}\n", format_count(m.samples_per_s));
    std::cout << fmt::format("  GPU busy     {} (compute engine), copy engines {}\n",
                             format_share(m.gpu_busy), format_share(m.copy_busy));
    std::cout << fmt::format(
        "  GPU idle     {}: loader {} (stall), pageable staging {}, copies {}, sync {}, other {}\n",
        format_share(m.gpu_idle), format_share(m.idle.loader), format_share(m.idle.staging),
        format_share(m.idle.copies), format_share(m.idle.sync), format_share(m.idle.other));
    std::cout << fmt::format("  overlap      {} of kernel time under copies\n", format_share(m.overlap));
    std::cout << fmt::format("  H2D          {} while copying, {} sustained\n", format_gbps(m.h2d_gbps),
                             format_gbps(m.h2d_sustained_gbps));
    std::cout << fmt::format("  over         {:.2f} s of run, {} batches of {}\n", m.seconds, m.batches,
                             config.batch_size);
    std::cout << fmt::format("  this host    {}\n", describe(rates.rates));
    std::cout << fmt::format("  its rates    {}\n", rates_line(rates, fresh));
}

}  // namespace

Command add_predict_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "predict", "Predict what a config measures on the simulated GPU, from a model of the pipeline");
    auto options = std::make_shared<ConfigOptions>(*cmd, PipelineConfig{});
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print the prediction as one JSON object, with the keys of `run --json`")
        ->group("Output");
    auto fresh = std::make_shared<bool>(false);
    cmd->add_flag("--fresh-rates", *fresh,
                  "Predict on one measurement of this host's rates taken now. Without it: the median of the "
                  "last three measurements of the last 10 minutes, kept in ~/.cache/pinscope (each "
                  "invocation, sweep, advise or the app measures once until there are three, then answers "
                  "at once)")
        ->group("Host rates");
    return {cmd, [options, json, fresh] {
                const PipelineConfig config = options->resolve();
                if (config.device == DeviceChoice::cuda)
                    throw UsageError("predict models the simulated GPU; leave out --device cuda");
                if (config.naive_benchmark)
                    throw UsageError(
                        "--naive-benchmark times one cold copy, not a pipeline: there is no steady state to "
                        "predict; run it with pinscope run --naive-benchmark");
                const Calibration calibration = opening_device([&] { return calibration_for(config); });
                // An image folder: a sample of its files is decoded here first, and what it cost is modelled.
                const double sample_us = folder_sample_us(config);
                if (sample_us > 0 && !*json)
                    fmt::print(stderr,
                               "pinscope predict: a sample of {} costs {:.0f} us here (read, decode, crop), "
                               "measured on up to 32 of its files\n",
                               printable(config.dataset), sample_us);
                const RecentRates rates = rates_for_prediction(*fresh);
                const Metrics metrics = predict(with_measured_sample_cost(config), calibration, rates.rates);
                if (*json) {
                    nlohmann::json j = metrics_json(metrics);
                    j["config"] = config_to_json(config);
                    j["predicted"] = true;
                    j["host_rates"] = {{"measurements", rates.measurements},
                                       {"oldest_age_s", rates.oldest_age_s},
                                       {"measured_now", rates.measured_now},
                                       {"describe", describe(rates.rates)}};
                    std::cout << j.dump(1) << "\n";
                } else {
                    print_summary(config, metrics, calibration, rates, *fresh);
                }
                return kExitOk;
            }};
}

}  // namespace pinscope
