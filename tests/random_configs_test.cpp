// The predictor's judge: random configs, the same for the same seed, each one a config that runs, and
// spread over the knobs that shape a pipeline.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "core/config/validate.h"
#include "core/lab/random_configs.h"

using namespace pinscope;

TEST_CASE("random configs: one seed draws the same configs, every one valid and at most 64 MiB a batch") {
    const std::vector<PipelineConfig> a = random_configs(24, 200), b = random_configs(24, 200);
    REQUIRE(a.size() == 200);
    CHECK(a == b);
    CHECK(random_configs(1, 200) != a);
    for (const PipelineConfig& c : a) {
        CHECK(validate(c).ok());
        CHECK(c.batch_bytes() <= (64ll << 20));
        CHECK(c.device == DeviceChoice::sim);
        CHECK_FALSE(c.naive_benchmark);
        CHECK(c.slow_motion == 1);
    }
}

TEST_CASE("random configs cover the knobs: workers, pinning, dtypes, costs and GPU work all vary") {
    const std::vector<PipelineConfig> configs = random_configs(24, 200);
    std::set<int> workers, streams;
    std::set<TransferDtype> dtypes;
    int pinned = 0, decoding = 0, waiting = 0, out_of_order = 0, chunked = 0;
    double shortest_kernel = 1e9, longest_kernel = 0;
    for (const PipelineConfig& c : configs) {
        workers.insert(c.num_workers);
        streams.insert(c.streams);
        dtypes.insert(c.transfer_dtype);
        pinned += c.pin_memory;
        decoding += c.decode_us > 0;
        waiting += c.io_us > 0;
        out_of_order += !c.in_order;
        chunked += c.chunks > 1;
        shortest_kernel = std::min(shortest_kernel, c.kernel_us);
        longest_kernel = std::max(longest_kernel, c.kernel_us);
    }
    CHECK(workers.size() >= 8);
    CHECK(streams.size() == 4);
    CHECK(dtypes.size() == 4);
    CHECK(pinned > 100);  // most runs pin ...
    CHECK(pinned < 190);  // ... not all
    CHECK(decoding > 40);
    CHECK(waiting > 30);
    CHECK(out_of_order > 5);
    CHECK(chunked > 5);
    CHECK(shortest_kernel < 30);
    CHECK(longest_kernel > 5000);
}
