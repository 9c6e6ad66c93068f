// How many batches the pipeline model runs (core/model/batches_modelled.h): from the first number to the
// ceiling, every number holds whole straggler periods in each quarter, so the steady state the predictor
// stretches holds as many stragglers a batch as the run.
#include <doctest/doctest.h>

#include "core/model/batches_modelled.h"

namespace pinscope::model {

TEST_CASE(
    "each number of batches modelled, up to the ceiling, holds whole straggler periods in each quarter") {
    // 48 is the case the plain doubling missed: 192 a quarter, and 4,096 is no multiple of it.
    for (int every : {0, 1, 3, 5, 10, 48, 50, 700, 1024}) {
        CAPTURE(every);
        PipelineConfig config;
        config.straggler_every = every;
        const int64_t quarters = every > 0 ? 4 * every : 1;
        int64_t modelled = batches_to_model(config);
        CHECK(modelled >= 32);
        int doublings = 0;
        for (;;) {
            CHECK(modelled % quarters == 0);
            CHECK(modelled <= std::max(kMaxBatchesModelled, quarters));
            const int64_t more = more_batches_to_model(modelled, config);
            if (more == modelled) break;
            CHECK(more > modelled);
            modelled = more;
            REQUIRE(++doublings < 16);
        }
        // At the ceiling: as near 4,096 as whole periods allow (or one period of four quarters, if longer).
        CHECK(modelled > std::max(kMaxBatchesModelled - quarters, int64_t{0}));
    }
}

TEST_CASE("a straggler period longer than the ceiling is modelled once, whole") {
    PipelineConfig config;
    config.straggler_every = 2000;  // 8,000 batches in four quarters, past 4,096
    const int64_t modelled = batches_to_model(config);
    CHECK(modelled == 8000);
    CHECK(more_batches_to_model(modelled, config) == modelled);
}

}  // namespace pinscope::model
