#include "app/gui/model/sweep_job.h"

namespace pinscope::gui {

SweepJob::SweepJob(SweepGrid grid, double seconds_each, SamplesPredictor predictor)
    : runner_(grid, seconds_each, std::move(predictor)) {
    progress_.total = grid.configs.size();
    thread_ = std::thread([this, grid = std::move(grid)] {
        SweepOutcome outcome = runner_.run([&](const SweepProgress& p) {
            std::lock_guard lock(mutex_);
            progress_.done = p.done;
            progress_.total = p.total;
            progress_.confirm_done = p.confirm_done;
            progress_.confirm_total = p.confirm_total;
            progress_.current = p.current ? grid.label(*p.current) : std::string();
            progress_.predicted_samples_per_s = p.predicted_samples_per_s;
            progress_.eta_seconds = p.eta_seconds;
        });
        outcome_ = std::move(outcome);
        finished_.store(true, std::memory_order_release);
    });
}

SweepJob::~SweepJob() {
    runner_.stop();
    thread_.join();
}

SweepJob::Progress SweepJob::progress() const {
    std::lock_guard lock(mutex_);
    return progress_;
}

}  // namespace pinscope::gui
