#include "app/cli/predict_bench.h"

#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/model/predict.h"
#include "core/trace/clock.h"

namespace pinscope {
namespace {

// num_workers 0..8 x prefetch_factor 1..4 x pinned or not, on four kinds of load: 288 configs.
std::vector<PipelineConfig> grid() {
    std::vector<PipelineConfig> loads(4);
    loads[0].decode_us = 100, loads[0].sample_shape.dims = {3, 64, 64};
    loads[1].io_us = 200, loads[1].sample_shape.dims = {3, 64, 64};
    loads[2].kernel_us = 200;  // 3x224x224: the copies and the host's part of them
    loads[3].sample_shape.dims = {3, 32, 32}, loads[3].kernel_us = 2000;
    std::vector<PipelineConfig> configs;
    for (PipelineConfig load : loads)
        for (int workers = 0; workers <= 8; ++workers)
            for (int prefetch = 1; prefetch <= 4; ++prefetch)
                for (bool pinned : {true, false}) {
                    PipelineConfig c = load;
                    c.device = DeviceChoice::sim;
                    c.num_workers = workers;
                    if (workers > 0) c.prefetch_factor = prefetch;
                    c.pin_memory = pinned;
                    c.seconds = 1;
                    configs.push_back(c);
                }
    return configs;
}

}  // namespace

int run_predict_bench(bool json) {
    const TimeNs measure_start = now_ns();
    const HostRates& host = this_host_rates();
    const double rates_s = static_cast<double>(now_ns() - measure_start) / 1e9;
    const Calibration calibration = builtin_calibration();
    const std::vector<PipelineConfig> configs = grid();
    // Whole passes over the grid for at least a second.
    size_t evaluated = 0;
    double checksum = 0;  // keeps the work from being optimised away, and shows the passes agree
    const TimeNs start = now_ns();
    do {
        for (const PipelineConfig& c : configs) checksum += predict(c, calibration, host).samples_per_s;
        evaluated += configs.size();
    } while (now_ns() - start < kNsPerS);
    const double seconds = static_cast<double>(now_ns() - start) / 1e9;
    const double per_s = static_cast<double>(evaluated) / seconds;
    if (json) {
        std::cout << nlohmann::json{{"predict",
                                     {{"configs", evaluated},
                                      {"seconds", seconds},
                                      {"configs_per_s", per_s},
                                      {"host_rates_seconds", rates_s},
                                      {"mean_samples_per_s", checksum / static_cast<double>(evaluated)}}}}
                         .dump()
                  << std::endl;
    } else {
        fmt::print(
            "predictor benchmark: {} distinct configs (decode-, io-, transfer-, kernel-bound; workers 0..8, "
            "prefetch 1..4, pinned or not)\n",
            configs.size());
        fmt::print("  host rates measured once in {:.2f} s\n", rates_s);
        fmt::print("  {} configs in {:.2f} s: {:.0f} configs/s, {:.1f} us each\n", evaluated, seconds, per_s,
                   1e6 / per_s);
    }
    return 0;
}

}  // namespace pinscope
