#pragma once
// Lessons: guided scenarios for a class, each from a belief people hold about loading data onto a GPU.
// A lesson is a data file, assets/lessons/*.json, compiled in at build time (docs/lessons.md says how to
// write one). A file holds:
//   "title", "belief"     the lesson's name, and the belief it tests ("pin_memory=True makes loading faster")
//   "config"              the base run: the knobs that matter; the rest keep PipelineConfig's defaults
//   "runs"                what the class compares: [{"id": "pinned", "label": "...", "with": {knobs}}, ...],
//                         each the base config with these knobs changed (at least one run)
//   "steps"               what to look at and which slider to move, in order
//   "question"            {"text": ..., "choices": [...], "answer": index}: asked before the runs
//   "answer"              revealed after them, with measured numbers: {pinned.samples_per_s} is a run's
//                         metric (run --json's keys, dotted for nested ones), {pinned/pageable.samples_per_s}
//                         the ratio of two runs' values, {host.cores} the cores of the machine measuring
//   "promise"             {"text", "checks"}: what the lesson promises, as a preset's promise (promise.h);
//                         a check may name a run by id instead of knobs: {"run": "pinned"},
//                         "than": {"run": "pageable"}. A test runs every lesson on the simulated GPU.
//   "view_seconds"        the timeline's zoom that shows the point (0: the app's default)
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/pipeline_config.h"
#include "core/lab/promise.h"

namespace pinscope {

// The answer's name for the machine that measures ({host.cores}); no run may take it.
inline constexpr std::string_view kHostRun = "host";

struct LessonRun {
    std::string id;       // "pinned": what placeholders and checks call it
    std::string label;    // "pin_memory=True, 4 workers": what the class sees
    nlohmann::json with;  // knob changes over the lesson's config
};

struct LessonQuestion {
    std::string text;
    std::vector<std::string> choices;
    size_t answer = 0;  // index into choices
};

struct Lesson {
    std::string file;  // "01-pin-memory-alone.json"
    std::string slug;  // "pin-memory-alone"
    std::string title;
    std::string belief;
    nlohmann::json config;  // a subset of PipelineConfig's keys
    std::vector<LessonRun> runs;
    std::vector<std::string> steps;
    LessonQuestion question;
    std::string answer;      // with placeholders
    nlohmann::json promise;  // {"text", "checks"}
    double view_seconds = 0;

    // The config of run `index`: the defaults, the lesson's config, the run's changes; the machine's knobs
    // (device, calibration) from `machine`.
    PipelineConfig run_config(size_t index, const PipelineConfig& machine = {}) const;
    const LessonRun* find_run(std::string_view id) const;
};

// Reads a lesson; throws std::invalid_argument naming `file` and what is wrong (a missing field, a
// choice index out of range, an unknown knob, a placeholder or check naming no run).
Lesson parse_lesson(const nlohmann::json& json, const std::string& file);

// A lesson from a file a teacher is writing (`pinscope lesson FILE.json`): read whole (a bounded size),
// parsed and checked as parse_lesson does. Throws std::invalid_argument naming the file and the problem.
Lesson load_lesson_file(const std::filesystem::path& path);

// Every lesson compiled in, in file-name order. Throws std::runtime_error naming a malformed file.
const std::vector<Lesson>& builtin_lessons();
// By slug or file stem ("01-pin-memory-alone"), ignoring case; nullptr if none.
const Lesson* find_lesson(std::string_view name);
std::string lesson_slugs();

// What running a lesson showed: each run's metrics (metrics_json's keys), the answer with its numbers
// filled in, and each promise check.
struct LessonOutcome {
    std::map<std::string, nlohmann::json> metrics;  // by run id, and "host": {"cores"}
    std::string answer;
    std::vector<CheckResult> checks;
    int measurements = 1;  // of each run: its metrics are the medians of this many
    bool kept() const;     // every check held
};

// How many times each run is measured in all when the promise misses on the first measurements.
inline constexpr int kMeasurementsOnAMiss = 3;

// Runs each of the lesson's runs once through `measure` (configs as run_config(i, machine) builds them),
// then fills in the answer and checks the promise on the same measurements. If the promise misses, every
// config measured is measured until it has kMeasurementsOnAMiss measurements, and the answer and the
// checks are made again from each number's median (`measuring_again`, when given, first hears how many
// more runs that takes).
LessonOutcome run_lesson(const Lesson& lesson, const PipelineConfig& machine, const Measure& measure,
                         const std::function<void(int)>& measuring_again = {});

// The answer text with every {run.metric} and {a/b.metric} replaced from `metrics`; a metric is written
// as a person reads it (12.3k samples/s, 54.1 GB/s, 37%, 1.8x). Throws std::invalid_argument for a
// placeholder naming no run or no metric.
std::string fill_answer(const std::string& text, const std::map<std::string, nlohmann::json>& metrics);

}  // namespace pinscope
