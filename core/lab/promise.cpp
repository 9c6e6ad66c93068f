#include "core/lab/promise.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include <fmt/format.h>

#include "core/config/config_json.h"
#include "core/config/knobs.h"
#include "core/config/presets.h"
#include "core/config/validate.h"
#include "core/io/metrics_json.h"

namespace pinscope {
namespace {

using nlohmann::json;

// The run a check (or its `than`) names: the base, with knobs changed, or another preset on the same
// machine and for as long.
PipelineConfig run_of(const json& spec, const PipelineConfig& base) {
    PipelineConfig config = base;
    if (spec.contains("preset")) {
        const Preset* preset = find_preset(spec["preset"].get<std::string>());
        if (!preset) throw std::invalid_argument("promise names an unknown preset " + spec["preset"].dump());
        config = apply_preset(*preset, base);
        config.seconds = base.seconds;
        config.batches = base.batches;
        config.seed = base.seed;
    }
    if (spec.contains("with")) config = config_from_json(spec["with"], config);
    return config;
}

// A metric as a person reads it: "26950" rather than "2.695e+04", "0.3854" for a share.
std::string number(double v) {
    return std::fabs(v) >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
}

std::string describe_run(const json& spec) {
    std::string words;
    if (spec.contains("preset")) words = "preset " + spec["preset"].get<std::string>();
    if (spec.contains("with"))
        for (const auto& [key, value] : spec["with"].items())
            words += fmt::format("{}{}={}", words.empty() ? "" : ", ", key,
                                 value.is_string() ? value.get<std::string>() : value.dump());
    return words.empty() ? "the base run" : words;  // a run that changes nothing is the base itself
}

const json& metric_at(const json& metrics, const std::string& path) {
    const json* at = &metrics;
    size_t from = 0;
    for (;;) {
        const size_t dot = path.find('.', from);
        const std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        if (!at->is_object() || !at->contains(key))
            throw std::invalid_argument("promise names an unknown metric \"" + path + "\"");
        at = &(*at)[key];
        if (dot == std::string::npos) return *at;
        from = dot + 1;
    }
}

class Checker {
  public:
    Checker(const PipelineConfig& base, const Measure& measure) : base_(base), measure_(measure) {}

    CheckResult check(const json& c) {
        const std::string metric = c.at("metric").get<std::string>();
        const json& spec = c;  // "with" sits on the check itself
        const json& mine = metrics_of(run_of(spec, base_));
        const bool varied = spec.contains("with") || spec.contains("preset");
        const std::string where = varied ? " (" + describe_run(spec) + ")" : "";
        if (c.contains("largest_of")) return largest(metric, c["largest_of"].get<std::string>(), mine, where);
        const double value = metric_at(mine, metric).get<double>();
        for (const char* bound : {"at_least", "at_most"})
            if (c.contains(bound)) {
                const double limit = c[bound].get<double>();
                const bool held = std::string(bound) == "at_least" ? value >= limit : value <= limit;
                return {held,
                        fmt::format("{} {:.4g}{}, {} {:.4g}", metric, value, where, words(bound), limit)};
            }
        for (const char* bound : {"at_least_times", "at_most_times"})
            if (c.contains(bound)) {
                const json& than = c.at("than");
                if (than.contains("metric")) return against_metric(c, bound, value, mine, where);
                const double other = metric_at(metrics_of(run_of(than, base_)), metric).get<double>();
                const double factor = c[bound].get<double>();
                const bool held = std::string(bound) == "at_least_times" ? value >= factor * other
                                                                         : value <= factor * other;
                return {held, fmt::format("{} {}{}, {} {:.3g}x the {} of {}", metric, number(value), where,
                                          words(bound), factor, number(other), describe_run(than))};
            }
        // Shares compare by difference, not factor: "stall at least 0.3 lower than with no workers".
        for (const char* bound : {"lower_by_at_least", "higher_by_at_least"})
            if (c.contains(bound)) {
                const json& than = c.at("than");
                const double other = metric_at(metrics_of(run_of(than, base_)), metric).get<double>();
                const double by = c[bound].get<double>();
                const bool lower = std::string(bound) == "lower_by_at_least";
                const bool held = lower ? value <= other - by : value >= other + by;
                return {held, fmt::format("{} {}{}, at least {:.3g} {} than the {} of {}", metric,
                                          number(value), where, by, lower ? "lower" : "higher", number(other),
                                          describe_run(than))};
            }
        throw std::invalid_argument("promise check without a comparison: " + c.dump());
    }

  private:
    static const char* words(std::string_view bound) {
        if (bound == "at_least") return "at least";
        if (bound == "at_most") return "at most";
        if (bound == "at_least_times") return "at least";
        return "at most";
    }

    // {"metric": "h2d_busy", "at_least_times": 3, "than": {"metric": "gpu_busy"}}: two metrics of one run.
    CheckResult against_metric(const json& c, std::string_view bound, double value, const json& metrics,
                               const std::string& where) {
        const std::string metric = c["metric"].get<std::string>(),
                          other_metric = c["than"]["metric"].get<std::string>();
        const double other = metric_at(metrics, other_metric).get<double>();
        const double factor = c[std::string(bound)].get<double>();
        const bool held = bound == "at_least_times" ? value >= factor * other : value <= factor * other;
        return {held, fmt::format("{} {:.4g}{}, {} {:.3g}x {} {:.4g}", metric, value, where, words(bound),
                                  factor, other_metric, other)};
    }

    CheckResult largest(const std::string& metric, const std::string& group, const json& metrics,
                        const std::string& where) {
        const json& all = metric_at(metrics, group);
        const double value = metric_at(metrics, metric).get<double>();
        bool held = true;
        for (const auto& [key, share] : all.items()) held = held && share.get<double>() <= value;
        return {held,
                fmt::format("{} {:.4g}{}, the largest of {} {}", metric, value, where, group, all.dump())};
    }

    const json& metrics_of(const PipelineConfig& config) {
        for (const auto& [measured, metrics] : runs_)
            if (measured == config) return metrics;
        runs_.emplace_back(config, measure_(config));
        return runs_.back().second;
    }

    PipelineConfig base_;
    const Measure& measure_;
    std::deque<std::pair<PipelineConfig, json>> runs_;  // each distinct run measured once; stable references
};

// The shape of a run's metrics (metrics_json's keys, every stage's latency included): what a check may name.
const json& metrics_schema() {
    static const json schema = [] {
        Metrics m;
        for (int k = 0; k < kSpanKindCount; ++k) m.latencies.push_back(StageLatency{SpanKind(k)});
        return metrics_json(m);
    }();
    return schema;
}

constexpr const char* kNumberBounds[] = {"at_least",      "at_most",           "at_least_times",
                                         "at_most_times", "lower_by_at_least", "higher_by_at_least"};

// A metric a check names: a number (or, for largest_of, an object of numbers) in the schema.
void check_metric(const json& name, bool group, const std::string& where) {
    if (!name.is_string() || name.get<std::string>().empty())
        throw std::invalid_argument(where + " should name a metric as a string, such as \"samples_per_s\"");
    const std::string path = name.get<std::string>();
    const json& at = metric_at(metrics_schema(), path);  // throws for an unknown metric
    const bool ok = group ? at.is_object() &&
                                std::all_of(at.begin(), at.end(), [](const json& v) { return v.is_number(); })
                          : at.is_number();
    if (!ok)
        throw std::invalid_argument(fmt::format("{} names \"{}\", which is not {}", where, path,
                                                group ? "a group of shares such as idle" : "a number"));
}

// The run a check (or its `than`) names can be built and validated over `base`.
void check_run(const json& spec, const PipelineConfig& base, const std::string& where) {
    if (spec.contains("preset") && !spec["preset"].is_string())
        throw std::invalid_argument(where + "'s \"preset\" should be a preset's name");
    if (spec.contains("preset") && !find_preset(spec["preset"].get<std::string>()))
        throw std::invalid_argument(where + " names an unknown preset " + spec["preset"].dump());
    if (spec.contains("with") && !spec["with"].is_object())
        throw std::invalid_argument(where + "'s \"with\" should be an object of knobs");
    if (spec.contains("run"))
        throw std::invalid_argument(where + " names a run, which only a lesson's checks may do");
    PipelineConfig config;
    try {
        config = run_of(spec, base);
    } catch (const ConfigFileError& e) {
        throw std::invalid_argument(fmt::format("{}: {}", where, e.what()));
    }
    const Validation validation = validate(config);
    if (!validation.ok())
        throw std::invalid_argument(
            fmt::format("{} names a run that would not run: {}", where, describe(validation.errors.front())));
}

void check_one(const json& c, const PipelineConfig& base, const std::string& where) {
    if (!c.is_object()) throw std::invalid_argument(where + " should be an object");
    if (!c.contains("metric")) throw std::invalid_argument(where + " names no \"metric\"");
    const bool largest = c.contains("largest_of");
    check_metric(c["metric"], false, where);
    check_run(c, base, where);
    int comparisons = largest;
    if (largest) check_metric(c["largest_of"], true, where + "'s largest_of");
    for (const char* bound : kNumberBounds) {
        if (!c.contains(bound)) continue;
        ++comparisons;
        if (!c[bound].is_number() || !std::isfinite(c[bound].get<double>()))
            throw std::invalid_argument(fmt::format("{}'s \"{}\" should be a finite number", where, bound));
        const std::string_view name(bound);
        const bool needs_than = name.ends_with("_times") || name.ends_with("_by_at_least");
        if (!needs_than) continue;
        if (!c.contains("than") || !c["than"].is_object())
            throw std::invalid_argument(
                fmt::format("{}'s \"{}\" needs a \"than\" object to compare with", where, bound));
        const json& than = c["than"];
        if (than.contains("metric") && std::string_view(bound).ends_with("_times"))
            check_metric(than["metric"], false, where + "'s than");
        else
            check_run(than, base, where + "'s than");
    }
    if (comparisons != 1)
        throw std::invalid_argument(where +
                                    " should have exactly one comparison (at_least, at_most, "
                                    "at_least_times, at_most_times, lower_by_at_least, "
                                    "higher_by_at_least or largest_of)");
}

}  // namespace

void validate_promise(const json& promise, const PipelineConfig& base) {
    if (!promise.is_object() || !promise.contains("checks") || !promise["checks"].is_array() ||
        promise["checks"].empty())
        throw std::invalid_argument(
            "a promise is {\"text\": ..., \"checks\": [...]} with at least one check");
    if (promise.contains("text") && !promise["text"].is_string())
        throw std::invalid_argument("a promise's \"text\" should be a string");
    for (size_t i = 0; i < promise["checks"].size(); ++i)
        check_one(promise["checks"][i], base, fmt::format("promise check {}", i + 1));
}

std::vector<CheckResult> check_promise(const json& promise, const PipelineConfig& base,
                                       const Measure& measure) {
    validate_promise(promise, base);
    Checker checker(base, measure);
    std::vector<CheckResult> results;
    for (const json& c : promise["checks"]) {
        CheckResult r = checker.check(c);
        r.line += r.held ? ": held" : ": NOT held";
        results.push_back(std::move(r));
    }
    return results;
}

}  // namespace pinscope
