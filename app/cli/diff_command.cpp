#include "app/cli/diff_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/capture_input.h"
#include "app/cli/usage_error.h"
#include "core/analysis/metrics_diff.h"
#include "core/config/knobs.h"

namespace pinscope {
namespace {

struct Side {
    Capture capture;
    Metrics metrics;
};

void print_diff(const Side& a, const Side& b) {
    fmt::print("A: {} ({}, recorded {})\n", a.capture.path.string(), a.capture.info.device.name,
               a.capture.info.created);
    fmt::print("B: {} ({}, recorded {})\n", b.capture.path.string(), b.capture.info.device.name,
               b.capture.info.created);
    const std::vector<KnobDifference> knobs = knob_differences(a.capture.info.config, b.capture.info.config);
    if (!a.capture.info.config || !b.capture.info.config) {
        fmt::print("config: {} has none to compare\n", a.capture.info.config ? "B" : "A");
    } else if (knobs.empty()) {
        fmt::print("config: the same\n");
    } else {
        fmt::print("config, A -> B\n");
        for (const KnobDifference& d : knobs) fmt::print("  {:<26} {} -> {}\n", d.knob->key, d.a, d.b);
    }
    fmt::print("{:<28} {:>14} {:>14}   {}\n", "metrics", "A", "B", "B against A");
    for (const MetricComparison& row : compare_metrics(a.metrics, b.metrics))
        fmt::print("  {:<26} {:>14} {:>14}   {}\n", (row.detail ? "  " : "") + row.name, row.a_text,
                   row.b_text, row.change);
}

nlohmann::json diff_json(const Side& a, const Side& b) {
    nlohmann::json j;
    j["a"] = {{"file", a.capture.path.string()}, {"device", a.capture.info.device.name}};
    j["b"] = {{"file", b.capture.path.string()}, {"device", b.capture.info.device.name}};
    j["config_differences"] = nlohmann::json::array();
    for (const KnobDifference& d : knob_differences(a.capture.info.config, b.capture.info.config))
        j["config_differences"].push_back({{"key", d.knob->key}, {"a", d.a}, {"b", d.b}});
    j["metrics"] = nlohmann::json::array();
    for (const MetricComparison& row : compare_metrics(a.metrics, b.metrics))
        j["metrics"].push_back({{"name", row.name}, {"a", row.a}, {"b", row.b}, {"change", row.change}});
    return j;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("diff", "Compare two captures: the knobs that differ and every metric");
    auto files = std::make_shared<std::vector<std::string>>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("files", *files, "Capture A, then capture B")
        ->required()
        ->expected(2)
        ->option_text("A B");
    cmd->add_flag("--json", *json, "Print the comparison as one JSON object");
    return {cmd, [files, json] {
                Side a{open_capture_for_cli((*files)[0]), {}};
                a.metrics = capture_metrics(a.capture);
                Side b{open_capture_for_cli((*files)[1]), {}};
                b.metrics = capture_metrics(b.capture);
                if (*json)
                    std::cout << diff_json(a, b).dump() << std::endl;
                else
                    print_diff(a, b);
                return kExitOk;
            }};
}

}  // namespace pinscope
