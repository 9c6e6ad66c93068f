#include "app/gui/model/lesson_player.h"

#include <algorithm>

#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"

namespace pinscope::gui {

LessonPlayer::~LessonPlayer() {
    join();
}

void LessonPlayer::join() {
    if (worker_.joinable()) worker_.join();
}

void LessonPlayer::open(const Lesson& lesson, const PipelineConfig& machine) {
    join();
    lesson_ = &lesson;
    machine_ = machine;
    page_ = 0;
    chosen_.reset();
    std::lock_guard lock(mutex_);
    outcome_.reset();
    error_.clear();
    done_ = 0;
    total_ = static_cast<int>(lesson.runs.size());
}

int LessonPlayer::pages() const {
    return lesson_ ? static_cast<int>(lesson_->steps.size()) + 3 : 0;
}

LessonPlayer::Page LessonPlayer::page_kind() const {
    if (page_ == 0) return Page::belief;
    if (page_ == pages() - 2) return Page::question;
    if (page_ == pages() - 1) return Page::answer;
    return Page::step;
}

void LessonPlayer::go_to(int page) {
    if (!lesson_) return;
    page_ = std::clamp(page, 0, pages() - 1);
    if (page_kind() == Page::answer) reveal();
}

void LessonPlayer::next() {
    go_to(page_ + 1);
}

void LessonPlayer::previous() {
    go_to(page_ - 1);
}

PipelineConfig LessonPlayer::live_config(size_t index, const PipelineConfig& shown) const {
    PipelineConfig config = run_config(index);
    config.slow_motion = shown.slow_motion;
    return config;
}

void LessonPlayer::reveal(double seconds, Measure fake) {
    if (!lesson_ || measuring_ || outcome()) return;
    join();
    measuring_ = true;
    done_ = 0;
    worker_ = std::thread([this, seconds, lesson = lesson_, machine = machine_, fake = std::move(fake)] {
        const Measure measured = [&](const PipelineConfig& config) {
            PipelineConfig bounded = config;
            bounded.seconds = seconds;
            bounded.batches = 0;
            bounded.slow_motion = 1;  // the promises are about real speed, and 2 s at 50x is a few batches
            nlohmann::json metrics = fake ? fake(bounded) : metrics_json(measure(bounded));
            ++done_;
            return metrics;
        };
        try {
            LessonOutcome outcome =
                run_lesson(*lesson, machine, measured, [this](int more) { total_ += more; });
            std::lock_guard lock(mutex_);
            outcome_ = std::move(outcome);
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            error_ = e.what();
        }
        measuring_ = false;
    });
}

std::optional<LessonOutcome> LessonPlayer::outcome() const {
    std::lock_guard lock(mutex_);
    return outcome_;
}

bool LessonPlayer::finished() const {
    std::lock_guard lock(mutex_);
    return outcome_.has_value() || !error_.empty();
}

std::string LessonPlayer::error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

}  // namespace pinscope::gui
