#include "app/cli/predictor_replay.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/predictor_figures.h"
#include "app/cli/usage_error.h"
#include "core/files/input_file.h"
#include "core/files/json_text.h"
#include "core/files/output_file.h"
#include "core/lab/random_configs.h"
#include "core/model/predict.h"
#include "core/model/recent_host_rates.h"

namespace pinscope {
namespace {

constexpr double kMostConfigs = 100000;  // what `--predictor-check N` allows

// One stored run, and the model's prediction of it then (in the file) and now.
struct Replayed {
    const StoredCheck* check = nullptr;
    const StoredRun* run = nullptr;
    double now = 0, now_stall = 0;
    double error_then() const { return relative_error(run->predicted, run->measured); }
    double error_now() const { return relative_error(now, run->measured); }
};

// A number field of `object`, or the reason it is not one.
double number_at(const nlohmann::json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>()))
        throw UsageError(
            fmt::format("{}: no number \"{}\"; give a file `pinscope bench --predictor-check N "
                        "--json` wrote.",
                        where, key));
    return it->get<double>();
}

// A file the user named, read and parsed as every such file is (core/files: bounded, strict JSON).
nlohmann::json read_json(const std::string& file) {
    constexpr size_t kMaxBytes = 64 << 20;  // a check of 200 configs takes 75 KiB
    std::string text;
    try {
        text = read_input_file(file, kMaxBytes);
    } catch (const InputFileError& e) {
        throw UsageError(fmt::format("{}: cannot be read ({}); name a file that exists.", file, e.what()));
    }
    try {
        return parse_json_text(text);
    } catch (const JsonTextError& e) {
        throw UsageError(
            fmt::format("{}: not JSON ({}); give a file `pinscope bench --predictor-check N "
                        "--json` wrote.",
                        file, e.what()));
    }
}

// The median of three measurements, kept in `file` (when named) for the next replay to reuse.
HostRates replay_rates(const std::string& file) {
    if (!file.empty() && std::filesystem::exists(file)) {
        const std::optional<KeptRates> kept = kept_rates_from_json(read_json(file));
        if (!kept || kept->measurements.empty())
            throw UsageError(
                fmt::format("--host-rates {}: not host rates this build measured; name a new file "
                            "(it is measured and written there) or one it wrote.",
                            file));
        std::vector<HostRates> each;
        for (const DatedRates& d : kept->measurements) each.push_back(d.rates);
        return median_of(each);
    }
    // Readied before measuring, under the output policy: a file that cannot be written says so at once,
    // not after 15 s of measuring, and the kept rates are written whole or not at all.
    OutputFile out;
    if (!file.empty()) {
        try {
            out = OutputFile(file, "the kept host rates");
        } catch (const OutputPathError& e) {
            throw UsageError(
                fmt::format("--host-rates {}: cannot be written ({}); name a file in a folder "
                            "that exists and is writable.",
                            file, e.problem()));
        }
    }
    KeptRates kept;
    kept.build = this_build();
    std::vector<HostRates> each;
    for (size_t i = 0; i < KeptRates::kKept; ++i) {
        each.push_back(measure_host_rates());
        kept.measurements.push_back({0, each.back()});
    }
    if (out) out.write(kept_rates_to_json(kept).dump() + "\n");
    return median_of(each);
}

int count_within(const std::vector<const Replayed*>& runs, double bound, bool now) {
    return static_cast<int>(std::count_if(runs.begin(), runs.end(), [&](const Replayed* r) {
        return std::abs(now ? r->error_now() : r->error_then()) <= bound;
    }));
}

nlohmann::json totals(const std::vector<const Replayed*>& runs) {
    const auto moved = [&](bool into) {
        return std::count_if(runs.begin(), runs.end(), [&](const Replayed* r) {
            const bool then = std::abs(r->error_then()) <= 0.10, now = std::abs(r->error_now()) <= 0.10;
            return into ? now && !then : then && !now;
        });
    };
    std::vector<double> stalls;
    for (const Replayed* r : runs)
        if (r->run->measured_stall) stalls.push_back(r->now_stall - *r->run->measured_stall);
    nlohmann::json t = {{"configs", runs.size()},
                        {"within_10pct_then", count_within(runs, 0.10, false)},
                        {"within_10pct_now", count_within(runs, 0.10, true)},
                        {"within_25pct_then", count_within(runs, 0.25, false)},
                        {"within_25pct_now", count_within(runs, 0.25, true)},
                        {"came_within_10pct", moved(true)},
                        {"left_10pct", moved(false)}};
    if (!stalls.empty()) t["stall_within_0.1_now"] = share_within(stalls, 0.10);
    return t;
}

std::string share_text(int n, size_t of) {
    return fmt::format("{} ({:.1f}%)", n, of ? 100.0 * n / static_cast<double>(of) : 0.0);
}

}  // namespace

StoredCheck read_stored_check(const std::string& file) {
    const nlohmann::json j = read_json(file);
    if (!j.is_object() || !j.contains("predictor_check") || !j["predictor_check"].is_object() ||
        !j.contains("configs") || !j["configs"].is_array())
        throw UsageError(
            fmt::format("{}: not a predictor check's results (no \"predictor_check\" and "
                        "\"configs\"); give a file `pinscope bench --predictor-check N --json` "
                        "wrote.",
                        file));
    const nlohmann::json& summary = j["predictor_check"];
    StoredCheck check;
    check.file = file;
    number_at(summary, "seed", file);
    if (!summary["seed"].is_number_unsigned())  // a seed the check can be given: 0 to 2^64 - 1, whole
        throw UsageError(fmt::format("{}: seed {} is not one `--seed` takes.", file, summary["seed"].dump()));
    check.seed = summary["seed"].get<uint64_t>();
    const double count = number_at(summary, "configs", file);
    check.seconds = number_at(summary, "seconds", file);
    if (count < 1 || count > kMostConfigs || count != std::floor(count) ||
        count != static_cast<double>(j["configs"].size()) || check.seconds <= 0)
        throw UsageError(fmt::format("{}: {} configs of {} s do not describe the {} results it holds.", file,
                                     count, check.seconds, j["configs"].size()));
    if (summary.contains("cores")) check.cores = static_cast<int>(number_at(summary, "cores", file));
    if (summary.contains("host") && summary["host"].is_string())
        check.host = summary["host"].get<std::string>();
    const std::vector<PipelineConfig> drawn = random_configs(check.seed, static_cast<int>(count));
    for (size_t i = 0; i < drawn.size(); ++i) {
        const nlohmann::json& stored = j["configs"][i];
        const std::string where = fmt::format("{}, config #{}", file, i);
        if (!stored.is_object() || !stored.contains("knobs") || !stored["knobs"].is_string())
            throw UsageError(fmt::format("{}: no \"knobs\".", where));
        StoredRun r;
        r.index = i;
        r.config = drawn[i];
        r.config.seconds = check.seconds;
        const std::string knobs = stored["knobs"].get<std::string>();
        if (knobs != knobs_of(r.config))
            throw UsageError(
                fmt::format("{}: seed {} draws \"{}\" in this build where the file ran \"{}\": the "
                            "random configs changed since, so these runs cannot be predicted "
                            "again.",
                            where, check.seed, knobs_of(r.config), knobs));
        r.measured = number_at(stored, "measured_samples_per_s", where);
        r.predicted = number_at(stored, "predicted_samples_per_s", where);
        if (r.measured < 0 || r.predicted < 0)
            throw UsageError(fmt::format("{}: samples/s below 0 (measured {}, predicted {}).", where,
                                         r.measured, r.predicted));
        if (stored.contains("measured_stall")) r.measured_stall = number_at(stored, "measured_stall", where);
        check.runs.push_back(std::move(r));
    }
    return check;
}

int run_predictor_replay(const std::vector<std::string>& files, const std::string& host_rates_file,
                         bool json) {
    std::vector<StoredCheck> checks;
    for (const std::string& file : files) checks.push_back(read_stored_check(file));
    const HostRates host = replay_rates(host_rates_file);
    // Per file, then all of them; each prediction on the same rates.
    std::vector<std::vector<Replayed>> replayed(checks.size());
    std::vector<const Replayed*> all;
    for (size_t f = 0; f < checks.size(); ++f) {
        for (const StoredRun& run : checks[f].runs) {
            const Metrics m = predict(run.config, calibration_for(run.config), host);
            replayed[f].push_back({&checks[f], &run, m.samples_per_s, m.stall});
        }
        for (const Replayed& r : replayed[f]) all.push_back(&r);
    }
    const auto pointers = [](const std::vector<Replayed>& runs) {
        std::vector<const Replayed*> p;
        for (const Replayed& r : runs) p.push_back(&r);
        return p;
    };
    // A file run on a host of other cores is predicted here on this host's rates: its "now" is another
    // host's model of those configs, not this build's of those runs.
    const auto other_host = [&](const StoredCheck& check) {
        return check.cores > 0 && check.cores != host.cores;
    };
    if (json) {
        nlohmann::json each_file = nlohmann::json::array(), each = nlohmann::json::array();
        for (size_t f = 0; f < checks.size(); ++f) {
            nlohmann::json t = totals(pointers(replayed[f]));
            t["file"] = checks[f].file;
            t["seed"] = checks[f].seed;
            t["ran_on_other_cores"] = other_host(checks[f]);
            each_file.push_back(std::move(t));
            for (const Replayed& r : replayed[f])
                each.push_back({{"file", r.check->file},
                                {"index", r.run->index},
                                {"knobs", knobs_of(r.run->config)},
                                {"measured_samples_per_s", r.run->measured},
                                {"predicted_then", r.run->predicted},
                                {"predicted_now", r.now}});
        }
        nlohmann::json summary = totals(all);
        summary["files"] = std::move(each_file);
        summary["host_rates"] = describe(host);
        std::cout << nlohmann::json{{"predictor_replay", summary}, {"configs", each}}.dump() << std::endl;
        return kExitOk;
    }
    fmt::print(
        "predictor replay: {} stored runs in {} files, predicted again on one set of this host's "
        "rates\n     this host now: {}\n",
        all.size(), checks.size(), describe(host));
    for (size_t f = 0; f < checks.size(); ++f) {
        const std::vector<const Replayed*> runs = pointers(replayed[f]);
        const StoredCheck& check = checks[f];
        fmt::print(
            "  {} (seed {}, {} configs of {} s): within 10% {} then, {} now; within 25% {} then, {} "
            "now{}\n",
            check.file, check.seed, runs.size(), check.seconds, count_within(runs, 0.10, false),
            count_within(runs, 0.10, true), count_within(runs, 0.25, false), count_within(runs, 0.25, true),
            other_host(check) ? fmt::format(" (ran on {} cores, predicted now on this host's {}: "
                                            "replay it where it ran)",
                                            check.cores, host.cores)
                              : "");
    }
    const nlohmann::json t = totals(all);
    fmt::print(
        "\nsamples/s within 10%: {} then, {} now; within 25%: {} then, {} now ('then': the predictions the "
        "files hold, made on the rates of their own host at the time)\n{} came within 10% and {} left it\n",
        share_text(t["within_10pct_then"], all.size()), share_text(t["within_10pct_now"], all.size()),
        share_text(t["within_25pct_then"], all.size()), share_text(t["within_25pct_now"], all.size()),
        t["came_within_10pct"].get<int>(), t["left_10pct"].get<int>());
    std::vector<const Replayed*> worst = all;
    std::sort(worst.begin(), worst.end(), [](const Replayed* a, const Replayed* b) {
        return std::abs(a->error_now()) > std::abs(b->error_now());
    });
    fmt::print("the worst now:\n");
    for (size_t i = 0; i < worst.size() && i < 8; ++i)
        fmt::print("  {:>8}  {} #{}  {}\n", error_text(worst[i]->error_now()), worst[i]->check->file,
                   worst[i]->run->index, knobs_of(worst[i]->run->config));
    return kExitOk;
}

}  // namespace pinscope
