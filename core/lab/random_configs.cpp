#include "core/lab/random_configs.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>

#include "core/config/validate.h"

namespace pinscope {
namespace {

constexpr int64_t kMaxBatchBytes = 64ll << 20;

class Draw {
  public:
    explicit Draw(uint64_t seed) : random_(seed) {}

    bool chance(double p) { return std::bernoulli_distribution(p)(random_); }
    // Log-uniform in [lo, hi]: as many configs between 10 and 100 us as between 100 and 1000.
    double log_uniform(double lo, double hi) {
        return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(random_));
    }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(random_); }
    // One of `values`, with the matching weights.
    template <class T>
    T pick(std::initializer_list<T> values, std::initializer_list<double> weights) {
        std::discrete_distribution<size_t> which(weights);
        return *(values.begin() + which(random_));
    }
    // A round number near a log-uniform draw (what people type: 150, not 148.3).
    double round_us(double lo, double hi) {
        const double x = log_uniform(lo, hi);
        const double digits = std::floor(std::log10(x)) - 1;  // two significant digits
        const double scale = std::pow(10.0, std::abs(digits));
        // Divided by a whole power of ten, not multiplied by a fraction: 68 / 10 is 6.8, 68 * 0.1 is not.
        return digits >= 0 ? std::round(x / scale) * scale : std::round(x * scale) / scale;
    }

  private:
    std::mt19937_64 random_;
};

PipelineConfig draw_one(Draw& d) {
    PipelineConfig c;
    c.device = DeviceChoice::sim;
    c.num_workers = d.pick({0, 1, 2, 3, 4, 6, 8, 12, 16}, {8, 8, 20, 6, 16, 6, 12, 4, 4});
    if (c.num_workers > 0 && d.chance(0.25)) c.prefetch_factor = d.pick({1, 2, 4, 8}, {2, 3, 3, 1});
    c.pin_memory = d.chance(0.75);
    c.pin_mode = d.chance(0.6) ? PinMode::thread : PinMode::direct;
    c.non_blocking = d.chance(0.8);
    c.in_order = d.chance(0.85);
    c.batch_size = d.pick({1, 8, 16, 32, 64, 128, 256}, {2, 6, 12, 24, 24, 10, 4});
    const int side = d.pick({8, 32, 64, 128, 224, 256, 384, 512}, {3, 15, 12, 10, 30, 10, 10, 10});
    c.sample_shape.dims = {d.chance(0.9) ? 3 : 1, side, side};
    c.transfer_dtype = d.pick(
        {TransferDtype::float32, TransferDtype::uint8, TransferDtype::float16, TransferDtype::bfloat16},
        {70, 15, 10, 5});
    // Shrink the batch until it fits the bound: a 2-core machine measures a few such batches a second.
    while (c.batch_bytes() > kMaxBatchBytes && c.batch_size > 1) c.batch_size /= 2;
    if (d.chance(0.45)) c.decode_us = d.round_us(5, 3000);
    if (d.chance(0.3)) c.io_us = d.round_us(10, 3000);
    if (d.chance(0.2)) c.cost_jitter = std::round(d.uniform(0.05, 0.5) * 100) / 100;
    if (d.chance(0.08)) {
        c.straggler_every = d.pick<int64_t>({5, 10, 50}, {1, 1, 1});
        c.straggler_factor = d.pick({3.0, 10.0}, {1, 1});
    }
    c.kernel_us = d.round_us(10, 20000);
    if (d.chance(0.15)) c.kernel_us_per_sample = d.round_us(1, 100);
    if (d.chance(0.15)) c.step_host_us = d.round_us(10, 3000);
    c.d2h_bytes = d.pick<int64_t>({0, 4096, 1 << 16, 1 << 20, 16 << 20}, {10, 60, 10, 12, 8});
    c.streams = d.pick({1, 2, 3, 4}, {25, 45, 15, 15});
    if (d.chance(0.15)) c.chunks = d.pick({2, 4, 8}, {2, 2, 1});
    if (c.chunks > 1 && d.chance(0.5)) c.issue_order = IssueOrder::copies_first;
    c.data_on_gpu = d.chance(0.03);
    return c;
}

}  // namespace

std::vector<PipelineConfig> random_configs(uint64_t seed, int count) {
    Draw d(seed);
    std::vector<PipelineConfig> configs;
    while (static_cast<int>(configs.size()) < count) {
        PipelineConfig c = draw_one(d);
        if (validate(c).ok()) configs.push_back(std::move(c));  // a draw that breaks a rule is drawn again
    }
    return configs;
}

}  // namespace pinscope
