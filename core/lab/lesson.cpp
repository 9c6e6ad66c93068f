#include "core/lab/lesson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/config/config_json.h"
#include "core/config/file_slug.h"
#include "core/config/knobs.h"
#include "core/config/validate.h"
#include "core/device/median.h"
#include "core/files/input_file.h"
#include "core/files/json_text.h"
#include "core/lab/embedded_lessons.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

using nlohmann::json;

// No text of a lesson is longer: a class reads it on one screen.
constexpr size_t kMaxTextBytes = 8 << 10;

// A lesson's text as it is shown: a lesson file may come from anyone (`pinscope lesson FILE`).
std::string checked_text(const json& value, std::string_view key) {
    if (!value.is_string() || value.get<std::string>().empty())
        throw std::invalid_argument(fmt::format("\"{}\" should be a non-empty string", key));
    if (value.get<std::string>().size() > kMaxTextBytes)
        throw std::invalid_argument(fmt::format("\"{}\" is longer than {} KiB", key, kMaxTextBytes >> 10));
    return printable(value.get<std::string>());
}

std::string text_field(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key))
        throw std::invalid_argument(fmt::format("\"{}\" should be a non-empty string", key));
    return checked_text(j[key], key);
}

std::vector<std::string> strings(const json& j, const char* key) {
    if (!j.contains(key) || !j[key].is_array() || j[key].empty())
        throw std::invalid_argument(fmt::format("\"{}\" should be a non-empty list of strings", key));
    std::vector<std::string> out;
    for (const json& s : j[key]) out.push_back(checked_text(s, key));
    return out;
}

// A check that names runs by id ({"run": "pinned"}) as promise.h reads it ({"with": {...}}).
json resolve_runs(json check, const Lesson& lesson) {
    auto resolve = [&](json& spec) {
        if (!spec.is_object() || !spec.contains("run")) return;
        if (!spec["run"].is_string())
            throw std::invalid_argument("a promise check's \"run\" should be a run's id");
        if (spec.contains("with") && !spec["with"].is_object())
            throw std::invalid_argument("a promise check's \"with\" should be an object of knobs");
        const std::string id = spec["run"].get<std::string>();
        const LessonRun* run = lesson.find_run(id);
        if (!run) throw std::invalid_argument("a promise check names no run \"" + id + "\"");
        spec.erase("run");
        json with = spec.value("with", json::object());
        for (const auto& [key, value] : run->with.items())
            if (!with.contains(key)) with[key] = value;
        spec["with"] = with;
    };
    resolve(check);
    if (check.contains("than")) resolve(check["than"]);
    return check;
}

// One metric as the answer shows it, by what the key measures.
std::string readable(const std::string& key, double value) {
    const std::string last = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    if (last.ends_with("per_s")) return format_short_count(value);
    if (last.ends_with("gbps")) return format_gbps(value);
    if (last.ends_with("_us")) return format_duration(static_cast<TimeNs>(value * 1000));
    if (last.ends_with("_ms")) return format_duration(static_cast<TimeNs>(value * 1e6));
    if (last.ends_with("bytes_max")) return format_bytes(value);
    if (last == "cores") return fmt::format("{:.0f}", value);
    if (key.starts_with("idle.") || last == "stall" || last == "overlap" || last.ends_with("busy") ||
        last == "gpu_idle" || last.ends_with("fraction"))
        return format_share(value);
    return fmt::format("{:.3g}", value);
}

double metric_value(const json& metrics, const std::string& path) {
    const json* at = &metrics;
    size_t from = 0;
    for (;;) {
        const size_t dot = path.find('.', from);
        const std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        if (!at->is_object() || !at->contains(key) || (dot == std::string::npos && !(*at)[key].is_number()))
            throw std::invalid_argument("the answer names an unknown metric \"" + path + "\"");
        at = &(*at)[key];
        if (dot == std::string::npos) return at->get<double>();
        from = dot + 1;
    }
}

// {run.metric} or {run/other.metric} in an answer; metrics may be dotted (idle.loader). Found by a plain
// scan: std::regex recurses once per character, and an answer is text a stranger may have written.
struct Placeholder {
    size_t at = 0, length = 0;      // in the answer, braces included
    std::string run, over, metric;  // over: the run of the ratio's denominator, or empty
};

bool run_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

std::optional<Placeholder> placeholder_at(std::string_view text, size_t at) {
    Placeholder p;
    p.at = at;
    size_t i = at + 1;
    const auto name = [&](std::string& out, auto allowed) {
        const size_t from = i;
        while (i < text.size() && allowed(text[i])) ++i;
        out = std::string(text.substr(from, i - from));
        return !out.empty();
    };
    if (!name(p.run, run_character)) return std::nullopt;
    if (i < text.size() && text[i] == '/') {
        ++i;
        if (!name(p.over, run_character)) return std::nullopt;
    }
    // The run's name ends at the first '.', which run characters do not include.
    if (i >= text.size() || text[i] != '.') return std::nullopt;
    ++i;
    const auto metric_character = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    };
    if (!name(p.metric, metric_character) || i >= text.size() || text[i] != '}') return std::nullopt;
    p.length = i + 1 - at;
    return p;
}

std::vector<Placeholder> placeholders(std::string_view text) {
    std::vector<Placeholder> found;
    for (size_t at = text.find('{'); at != std::string_view::npos; at = text.find('{', at + 1))
        if (std::optional<Placeholder> p = placeholder_at(text, at)) {
            found.push_back(std::move(*p));
            at = found.back().at + found.back().length - 1;
        }
    return found;
}

Lesson parse(const json& j, const std::string& file) {
    if (!j.is_object()) throw std::invalid_argument("a lesson is a JSON object");
    Lesson l;
    l.file = file;
    l.slug = slug_of(file);
    l.title = text_field(j, "title");
    l.belief = text_field(j, "belief");
    if (!j.contains("config") || !j["config"].is_object())
        throw std::invalid_argument("\"config\" should be an object of knobs");
    l.config = j["config"];
    config_from_json(l.config);  // unknown keys and wrong types fail here, not in a class
    if (!j.contains("runs") || !j["runs"].is_array() || j["runs"].empty())
        throw std::invalid_argument("\"runs\" should be a non-empty list of {\"id\", \"label\", \"with\"}");
    for (const json& r : j["runs"]) {
        LessonRun run{text_field(r, "id"), text_field(r, "label"), r.value("with", json::object())};
        if (!run.with.is_object())
            throw std::invalid_argument("run \"" + run.id + "\": \"with\" is not an object");
        if (l.find_run(run.id)) throw std::invalid_argument("two runs are called \"" + run.id + "\"");
        if (run.id == kHostRun)
            throw std::invalid_argument("a run may not be called \"host\": {host.cores} is the machine's");
        l.runs.push_back(std::move(run));
    }
    l.steps = strings(j, "steps");
    if (!j.contains("question") || !j["question"].is_object())
        throw std::invalid_argument("\"question\" should be {\"text\", \"choices\", \"answer\"}");
    const json& q = j["question"];
    l.question.text = text_field(q, "text");
    l.question.choices = strings(q, "choices");
    if (!q.contains("answer") || !q["answer"].is_number_unsigned() ||
        q["answer"].get<size_t>() >= l.question.choices.size())
        throw std::invalid_argument(fmt::format("\"question.answer\" should index the {} choices (0 to {})",
                                                l.question.choices.size(), l.question.choices.size() - 1));
    l.question.answer = q["answer"].get<size_t>();
    l.answer = text_field(j, "answer");
    l.promise = j.value("promise", json());
    if (!l.promise.is_object() || !l.promise.contains("checks") || !l.promise["checks"].is_array() ||
        l.promise["checks"].empty())
        throw std::invalid_argument(
            "\"promise\" should be {\"text\", \"checks\": [...]} with at least one check");
    for (json& check : l.promise["checks"]) check = resolve_runs(check, l);
    if (j.contains("view_seconds")) {
        const json& v = j["view_seconds"];
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 3600))
            throw std::invalid_argument("\"view_seconds\" should be a number of seconds from 0 to 3600");
        l.view_seconds = v.get<double>();
    }
    for (size_t i = 0; i < l.runs.size(); ++i) {  // every run can run
        PipelineConfig config;
        try {
            config = l.run_config(i);
        } catch (const ConfigFileError& e) {
            throw std::invalid_argument("run \"" + l.runs[i].id + "\": " + e.what());
        }
        const Validation validation = validate(config);
        if (!validation.ok())
            throw std::invalid_argument("run \"" + l.runs[i].id +
                                        "\": " + describe(validation.errors.front()));
    }
    validate_promise(l.promise, config_from_json(l.config, PipelineConfig{}));
    // Every placeholder names runs the lesson has, and metrics a run measures.
    for (const Placeholder& p : placeholders(l.answer))
        for (const std::string* run : {&p.run, &p.over})
            if (!run->empty() && !l.find_run(*run) && !(*run == kHostRun && p.over.empty()))
                throw std::invalid_argument(fmt::format("the answer's {} names no run \"{}\"",
                                                        l.answer.substr(p.at, p.length), *run));
    return l;
}

std::vector<Lesson> parse_lessons() {
    std::vector<Lesson> lessons;
    for (const EmbeddedFile& file : embedded_lessons()) {
        try {
            lessons.push_back(parse_lesson(json::parse(file.text), file.name));
        } catch (const std::exception& e) {
            throw std::runtime_error(std::string(e.what()));
        }
    }
    return lessons;
}

}  // namespace

PipelineConfig Lesson::run_config(size_t index, const PipelineConfig& machine) const {
    PipelineConfig config = config_from_json(this->config, PipelineConfig{});
    keep_machine_knobs(config, machine);
    return config_from_json(runs.at(index).with, config);
}

const LessonRun* Lesson::find_run(std::string_view id) const {
    for (const LessonRun& r : runs)
        if (r.id == id) return &r;
    return nullptr;
}

// Every way a lesson can be wrong is one of these two, and says what to fix; anything else thrown while
// reading one (a library's own exception) is a bug in this reader, which the fuzzer is there to find.
Lesson parse_lesson(const json& json, const std::string& file) {
    try {
        return parse(json, file);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("lesson " + printable(file) + ": " + e.what());
    } catch (const ConfigFileError& e) {
        throw std::invalid_argument("lesson " + printable(file) + ": " + e.what());
    }
}

Lesson load_lesson_file(const std::filesystem::path& path) {
    constexpr size_t kMaxLessonBytes = 256 << 10;  // the longest lesson is a few KiB
    std::string text;
    try {
        text = read_input_file(path, kMaxLessonBytes);
    } catch (const InputFileError& e) {
        throw std::invalid_argument(fmt::format("cannot read lesson file {}: {}.", path.string(), e.what()));
    }
    try {
        return parse_lesson(parse_json_text(text), path.filename().string());
    } catch (const JsonTextError& e) {
        throw std::invalid_argument(fmt::format("lesson {}: {}", path.filename().string(), e.what()));
    }
}

const std::vector<Lesson>& builtin_lessons() {
    static const std::vector<Lesson> lessons = parse_lessons();
    return lessons;
}

const Lesson* find_lesson(std::string_view name) {
    return find_by_file_name(builtin_lessons(), name,
                             [](const Lesson&, const std::string&) { return false; });
}

std::string lesson_slugs() {
    return slug_list(builtin_lessons());
}

bool LessonOutcome::kept() const {
    return std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.held; });
}

std::string fill_answer(const std::string& text, const std::map<std::string, json>& metrics) {
    std::string out;
    size_t last = 0;
    for (const Placeholder& p : placeholders(text)) {
        out.append(text, last, p.at - last);
        last = p.at + p.length;
        auto of = [&](const std::string& run) {
            auto found = metrics.find(run);
            if (found == metrics.end())
                throw std::invalid_argument("the answer names no run \"" + run + "\"");
            return metric_value(found->second, p.metric);
        };
        if (!p.over.empty()) {
            const double over = of(p.over);
            out += over != 0 ? fmt::format("{:.2f}x", of(p.run) / over) : "n/a";
        } else {
            out += readable(p.metric, of(p.run));
        }
    }
    out.append(text, last);
    return out;
}

namespace {

// Each number of `measurements` (metrics_json objects of one config) replaced by its median, in objects and
// arrays alike; anything else (a name) as the first one has it.
json median_metrics(const std::vector<json>& measurements) {
    const json& first = measurements.front();
    if (first.is_number()) {
        std::vector<double> values;
        for (const json& m : measurements)
            if (m.is_number()) values.push_back(m.get<double>());
        return median(std::move(values));
    }
    json out = first;
    if (first.is_object()) {
        for (auto& [key, value] : out.items()) {
            std::vector<json> each;
            for (const json& m : measurements)
                if (m.is_object() && m.contains(key)) each.push_back(m[key]);
            value = median_metrics(each);
        }
    } else if (first.is_array()) {
        for (size_t i = 0; i < out.size(); ++i) {
            std::vector<json> each;
            for (const json& m : measurements)
                if (m.is_array() && m.size() == first.size()) each.push_back(m[i]);
            out[i] = median_metrics(each);
        }
    }
    return out;
}

// Every distinct config measured: the runs, then whatever else the checks name; then, if asked, each of
// them measured `times` in all and taken at its medians.
class LessonMeasurements {
  public:
    explicit LessonMeasurements(const Measure& measure) : measure_(measure) {}
    json operator()(const PipelineConfig& config) {
        for (const auto& [c, m] : measured_)
            if (c == config) return median_metrics(m);
        measured_.push_back({config, {measure_(config)}});
        return measured_.back().second.front();
    }
    size_t configs() const { return measured_.size(); }
    void measure_each_until(size_t times) {
        for (auto& [config, metrics] : measured_)
            while (metrics.size() < times) metrics.push_back(measure_(config));
    }

  private:
    const Measure& measure_;
    std::vector<std::pair<PipelineConfig, std::vector<json>>> measured_;
};

LessonOutcome outcome_of(const Lesson& lesson, const PipelineConfig& machine, LessonMeasurements& measured) {
    LessonOutcome outcome;
    const Measure once = [&](const PipelineConfig& config) { return measured(config); };
    for (size_t i = 0; i < lesson.runs.size(); ++i)
        outcome.metrics[lesson.runs[i].id] = once(lesson.run_config(i, machine));
    // What a promise about cores depends on, for the answer to state.
    outcome.metrics[std::string(kHostRun)] = {{"cores", std::max(1u, std::thread::hardware_concurrency())}};
    outcome.answer = fill_answer(lesson.answer, outcome.metrics);
    PipelineConfig base = config_from_json(lesson.config, PipelineConfig{});
    keep_machine_knobs(base, machine);
    outcome.checks = check_promise(lesson.promise, base, once);
    return outcome;
}

}  // namespace

LessonOutcome run_lesson(const Lesson& lesson, const PipelineConfig& machine, const Measure& measure,
                         const std::function<void(int)>& measuring_again) {
    LessonMeasurements measured(measure);
    LessonOutcome outcome = outcome_of(lesson, machine, measured);
    if (outcome.kept()) return outcome;
    // One run of a few seconds is one sample of a machine whose speed moves: on this project's 2-core VM
    // lesson 11's run with 2 workers measured 733 to 977 samples/s in six tries a minute apart, and its
    // promise missed once in five. A promise that misses is judged again on each run's median of three.
    if (measuring_again) measuring_again(static_cast<int>(2 * measured.configs()));
    measured.measure_each_until(kMeasurementsOnAMiss);
    outcome = outcome_of(lesson, machine, measured);
    outcome.measurements = kMeasurementsOnAMiss;
    return outcome;
}

}  // namespace pinscope
