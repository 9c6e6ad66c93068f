#include "core/model/batches_modelled.h"

#include <algorithm>

namespace pinscope::model {
namespace {

// A whole number of straggler periods in each quarter of the modelled batches: the steady state runs from
// the second quarter to the last (predict.cpp's steady_bounds) and so holds as many stragglers a batch as
// the run. 0 without stragglers.
int64_t straggler_quarters(const PipelineConfig& config) {
    return config.straggler_every > 0 ? 4 * config.straggler_every : 0;
}

}  // namespace

// Twice what the pipeline holds (the outstanding batches, the loop's slots, one per worker), so the second
// half, taken as the steady state, starts after every pool buffer has had its first batch (predict() runs
// more where it does not). When this was capped at 96, 8 workers with prefetch 8 (75 batches in the
// pipeline) took start-up for the steady state: fresh 19 MiB buffers paging in on every batch, 5,200
// samples/s predicted against 12,300 measured.
// Modelled over 32 batches, a straggler every 50 was never modelled at all: 4 workers decoding 1,200 us
// samples in batches of one, a tenfold straggler every 50, were predicted at 1,560 samples/s on 2 cores that
// decode 1,412 of them at most, and at 3,292 on the GPU machine's host where the simulated GPU made 1,908
// (seed 2525's #180); of 2,675 stored configs, those with a straggler every 50 batches were 64% within 10%
// of the runs, the rest 82-84%.
int64_t batches_to_model(const PipelineConfig& config) {
    const int64_t pipeline = config.max_outstanding() + config.streams + 1 + config.num_workers;
    const int64_t batches = std::clamp<int64_t>(2 * pipeline, 32, 512);
    const int64_t quarters = straggler_quarters(config);
    return quarters > 0 ? (batches + quarters - 1) / quarters * quarters : batches;
}

// Doubling keeps whole straggler periods; the ceiling is rounded down to them too (4,096 is no multiple
// of a straggler every 48 batches' 192).
int64_t more_batches_to_model(int64_t modelled, const PipelineConfig& config) {
    const int64_t quarters = straggler_quarters(config);
    const int64_t most = quarters > 0 && quarters <= kMaxBatchesModelled
                             ? kMaxBatchesModelled / quarters * quarters
                             : kMaxBatchesModelled;
    return modelled < most ? std::min(2 * modelled, most) : modelled;
}

}  // namespace pinscope::model
