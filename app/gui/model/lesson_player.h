#pragma once
// A lesson as a class goes through it, without a window: pages (the belief, each step, the question,
// the answer), the choice the class made, and the reveal, which measures the lesson's runs on its own
// thread (the live pipeline is paused meanwhile, so the two do not share the cores) and then shows the
// answer with the measured numbers. The Lessons panel and presentation mode draw this.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/lab/lesson.h"

namespace pinscope::gui {

class LessonPlayer {
  public:
    enum class Page { belief, step, question, answer };

    LessonPlayer() = default;
    ~LessonPlayer();
    LessonPlayer(const LessonPlayer&) = delete;
    LessonPlayer& operator=(const LessonPlayer&) = delete;

    // Starts `lesson` at its first page; `machine` gives the device its runs use.
    void open(const Lesson& lesson, const PipelineConfig& machine);
    const Lesson* lesson() const { return lesson_; }

    int pages() const;  // belief, the steps, the question, the answer
    int page() const { return page_; }
    Page page_kind() const;
    int step() const { return page_ - 1; }  // on a step page: which step
    // Next and previous page. Moving past the question reveals the answer (starting the runs).
    void next();
    void previous();
    void go_to(int page);

    void choose(size_t choice) { chosen_ = choice; }
    std::optional<size_t> chosen() const { return chosen_; }

    // Starts measuring the lesson's runs, each for `seconds` at real speed, whatever slow motion the live
    // view shows (no-op while measuring or once measured). `measure` replaces the real runs (tests).
    void reveal(double seconds = 2, Measure measure = {});
    bool measuring() const { return measuring_; }
    // How far the measuring is: runs done and runs in all.
    std::pair<int, int> progress() const { return {done_.load(), total_.load()}; }
    // Once measured: the answer and its checks; nullopt before, and the error if it failed.
    std::optional<LessonOutcome> outcome() const;
    std::string error() const;
    // Whether the runs have been measured (or failed), without copying the outcome: a per-frame check.
    bool finished() const;

    // The config of run `index` on the machine the lesson was opened with: what "show it live" applies.
    PipelineConfig run_config(size_t index) const { return lesson_->run_config(index, machine_); }
    // Run `index` as the live view shows it: run_config(index) at the slow motion of `shown`, the run on
    // screen now, so a class watching at 50x stays at 50x from one run to the next.
    PipelineConfig live_config(size_t index, const PipelineConfig& shown) const;

  private:
    void join();

    const Lesson* lesson_ = nullptr;
    PipelineConfig machine_;
    int page_ = 0;
    std::optional<size_t> chosen_;
    std::thread worker_;
    std::atomic<bool> measuring_{false};
    std::atomic<int> done_{0};
    std::atomic<int> total_{0};  // the runs, and more if a promise missed and each is measured again
    mutable std::mutex mutex_;
    std::optional<LessonOutcome> outcome_;
    std::string error_;
};

}  // namespace pinscope::gui
