// The `pinscope` executable end to end: exit codes, one-line errors, the JSON summary, the trace file.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli_words.h"
#include "app/cli/predictor_figures.h"
#include "app/cli/predictor_replay.h"
#include "app/cli/usage_error.h"
#include "run_binary.h"
#include "scratch.h"
#include "tests/knob_values.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

using Result = BinaryResult;

size_t lines(const std::string& text) {
    return line_count(text);
}

std::filesystem::path temp_path(const std::string& name) {
    return testing::scratch_path(name);
}

}  // namespace

TEST_CASE("bad input exits 2 with one line naming the option and the fix") {
    std::ofstream(temp_path("pinscope_malformed.json")) << "{\"num_workers\": 2,, }";
    const std::map<std::string, std::string> cases = {
        {"--num-workers -1",
         "--num-workers -1: num_workers option should be non-negative; use --num-workers 0"},
        {"--num-workers 0 --prefetch-factor 2",
         "--prefetch-factor 2: prefetch_factor option could only be specified"},
        {"--batch-size 0", "--batch-size 0: batch_size should be a positive integer value"},
        {"--bogus", "--bogus"},
        {"--config " + temp_path("pinscope_malformed.json").string(), "not valid JSON at line 1"},
        {"--config /nonexistent/pinscope.json", "cannot read config file"},
        {"--sample-shape 3x", "--sample-shape 3x"},
        {"--num-workers abc", "--num-workers"},
        {"--trace /nonexistent/t.json", "--trace /nonexistent/t.json"},
        {"--streams 0", "--streams 0"},
    };
    for (const auto& [args_bound, expected] : cases) {
        const auto& args = args_bound;  // CAPTURE's lambda cannot take a structured binding in clang 14
        CAPTURE(args);
        const Result r = run_pinscope("run --device sim --seconds 1 " + args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(expected) != std::string::npos);
        CHECK(r.out.empty());
    }
}

TEST_CASE("--help lists a flag for every knob, with its help text") {
    const Result r = run_pinscope("run --help");
    CHECK(r.exit_code == 0);
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        CHECK(r.out.find(flag_for(knob.key)) != std::string::npos);
        CHECK(r.out.find(std::string(knob.help)) != std::string::npos);
        if (knob.type == KnobType::boolean)
            CHECK(r.out.find(negated_flag_for(knob.key)) != std::string::npos);
    }
    for (const char* flag : {"--config", "--trace", "--json", "--save-config"})
        CHECK(r.out.find(flag) != std::string::npos);
    CHECK(r.out.find("3x224x224") != std::string::npos);  // defaults are shown
    CHECK(run_pinscope("--help").out.find("run") != std::string::npos);
}

TEST_CASE("--help shows each knob's true default") {
    const Result r = run_pinscope("run --help");
    const PipelineConfig defaults;
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        // The option's text: from its flag to the next option.
        const size_t at = r.out.find("  " + flag_for(knob.key));
        REQUIRE(at != std::string::npos);
        const std::string text = r.out.substr(at, r.out.find("\n  --", at + 3) - at);
        CAPTURE(text);
        if (knob.type == KnobType::boolean) {
            CHECK(text.find(knob.get(defaults).get<bool>() ? "(default: on)" : "(default: off)") !=
                  std::string::npos);
            CHECK(text.find("{false}") ==
                  std::string::npos);  // CLI11's negation mark, which read as a default
        } else {
            const std::string shown = '=' + knob.label(defaults);
            CHECK(text.find(shown) != std::string::npos);
        }
    }
}

TEST_CASE("every knob's flag sets it: one run given them all saves each value") {
    std::string args;
    for (const Knob& knob : knobs()) {
        const nlohmann::json value = non_default_value(knob);
        args += ' ';
        if (knob.type != KnobType::boolean)
            args += flag_for(knob.key) + ' ' + typed(value);
        else
            args += value.get<bool>() ? flag_for(knob.key) : negated_flag_for(knob.key);
    }
    const auto file = temp_path("pinscope_cli_every_knob.json");
    const Result r = run_pinscope("run" + args + " --save-config " + file.string());
    CAPTURE(args);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    const auto saved = nlohmann::json::parse(slurp(file));
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        CHECK(saved[std::string(knob.key)] == non_default_value(knob));
    }
    std::filesystem::remove(file);
}

TEST_CASE("every out-of-range value exits 2 with the table's message, naming the flag") {
    for (const Knob& knob : knobs()) {
        for (const nlohmann::json& value : out_of_range_values(knob)) {
            const std::string given = flag_for(knob.key) + " " + typed(value);
            CAPTURE(given);
            const Result r = run_pinscope("run --device sim " + given);  // refused before it runs
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(lines(r.err) == 1);
            CHECK(r.err.find(given + ": " + cli_words(table_message(knob, value))) != std::string::npos);
        }
    }
}

TEST_CASE("run --json prints one JSON object with the summary, fractions in 0..1") {
    const Result r = run_pinscope("run --device sim --seconds 1 --json --sample-shape 3x32x32");
    REQUIRE(r.exit_code == 0);
    CHECK(lines(r.out) == 1);
    const auto j = nlohmann::json::parse(r.out);
    for (const char* key :
         {"samples_per_s", "batches_per_s", "h2d_gbps", "gpu_busy", "overlap", "stall", "outstanding_max"})
        CHECK(j.contains(key));
    CHECK(j["samples_per_s"].get<double>() > 0);
    for (const char* fraction : {"gpu_busy", "overlap", "stall", "pageable_h2d_fraction"}) {
        CAPTURE(fraction);
        CHECK(j[fraction].get<double>() >= 0);
        CHECK(j[fraction].get<double>() <= 1);
    }
    CHECK(j["device"]["kind"] == "sim");
    CHECK(j["state"] == "finished");
}

// Runs `args` on the simulated GPU for 3 s and returns its --json summary.
nlohmann::json summary_of(const std::string& args) {
    const Result r = run_pinscope("run --device sim --seconds 3 --json " + args);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
}

// The name of the largest idle cause, after checking that the causes add up to the GPU's idle time.
std::string largest_idle_cause(const nlohmann::json& j) {
    double sum = 0, largest = -1;
    std::string name;
    for (const auto& [cause, share] : j["idle"].items()) {
        sum += share.get<double>();
        if (share.get<double>() > largest) {
            largest = share.get<double>();
            name = cause;
        }
    }
    CAPTURE(j["idle"].dump());
    CHECK(std::abs(sum - (1.0 - j["gpu_busy"].get<double>())) <= 0.02);
    return name;
}

TEST_CASE("a pageable run's GPU idle time is mostly the train loop staging copies") {
    // uint8 batches: the workers' convert is then a copy, which the ASan build slows no more than the
    // staging. With float32 its instrumented convert loop fell behind on this project's 2-core VM (idle
    // waiting for the loader 0.38-0.44 of the run against staging 0.48-0.53; the loader's the larger one
    // run in five), where the Release build gave 0.04 against 0.79. uint8: 0.01 against 0.47-0.52 in both.
    const nlohmann::json j = summary_of("--no-pin-memory --transfer-dtype uint8");
    CHECK(largest_idle_cause(j) == "pageable_staging");
    CHECK(j["stall"] == j["idle"]["loader"]);  // stall keeps its meaning: the loader's share
}

TEST_CASE("a loader-starved run's GPU idle time is the loader's") {
    CHECK(largest_idle_cause(summary_of("--num-workers 1 --io-us 200")) == "loader");
}

TEST_CASE("a run of blocking copies is idle mostly waiting for copies") {
    // Tiny batches (the loader keeps up), a 64 MiB result copied back with non_blocking=False: the train
    // loop blocks in each copy, and while it does the GPU waits for the copy, not for the loop.
    const nlohmann::json j = summary_of(
        "--no-non-blocking --sample-shape 3x8x8 --batch-size 8 --d2h-bytes 67108864 --kernel-us 100");
    CHECK(largest_idle_cause(j) == "copies");
    CHECK(j["copy_busy"].get<double>() > j["gpu_busy"].get<double>());  // the copy engines were the busy ones
}

TEST_CASE("a run with 4 workers writes a Chrome trace with named threads, every stage and a capped counter") {
    const auto trace = temp_path("pinscope_cli_trace.json");
    std::filesystem::remove(trace);
    const Result r = run_pinscope(
        "run --device sim --num-workers 4 --prefetch-factor 2 --pin-memory --seconds 3 --trace " +
        trace.string());
    REQUIRE(r.exit_code == 0);
    for (const char* shown : {"samples/s", "H2D", "overlap", "GPU idle"})
        CHECK(r.out.find(shown) != std::string::npos);

    const auto j = nlohmann::json::parse(slurp(trace));
    std::set<std::string> threads, spans;
    double outstanding_max = -1;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name")
            threads.insert(e["args"]["name"].get<std::string>());
        if (e["ph"] == "X") spans.insert(e["name"].get<std::string>());
        if (e["ph"] == "C" && e["name"] == "outstanding batches")
            outstanding_max = std::max(outstanding_max, e["args"]["value"].get<double>());
    }
    for (const char* thread : {"train loop", "worker 0", "worker 3", "pin thread", "stream 0 H2D",
                               "stream 0 kernel", "stream 0 D2H"})
        CHECK_MESSAGE(threads.count(thread) == 1, "no thread named ", thread);
    for (const char* kind : {"fetch", "pin", "h2d", "kernel", "d2h"})
        CHECK_MESSAGE(spans.count(kind) == 1, "no span named ", kind);
    CHECK(outstanding_max >= 1);
    CHECK(outstanding_max <= 2 * 4);
    std::filesystem::remove(trace);
}

TEST_CASE("a run without pinning shows the staging time on the train loop's thread") {
    const auto trace = temp_path("pinscope_cli_pageable.json");
    const Result r = run_pinscope(
        "run --device sim --no-pin-memory --batches 10 --seconds 0 --sample-shape 3x64x64 --trace " +
        trace.string());
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(slurp(trace));
    std::map<std::pair<int, int>, std::string> thread_names;
    for (const auto& e : j["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name")
            thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    int staged = 0, pageable_h2d = 0;
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] != "X") continue;
        if (e["name"] == "stage") {
            CHECK(thread_names[{e["pid"], e["tid"]}] == "train loop");
            CHECK(e["args"]["memory"] == "pageable");
            ++staged;
        }
        if (e["name"] == "h2d" && e["args"]["memory"] == "pageable") ++pageable_h2d;
    }
    CHECK(pageable_h2d == 10);
    CHECK(staged >= 10);
    std::filesystem::remove(trace);
}

TEST_CASE("a worker's error at run time exits 1 with PyTorch's message") {
    const Result r = run_pinscope("run --device sim --seconds 5 --sample-shape 3x8x8 --fail-at-sample 0");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("Caught ValueError in DataLoader worker process 0. Original: sample 0 is corrupt") !=
          std::string::npos);
}

TEST_CASE("--save-config writes a config that --config reads back") {
    const auto file = temp_path("pinscope_cli_saved.json");
    REQUIRE(run_pinscope("run --num-workers 3 --batch-size 16 --save-config " + file.string()).exit_code ==
            0);
    const auto j = nlohmann::json::parse(slurp(file));
    CHECK(j["num_workers"] == 3);
    CHECK(j["batch_size"] == 16);
    const Result r = run_pinscope("run --device sim --config " + file.string() +
                                  " --seconds 1 --json --sample-shape 3x8x8");
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["config"]["num_workers"] == 3);
    std::filesystem::remove(file);
}

namespace {

std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            fields.emplace_back();
        else
            fields.back() += c;
    }
    return fields;
}

}  // namespace

TEST_CASE(
    "sweep runs each distinct config with progress on stderr, a table and the best on stdout, and a CSV") {
    const auto csv = temp_path("sweep.csv");
    const Result r = run_pinscope(
        "sweep --device sim --num-workers 0..1 --prefetch-factor 1,2 --pin-memory both --seconds-each 0.2 "
        "--batch-size 8 --sample-shape 3x32x32 --kernel-us 100 --csv " +
        csv.string());
    CAPTURE(r.err);
    CAPTURE(r.out);
    REQUIRE(r.exit_code == 0);
    // num_workers=0 leaves prefetch_factor unset: 8 cells, 6 configs.
    CHECK(r.err.find("sweep: 8 configs (2 num_workers x 2 prefetch_factor x 2 pin_memory); 6 distinct run, 2 "
                     "cells repeat another's config (prefetch_factor does not apply there)") !=
          std::string::npos);
    for (int i = 1; i <= 6; ++i) {
        // Appended, not "[" + ... + "...": GCC 12 warns of an overlapping memcpy in that operator+ chain
        // (-Wrestrict, a known false positive).
        std::string progress = "[";
        progress += std::to_string(i);
        progress += "/6] num_workers=";
        CHECK(r.err.find(progress) != std::string::npos);
    }
    CHECK(r.err.find("[7/6]") == std::string::npos);
    // Then the leaders again: at least the two fastest, twice each.
    CHECK(r.err.find("[again 1/") != std::string::npos);
    CHECK(r.out.find(" runs ") != std::string::npos);
    CHECK(r.err.find("eta") != std::string::npos);
    CHECK(r.out.find("[1/6]") == std::string::npos);  // progress goes to stderr only
    CHECK(r.out.find("num_workers  prefetch_factor  pin_memory") != std::string::npos);
    CHECK(r.out.find("best: num_workers=") != std::string::npos);
    CHECK(r.out.find("x the slowest)") != std::string::npos);
    CHECK(r.out.find("run it: pinscope run --num-workers ") != std::string::npos);
    CHECK(r.out.find("--batch-size 8 --sample-shape 3x32x32 --kernel-us 100 --device sim\n") !=
          std::string::npos);
    CHECK(r.out.find("<- best") != std::string::npos);

    std::istringstream rows(slurp(csv));
    std::string line;
    REQUIRE(std::getline(rows, line));
    const std::vector<std::string> header = csv_fields(line);
    REQUIRE(header.size() == 13);
    CHECK(header[0] == "num_workers");
    CHECK(header[3] == "samples_per_s");
    CHECK(header[11] == "runs");
    CHECK(header.back() == "error");
    std::set<std::string> configs;
    while (std::getline(rows, line)) {
        const std::vector<std::string> fields = csv_fields(line);
        CAPTURE(line);
        REQUIRE(fields.size() == 13);
        CHECK(std::stod(fields[3]) > 0);
        CHECK(fields.back().empty());
        if (fields[0] == "0") CHECK(fields[1] == "unset");
        configs.insert(fields[0] + fields[1] + fields[2]);
    }
    CHECK(configs.size() == 6);
}

TEST_CASE("sweep --json prints the rows and the best as one object") {
    const Result r = run_pinscope(
        "sweep --device sim --num-workers 1,2 --seconds-each 0.2 --batch-size 8 "
        "--sample-shape 3x32x32 --json");
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["configs"] == 2);
    REQUIRE(j["results"].size() == 2);
    CHECK(j["results"][0]["config"]["num_workers"] == 1);
    CHECK(j["results"][1]["samples_per_s"].get<double>() > 0);
    CHECK(j["best"].is_number());
    CHECK(j["best_command"].get<std::string>().starts_with("pinscope run"));
    // Both configs are the two fastest: each ran three times, and the spread of its runs sets the tie.
    for (const nlohmann::json& row : j["results"]) CHECK(row["runs"].size() == 3);
    CHECK(j["tie"].get<double>() >= 0.02);
    CHECK(j["tie"].get<double>() >= j["run_spread"].get<double>());
    CHECK(j["tied"].size() >= 1);
}

TEST_CASE("a bad sweep spec exits 2 with one line naming the flag and the fix") {
    const std::map<std::string, std::string> cases = {
        {"--num-workers 0..300",
         "--num-workers 0..300: num_workers should be between 0 and 256; use fewer workers."},
        {"--num-workers two", "--num-workers two: num_workers should be an integer, not \"two\"; use a..b"},
        {"--prefetch-factor 0..2", "--prefetch-factor 0..2: prefetch_factor option should be at least 1"},
        {"--pin-memory maybe",
         "--pin-memory maybe: pin_memory should be true or false, not \"maybe\"; use both"},
        {"--decode-us 0..100", "--decode-us 0..100: a range of decode_us needs a step"},
        {"--pin-mode fast", "--pin-mode fast: pin_mode should be one of thread, direct"},
        {"--seconds-each 0", "--seconds-each"},
        {"--csv /nonexistent/sweep.csv",
         "--csv /nonexistent/sweep.csv: the folder /nonexistent does not exist"},
    };
    for (const auto& [args_bound, expected] : cases) {
        const auto& args = args_bound;  // CAPTURE's lambda cannot take a structured binding in clang 14
        CAPTURE(args);
        const Result r = run_pinscope("sweep --device sim --batch-size 8,16 " + args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(expected) != std::string::npos);
        CHECK(r.out.empty());
    }
}

TEST_CASE("README's command table lists every command the binary has, and docs/design.md exists") {
    const Result help = run_pinscope("--help");
    REQUIRE(help.exit_code == 0);
    const std::string out = help.out;
    const size_t section = out.find("Subcommands:");
    REQUIRE(section != std::string::npos);
    std::istringstream rows(out.substr(section));
    std::string line;
    std::getline(rows, line);  // the heading
    const std::string readme = slurp(std::string(PINSCOPE_SOURCE_DIR) + "/README.md");
    int commands = 0;
    while (std::getline(rows, line)) {
        std::istringstream words(line);
        std::string name;
        if (!(words >> name)) continue;
        CAPTURE(name);
        CHECK(readme.find("| `" + name + "` |") != std::string::npos);
        ++commands;
    }
    CHECK(commands >= 13);
    CHECK(std::filesystem::exists(std::string(PINSCOPE_SOURCE_DIR) + "/docs/design.md"));
}

TEST_CASE(
    "run --naive-benchmark reports its stopwatch and start-up, and predict says it has nothing to model") {
    const Result pageable =
        run_pinscope("run --device sim --naive-benchmark --no-pin-memory --batch-size 8 --json");
    CAPTURE(pageable.err);
    REQUIRE(pageable.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(pageable.out);
    // The context was made inside the pageable stopwatch: it holds the start-up, and more.
    CHECK(j["startup_ms"].get<double>() > 0);
    CHECK(j["stopwatch_ms"].get<double>() >= j["startup_ms"].get<double>());
    const Result text = run_pinscope("run --device sim --naive-benchmark --spawned-child --batch-size 8");
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("naive stopwatch") != std::string::npos);
    CHECK(text.out.find("copied in a spawned child (unpinned there)") != std::string::npos);
    const Result predicted = run_pinscope("predict --naive-benchmark");
    CHECK(predicted.exit_code == 2);
    CHECK(predicted.err.find("one cold copy, not a pipeline") != std::string::npos);
}

// Each invocation measures this host once until three measurements are kept (XDG_CACHE_HOME: this test's
// own folder), and answers on their median; --fresh-rates takes one now and leaves the kept ones alone.
TEST_CASE("predict answers on the median of the measurements it kept, and --fresh-rates on one taken now") {
    const std::filesystem::path cache = scratch_path("xdg-cache");
    const std::filesystem::path kept = cache / "pinscope" / "host-rates.json";
    const auto predict = [&](const std::string& args) {
        return run_binary(
            "/bin/sh", {"-c", "XDG_CACHE_HOME=" + cache.string() + " exec " + std::string(PINSCOPE_BINARY) +
                                  " predict --seconds 1 " + args});
    };
    const auto kept_count = [&] { return nlohmann::json::parse(slurp(kept))["measurements"].size(); };

    const Result first = predict("--json");
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    const nlohmann::json one = nlohmann::json::parse(first.out)["host_rates"];
    CHECK(one["measurements"] == 1);
    CHECK(one["measured_now"] == true);
    CHECK(kept_count() == 1);

    const Result second = predict("");
    REQUIRE(second.exit_code == 0);
    CHECK(second.out.find("the median of 2 measurements") != std::string::npos);
    CHECK(second.out.find(kept.string()) != std::string::npos);
    CHECK(kept_count() == 2);

    const Result fresh = predict("--fresh-rates --json");
    REQUIRE(fresh.exit_code == 0);
    CHECK(nlohmann::json::parse(fresh.out)["host_rates"]["measurements"] == 1);
    CHECK(kept_count() == 2);
}

// advise predicts the ideal of a capture's config: on the same kept measurements as predict, so a
// measurement either takes counts for the other (when three are kept neither measures: the predict case
// above, and recent_host_rates_test). Two measurements: under AddressSanitizer each takes 20 s or more.
TEST_CASE("advise and predict share the host's kept measurements") {
    const std::filesystem::path cache = scratch_path("xdg-cache-shared");
    const std::filesystem::path kept = cache / "pinscope" / "host-rates.json";
    const auto pinscope = [&](const std::string& args) {
        return run_binary("/bin/sh", {"-c", "XDG_CACHE_HOME=" + cache.string() + " exec " +
                                                std::string(PINSCOPE_BINARY) + " " + args});
    };
    const std::string capture =
        std::string(PINSCOPE_SOURCE_DIR) + "/assets/captures/h100-transfer-bound-pinned.pinscope";

    const Result advised = pinscope("advise --json " + capture);
    CAPTURE(advised.err);
    REQUIRE(advised.exit_code == 0);
    CHECK(nlohmann::json::parse(advised.out)["ideal_samples_per_s"].is_number());
    CHECK(nlohmann::json::parse(slurp(kept))["measurements"].size() == 1);

    const Result predicted = pinscope("predict --seconds 1 --json");
    REQUIRE(predicted.exit_code == 0);
    const nlohmann::json rates = nlohmann::json::parse(predicted.out)["host_rates"];
    CHECK(rates["measurements"] == 2);  // advise's and its own
    CHECK(rates["measured_now"] == true);
    CHECK(nlohmann::json::parse(slurp(kept))["measurements"].size() == 2);
}

TEST_CASE(
    "bench --predictor-check --repeat judges each config against a run and says how far a second run is") {
    const Result r = run_pinscope("bench --predictor-check 2 --seed 1 --seconds 0.2 --repeat --json");
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& summary = j["predictor_check"];
    CHECK(summary["configs"] == 2);
    for (const char* share : {"samples_per_s_within_10pct", "samples_per_s_within_25pct", "stall_within_0.1",
                              "runs_agree_within_10pct", "runs_agree_within_25pct"}) {
        CAPTURE(share);
        REQUIRE(summary.contains(share));
        CHECK(summary[share].get<double>() >= 0);
        CHECK(summary[share].get<double>() <= 1);
    }
    // Within 10% is a part of within 25%.
    CHECK(summary["runs_agree_within_10pct"].get<double>() <=
          summary["runs_agree_within_25pct"].get<double>());
    REQUIRE(j["configs"].size() == 2);
    // Each config has both runs and a prediction. Any of them may be 0 (no batch within 0.2 s: under
    // AddressSanitizer the model, on the slowed host's rates, predicted none for one config).
    for (const nlohmann::json& c : j["configs"]) {
        CHECK(c["measured_samples_per_s"].get<double>() >= 0);
        CHECK(c["again_samples_per_s"].get<double>() >= 0);
        CHECK(c["predicted_samples_per_s"].get<double>() >= 0);
    }
}

TEST_CASE("bench --predictor-replay refuses what is not a check this build can draw again") {
    const std::filesystem::path file = temp_path("pinscope_replay_bad.json");
    const std::filesystem::path rates = temp_path("pinscope_replay_not_rates.json");
    std::ofstream(rates) << "{\"build\": \"x\"}";
    const auto refused = [&](const std::string& content, const std::string& expected,
                             const std::string& more = "") {
        std::ofstream(file) << content;
        const Result r = run_pinscope("bench --predictor-replay " + file.string() + more);
        CAPTURE(content);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(expected) != std::string::npos);
    };
    refused("{\"predictor_check\": ", "not JSON");
    refused("[1, 2]", "not a predictor check's results");
    refused(R"({"predictor_check": {"seed": 7, "configs": 1}, "configs": [{}]})", "no number \"seconds\"");
    refused(R"({"predictor_check": {"seed": -7, "configs": 1, "seconds": 1}, "configs": [{}]})",
            "seed -7 is not one `--seed` takes");
    refused(R"({"predictor_check": {"seed": 7, "configs": 2, "seconds": 1}, "configs": [{}]})",
            "do not describe the 1 results");
    refused(
        R"({"predictor_check": {"seed": 7, "configs": 1, "seconds": 1}, "configs": [{"knobs": "num_workers=3"}]})",
        "config #0: seed 7 draws");
    const std::string drawn = knobs_of(
        read_stored_check(std::string(PINSCOPE_SOURCE_DIR) + "/assets/predictor-runs/seed-3030-vm.json")
            .runs[0]
            .config);
    refused(R"({"predictor_check": {"seed": 3030, "configs": 1, "seconds": 2}, "configs": [{"knobs": ")" +
                drawn + R"("}]})",
            "no number \"measured_samples_per_s\"");
    refused(R"({"predictor_check": {"seed": 3030, "configs": 1, "seconds": 2}, "configs": [{"knobs": ")" +
                drawn + R"(", "measured_samples_per_s": 1, "predicted_samples_per_s": 1}]})",
            "--host-rates " + rates.string() + ": not host rates", " --host-rates " + rates.string());
    // A rates file that cannot be written is refused before the host is measured.
    refused(R"({"predictor_check": {"seed": 3030, "configs": 1, "seconds": 2}, "configs": [{"knobs": ")" +
                drawn + R"(", "measured_samples_per_s": 1, "predicted_samples_per_s": 1}]})",
            "--host-rates /nonexistent/rates.json: cannot be written",
            " --host-rates /nonexistent/rates.json");
    const Result missing = run_pinscope("bench --predictor-replay /nonexistent/check.json");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("/nonexistent/check.json: cannot be read") != std::string::npos);
    const Result folder = run_pinscope("bench --predictor-replay " + file.parent_path().string());
    CHECK(folder.exit_code == 2);
    CHECK(folder.err.find("it is a folder, not a file") != std::string::npos);
    const Result alone = run_pinscope("bench --host-rates " + rates.string());
    CHECK(alone.exit_code == 2);
    CHECK(alone.err.find("--host-rates goes with --predictor-replay") != std::string::npos);
}

TEST_CASE("the stored predictor runs are drawn the same by this build, so a model change can replay them") {
    // Changing the random configs leaves every file in assets/predictor-runs/ about configs nobody draws
    // any more: this fails first, and says which.
    int files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PINSCOPE_SOURCE_DIR) + "/assets/predictor-runs")) {
        if (entry.path().extension() != ".json") continue;
        CAPTURE(entry.path());
        StoredCheck check;
        try {
            check = read_stored_check(entry.path().string());
        } catch (const UsageError& e) {
            FAIL(e.what());
        }
        ++files;
        CHECK(check.runs.size() >= 75);
        CHECK((check.cores == 2 || check.cores == 16));
        for (const StoredRun& run : check.runs) CHECK(run.measured >= 0);
    }
    CHECK(files >= 20);
}

TEST_CASE(
    "bench --predictor-check --passes judges each config on the medians of its passes, each run on stderr as "
    "it ends") {
    const Result r = run_pinscope("bench --predictor-check 2 --seed 1 --seconds 0.2 --passes 2 --json");
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    // Each run also went to stderr as it ended, one JSON line, so a check stopped by a time limit keeps
    // them: two passes of two configs, in the order they ran, as the document has them at the end.
    std::vector<nlohmann::json> runs;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("{")) runs.push_back(nlohmann::json::parse(line));
    REQUIRE(runs.size() == 4);
    for (size_t n = 0; n < runs.size(); ++n) {
        const nlohmann::json& run = runs[n];
        CHECK(run["pass"] == 1 + n / 2);
        CHECK(run["config"] == n % 2);
        const nlohmann::json& config = j["configs"][n % 2];
        CHECK(run["knobs"] == config["knobs"]);
        const nlohmann::json& pass = config["passes"][n / 2];
        CHECK(run["measured_samples_per_s"] == pass["measured_samples_per_s"]);
        CHECK(run["predicted_samples_per_s"] == pass["predicted_samples_per_s"]);
    }
    const nlohmann::json& summary = j["predictor_check"];
    CHECK(summary["passes"] == 2);
    for (const char* share :
         {"first_pass_samples_per_s_within_10pct", "first_pass_samples_per_s_within_25pct",
          "passes_agree_within_10pct", "passes_agree_within_25pct"}) {
        CAPTURE(share);
        REQUIRE(summary.contains(share));
        CHECK(summary[share].get<double>() >= 0);
        CHECK(summary[share].get<double>() <= 1);
    }
    CHECK(summary["passes_agree_within_10pct"].get<double>() <=
          summary["passes_agree_within_25pct"].get<double>());
    REQUIRE(j["configs"].size() == 2);
    for (const nlohmann::json& c : j["configs"]) {
        const nlohmann::json& passes = c["passes"];
        REQUIRE(passes.size() == 2);
        // The median of two passes is the upper one (median.h), on each side.
        for (const char* side : {"measured_samples_per_s", "predicted_samples_per_s"}) {
            CAPTURE(side);
            CHECK(c[side].get<double>() ==
                  std::max(passes[0][side].get<double>(), passes[1][side].get<double>()));
        }
    }
    // The two passes agree on a config as its runs within 10% of each other say.
    int agree = 0;
    for (const nlohmann::json& c : j["configs"]) {
        const double first = c["passes"][0]["measured_samples_per_s"].get<double>();
        const double second = c["passes"][1]["measured_samples_per_s"].get<double>();
        agree += first > 0 ? std::abs(second / first - 1) <= 0.10 : second == 0;
    }
    CHECK(summary["passes_agree_within_10pct"].get<double>() == doctest::Approx(agree / 2.0));
    // Out of range: refused with the option's name.
    const Result zero = run_pinscope("bench --predictor-check 2 --passes 0");
    CHECK(zero.exit_code != 0);
    CHECK(zero.err.find("--passes") != std::string::npos);
}
