#include "app/cli/lesson_command.h"

#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/cli/usage_error.h"
#include "core/config/knobs.h"
#include "core/io/metrics_json.h"
#include "core/lab/lesson.h"
#include "core/lab/measured_run.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

struct LessonOptions {
    std::string name;
    double seconds = 2;
    std::string device = "auto";
    bool json = false;
};

void list_lessons() {
    fmt::print(
        "lessons (pinscope lesson NAME runs one; in the app: View > Lessons panel, or gui --lesson NAME):\n");
    for (const Lesson& l : builtin_lessons()) fmt::print("  {:<30} {}\n", l.slug, l.title);
}

void print_question(const Lesson& lesson) {
    fmt::print("{}\nbelief: {}\n\n", lesson.title, lesson.belief);
    for (size_t i = 0; i < lesson.steps.size(); ++i) fmt::print("{}. {}\n", i + 1, lesson.steps[i]);
    fmt::print("\nquestion: {}\n", lesson.question.text);
    for (size_t i = 0; i < lesson.question.choices.size(); ++i)
        fmt::print("  {}) {}\n", static_cast<char>('a' + i), lesson.question.choices[i]);
    fmt::print("\n");
}

int run_lesson_command(const LessonOptions& options) {
    if (options.name.empty()) {
        list_lessons();
        return 0;
    }
    // A path (it ends in .json, or names a folder) is a lesson file being written; anything else a name.
    std::optional<Lesson> from_file;
    if (options.name.ends_with(".json") || options.name.find('/') != std::string::npos) {
        try {
            from_file = load_lesson_file(options.name);
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }
    const Lesson* lesson = from_file ? &*from_file : find_lesson(options.name);
    if (!lesson)
        throw UsageError(
            fmt::format("lesson {}: no such lesson; the lessons are: {} (or give a lesson file, "
                        "such as my-lesson.json).",
                        printable(options.name), lesson_slugs()));
    PipelineConfig machine;
    knob("device").set(machine, options.device);
    if (!options.json) print_question(*lesson);

    size_t done = 0;
    size_t total = lesson->runs.size();
    const Measure measure_run = [&](const PipelineConfig& config) {
        PipelineConfig bounded = config;
        bounded.seconds = options.seconds;
        bounded.batches = 0;
        ++done;
        fmt::print(stderr, "\r\033[K[{}/{}+] running {:.1f} s ...", std::min(done, total), total,
                   options.seconds);
        return metrics_json(pinscope::measure(bounded));
    };
    const LessonOutcome outcome = run_lesson(*lesson, machine, measure_run,
                                             [&](int more) { total = done + static_cast<size_t>(more); });
    fmt::print(stderr, "\r\033[K");
    const std::string medians =
        outcome.measurements > 1
            ? fmt::format(" (medians of {} runs each: the promise missed on the first runs)",
                          outcome.measurements)
            : "";

    if (options.json) {
        nlohmann::json out;
        out["lesson"] = lesson->slug;
        out["title"] = lesson->title;
        out["answer"] = lesson->question.choices[lesson->question.answer];
        out["explanation"] = outcome.answer;
        out["runs"] = nlohmann::json::object();
        for (const LessonRun& run : lesson->runs)
            out["runs"][run.id] = {{"label", run.label}, {"metrics", outcome.metrics.at(run.id)}};
        out["promise"] = {{"text", lesson->promise.value("text", "")},
                          {"kept", outcome.kept()},
                          {"measurements", outcome.measurements}};
        for (const CheckResult& c : outcome.checks) out["promise"]["checks"].push_back(c.line);
        fmt::print("{}\n", out.dump(2));
        return 0;
    }
    fmt::print("answer: {}) {}\n{}\n\n", static_cast<char>('a' + lesson->question.answer),
               lesson->question.choices[lesson->question.answer], outcome.answer);
    fmt::print("promise: {} ({}){}\n", lesson->promise.value("text", ""),
               outcome.kept() ? "kept" : "NOT kept", medians);
    for (const CheckResult& c : outcome.checks) fmt::print("  {}\n", c.line);
    return 0;
}

}  // namespace

Command add_lesson_command(CLI::App& app) {
    auto options = std::make_shared<LessonOptions>();
    CLI::App* command = app.add_subcommand(
        "lesson", "The lessons: a question, runs that answer it with measured numbers (no NAME: the list).");
    command->add_option(
        "name", options->name,
        "The lesson to run, e.g. pin-memory-alone, or a lesson file being written (FILE.json)");
    command->add_option("--seconds", options->seconds, "How long each of the lesson's runs lasts")
        ->check(CLI::Range(0.2, 600.0));
    command->add_option("--device", options->device, "auto, sim or cuda (slow motion needs sim)")
        ->check(CLI::IsMember({"auto", "sim", "cuda"}));
    command->add_flag("--json", options->json, "The answer, every run's metrics and the promise as JSON");
    return {command, [options] { return run_lesson_command(*options); }};
}

}  // namespace pinscope
