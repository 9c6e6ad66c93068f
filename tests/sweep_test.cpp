// Sweep specs, the grid they expand to under PyTorch's cross-knob rules, the runner's rows and the choice
// of the best config.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <sstream>

#include "core/config/validate.h"
#include "core/lab/sweep.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using nlohmann::json;

namespace {

std::vector<json> values_of(std::string_view key, std::string_view spec) {
    return parse_sweep_axis(knob(key), spec).values;
}

// The problem a bad spec is refused with.
std::string refusal(std::string_view key, std::string_view spec) {
    try {
        parse_sweep_axis(knob(key), spec);
    } catch (const SweepSpecError& e) {
        CHECK(e.key() == key);
        CHECK(std::string(e.what()).starts_with(std::string(key) + " " + std::string(spec) + ": "));
        return e.problem();
    }
    FAIL("the spec was accepted: " << spec);
    return {};
}

SweepGrid grid_of(std::initializer_list<std::pair<std::string_view, std::string_view>> specs,
                  PipelineConfig base = testing::on_sim()) {
    std::vector<SweepAxis> axes;
    for (const auto& [key, spec] : specs) axes.push_back(parse_sweep_axis(knob(key), spec));
    return expand_sweep(base, std::move(axes));
}

}  // namespace

TEST_CASE("an integer knob sweeps a..b, a..b:step and lists, ascending and each value once") {
    CHECK(values_of("num_workers", "0..8") == std::vector<json>{0, 1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(values_of("num_workers", "0..8:4") == std::vector<json>{0, 4, 8});
    CHECK(values_of("num_workers", "1..6:2") == std::vector<json>{1, 3, 5});
    CHECK(values_of("num_workers", "4,1,2,4") == std::vector<json>{1, 2, 4});
    CHECK(values_of("num_workers", " 3 ") == std::vector<json>{3});
    CHECK(values_of("prefetch_factor", "unset,2") == std::vector<json>{nullptr, 2});
}

TEST_CASE("numbers sweep lists and a..b:step, booleans both, choices all") {
    CHECK(values_of("decode_us", "0..200:100") == std::vector<json>{0.0, 100.0, 200.0});
    CHECK(values_of("cost_jitter", "0..0.3:0.1") == std::vector<json>{0.0, 0.1, 0.2, 0.3});
    CHECK(values_of("io_us", "50,10") == std::vector<json>{10.0, 50.0});
    CHECK(values_of("pin_memory", "both") == std::vector<json>{false, true});
    CHECK(values_of("pin_memory", "true") == std::vector<json>{true});
    CHECK(values_of("pin_memory", "false") == std::vector<json>{false});
    CHECK(values_of("pin_mode", "all") == std::vector<json>{"thread", "direct"});
    CHECK(values_of("pin_mode", "direct,thread") == std::vector<json>{"thread", "direct"});
    CHECK(values_of("sample_shape", "3x32x32,3x64x64") == std::vector<json>{"3x32x32", "3x64x64"});
}

TEST_CASE("a bad spec is refused with a message that names the knob and the fix") {
    CHECK(refusal("num_workers", "0..300") == knob("num_workers").range_message());
    CHECK(refusal("num_workers", "-1,2").find("num_workers option should be non-negative") !=
          std::string::npos);
    CHECK(refusal("prefetch_factor", "0..4").find("prefetch_factor option should be at least 1") !=
          std::string::npos);
    CHECK(refusal("num_workers", "two").find("num_workers should be an integer, not \"two\"; use a..b") !=
          std::string::npos);
    CHECK(refusal("num_workers", "8..0").find("write it as 0..8") != std::string::npos);
    CHECK(refusal("num_workers", "0..8:0").find("step") != std::string::npos);
    CHECK(refusal("decode_us", "0..100").find("needs a step") != std::string::npos);
    CHECK(refusal("pin_memory", "maybe").find("use both, true or false") != std::string::npos);
    CHECK(refusal("pin_mode", "0..1").find("takes no range") != std::string::npos);
    CHECK(refusal("pin_mode", "fast").find("thread, direct") != std::string::npos);
    CHECK(refusal("straggler_every", "0..1000000").find("sweep at most 256") != std::string::npos);
    CHECK(refusal("num_workers", "").find("give the values") != std::string::npos);
}

TEST_CASE("the grid runs every combination, the last knob fastest, axes in the knob table's order") {
    const SweepGrid grid =
        grid_of({{"pin_memory", "both"}, {"num_workers", "1..2"}, {"prefetch_factor", "1,3"}});
    REQUIRE(grid.axes.size() == 3);
    CHECK(grid.axes[0].knob->key == "num_workers");
    CHECK(grid.axes[1].knob->key == "prefetch_factor");
    CHECK(grid.axes[2].knob->key == "pin_memory");
    CHECK(grid.cells() == 8);
    CHECK(grid.configs.size() == 8);
    CHECK(grid.collapsed() == 0);
    CHECK(grid.label(grid.configs[0]) == "num_workers=1 prefetch_factor=1 pin_memory=false");
    CHECK(grid.label(grid.configs[7]) == "num_workers=2 prefetch_factor=3 pin_memory=true");
    CHECK(grid.shape() == "2 num_workers x 2 prefetch_factor x 2 pin_memory");
    for (size_t cell = 0; cell < grid.cells(); ++cell) CHECK(grid.cell_at(grid.coordinates(cell)) == cell);
    for (const PipelineConfig& config : grid.configs)
        CHECK(config.device == DeviceChoice::sim);  // the base's
}

TEST_CASE("num_workers=0 leaves prefetch_factor unset: a 4 x 4 x 2 grid runs 26 distinct configs") {
    const SweepGrid grid =
        grid_of({{"num_workers", "0..3"}, {"prefetch_factor", "1..4"}, {"pin_memory", "both"}});
    CHECK(grid.cells() == 32);
    CHECK(grid.configs.size() == 26);  // the 4 prefetch values of num_workers=0 are one config, twice
    CHECK(grid.collapsed() == 6);
    CHECK(grid.invalid() == 0);
    for (const PipelineConfig& config : grid.configs) {
        CHECK(validate(config).ok());
        if (config.num_workers == 0) CHECK_FALSE(config.prefetch_factor.has_value());
    }
    // Every cell of num_workers=0 with one pin_memory runs the same config.
    const size_t first = grid.cell_config[grid.cell_at({0, 0, 1})];
    for (size_t p = 0; p < 4; ++p) CHECK(grid.cell_config[grid.cell_at({0, p, 1})] == first);
    CHECK(grid.cell_config[grid.cell_at({0, 0, 0})] != first);
}

TEST_CASE("a base prefetch_factor does not make the num_workers=0 cells invalid") {
    PipelineConfig base = testing::on_sim();
    base.prefetch_factor = 4;
    const SweepGrid grid = grid_of({{"num_workers", "0,2"}}, base);
    REQUIRE(grid.configs.size() == 2);
    CHECK_FALSE(grid.configs[0].prefetch_factor.has_value());
    CHECK(grid.configs[1].prefetch_factor == 4);
}

TEST_CASE("pin_mode means nothing without pin_memory: those cells run once") {
    const SweepGrid grid = grid_of({{"pin_memory", "both"}, {"pin_mode", "all"}});
    CHECK(grid.cells() == 4);
    CHECK(grid.configs.size() == 3);
}

TEST_CASE("a cell that breaks a rule runs nothing and keeps validate()'s message") {
    PipelineConfig base = testing::on_sim();
    base.batch_size = 1;
    base.sample_shape.dims = {4};  // 16 bytes a batch
    const SweepGrid grid = grid_of({{"chunks", "1,32"}}, base);
    CHECK(grid.configs.size() == 1);
    CHECK(grid.invalid() == 1);
    CHECK(grid.cell_config[1] == SweepGrid::kNotRun);
    CHECK(grid.problems[1].find("chunks=32") != std::string::npos);
    CHECK(sweep_csv({grid, {}, false}).find("32,,,,,,,,,,chunks=32") != std::string::npos);
}

TEST_CASE("a grid beyond the cell limit is refused") {
    CHECK_THROWS_AS(grid_of({{"num_workers", "0..255"}, {"batch_size", "1..100"}}), SweepSpecError);
}

namespace {

SweepResult row(int workers, double samples_per_s, double pinned_bytes) {
    SweepResult r;
    r.ran = true;
    r.config.num_workers = workers;
    r.samples_per_s = samples_per_s;
    r.pinned_bytes_max = pinned_bytes;
    return r;
}

}  // namespace

TEST_CASE("best is the highest samples/s, ties going to less pinned memory, then fewer workers") {
    CHECK_FALSE(best_result({}).has_value());
    CHECK(best_result({row(1, 100, 0), row(2, 300, 0), row(3, 200, 0)}) == 1);
    // 1% apart is a tie: the one holding less pinned memory wins.
    CHECK(best_result({row(1, 1000, 8e6), row(2, 990, 1e6)}) == 1);
    // The same pinned memory: fewer workers.
    CHECK(best_result({row(4, 1000, 1e6), row(2, 995, 1e6)}) == 1);
    // 10% apart is not a tie.
    CHECK(best_result({row(1, 1000, 8e6), row(2, 900, 0)}) == 0);
    SweepResult failed = row(1, 5000, 0);
    failed.ran = false;
    CHECK(best_result({failed, row(2, 10, 0)}) == 1);
    CHECK(slowest_samples_per_s({failed, row(2, 10, 0), row(3, 30, 0)}) == 10);
}

namespace {

SweepResult row(int workers, double samples_per_s, double pinned_bytes, std::vector<double> runs) {
    SweepResult r = row(workers, samples_per_s, pinned_bytes);
    r.runs = std::move(runs);
    return r;
}

}  // namespace

TEST_CASE("rows run again widen the tie to the spread of one config's runs, and the cheapest tied row wins") {
    // Each of the first two ran three times: spreads of 20% and 17.6%, so the tie is 20% (the upper
    // middle of two, as median() takes it).
    const std::vector<SweepResult> rows{row(4, 1000, 8e6, {900, 1000, 1100}),
                                        row(2, 850, 1e6, {800, 850, 950}), row(1, 700, 0)};
    CHECK(run_spread(rows) == doctest::Approx(0.2));
    CHECK(sweep_tie(rows) == doctest::Approx(0.2));
    CHECK(tied_results(rows) == std::vector<size_t>{0, 1});  // 700 is more than 20% behind
    CHECK(best_result(rows) == 1);                           // tied, and holds less pinned memory
    const std::string verdict = tie_verdict(rows);
    CAPTURE(verdict);
    CHECK(verdict.find("the 2 leading configs ran up to 3 times each") != std::string::npos);
    CHECK(verdict.find("differed by 20%") != std::string::npos);
    CHECK(verdict.find("the 2 configs within 20% of the fastest are tied") != std::string::npos);

    // The same medians run once each: the 15% lead is beyond kSweepTie, and nothing says why.
    const std::vector<SweepResult> once{row(4, 1000, 8e6), row(2, 850, 1e6), row(1, 700, 0)};
    CHECK(run_spread(once) == 0);
    CHECK(sweep_tie(once) == kSweepTie);
    CHECK(best_result(once) == 0);
    CHECK(tie_verdict(once).empty());

    // Runs that agree within 2%: a 25% lead is a lead, and the verdict says by how much.
    const std::vector<SweepResult> clear{row(4, 1000, 8e6, {990, 1000, 1010}),
                                         row(2, 800, 1e6, {790, 800, 810})};
    CHECK(best_result(clear) == 0);
    CHECK(tied_results(clear) == std::vector<size_t>{0});
    CHECK(tie_verdict(clear).find("it leads the next by 25%, more than that") != std::string::npos);
}

TEST_CASE("after the grid the two fastest configs, or more within 25%, run twice more, judged on medians") {
    // Each run ends at its 30th batch: however busy the machine, every run measures.
    SweepGrid grid = expand_sweep(testing::tiny_run(30), {parse_sweep_axis(knob("num_workers"), "0..2")});
    SweepRunner runner(grid, 5);
    std::vector<SweepProgress> seen;
    const SweepOutcome outcome = runner.run([&](const SweepProgress& p) { seen.push_back(p); });
    REQUIRE(outcome.results.size() == 3);
    size_t again = 0;
    for (const SweepResult& r : outcome.results) {
        CAPTURE(r.config.num_workers);
        REQUIRE(r.ran);
        REQUIRE((r.runs.size() == 1 || r.runs.size() == 1 + kConfirmRuns));
        if (r.runs.size() > 1) ++again;
        // The row is its median run's: the upper middle of its runs' samples/s.
        std::vector<double> sorted = r.runs;
        std::ranges::sort(sorted);
        CHECK(r.samples_per_s == sorted[sorted.size() / 2]);
    }
    CHECK(again >= 2);  // the best is never named on one run against one run
    CHECK(runner.most_confirmations(3) == 3 * kConfirmRuns);
    REQUIRE(!seen.empty());
    CHECK(seen.back().done == 3);
    CHECK(seen.back().confirm_total == again * kConfirmRuns);
    CHECK(seen.back().confirm_done == seen.back().confirm_total);
    // While the leaders run again the progress says so, and a config is running.
    CHECK(std::ranges::any_of(seen, [](const SweepProgress& p) { return p.confirm_total > 0 && p.current; }));
    // The CSV keeps every run's samples/s.
    const std::string csv = sweep_csv(outcome);
    CHECK(csv.find(",batches,runs,error\n") != std::string::npos);
    CHECK(std::ranges::count(csv, ';') == static_cast<std::ptrdiff_t>(again * kConfirmRuns));
    CHECK(best_result(outcome.results).has_value());
}

TEST_CASE("a sweep runs each distinct config once, reports progress, and a failed config is a row") {
    // Each run ends at its 30th batch, long before its 5 s: however busy the machine, every run measures.
    PipelineConfig base = testing::tiny_run(30);
    std::vector<SweepAxis> axes{parse_sweep_axis(knob("num_workers"), "0,1"),
                                parse_sweep_axis(knob("fail_at_sample"), "-1,0")};
    SweepRunner runner(expand_sweep(base, std::move(axes)), 5, {}, /*confirm_runs=*/0);
    std::vector<SweepProgress> seen;
    const SweepOutcome outcome = runner.run([&](const SweepProgress& p) { seen.push_back(p); });
    REQUIRE(outcome.results.size() == 4);
    CHECK_FALSE(outcome.stopped);
    for (const SweepResult& r : outcome.results) {
        CAPTURE(r.config.num_workers);
        CAPTURE(r.config.fail_at_sample);
        CHECK(r.config.seconds == doctest::Approx(5));
        if (r.config.fail_at_sample == 0) {
            CHECK_FALSE(r.ran);
            CHECK(r.error.find("ValueError") != std::string::npos);
        } else {
            CHECK(r.ran);
            CHECK(r.samples_per_s > 0);
            CHECK(r.runs == std::vector<double>{r.samples_per_s});
        }
    }
    REQUIRE(!seen.empty());
    CHECK(seen.front().done == 0);
    CHECK(seen.front().total == 4);
    CHECK(seen.front().current != nullptr);
    CHECK(seen.back().done == 4);
    CHECK(seen.back().confirm_total == 0);
    CHECK(seen.back().current == nullptr);
    for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].done >= seen[i - 1].done);
    CHECK(sweep_csv(outcome).find("num_workers,fail_at_sample,samples_per_s,") == 0);
}

TEST_CASE("a sweep shows the predictor's samples/s before each run when it has one") {
    SweepGrid grid = expand_sweep(testing::tiny_run(0), {parse_sweep_axis(knob("num_workers"), "1,2")});
    SweepRunner runner(grid, 0.1, [](const PipelineConfig& c) -> std::optional<double> {
        if (c.num_workers == 1) return 1234.0;
        return std::nullopt;
    });
    std::vector<std::optional<double>> shown;
    const SweepOutcome outcome = runner.run([&](const SweepProgress& p) {
        if (p.current && p.current->num_workers == 1) shown.push_back(p.predicted_samples_per_s);
    });
    REQUIRE(!shown.empty());
    CHECK(shown.front() == 1234.0);
    CHECK(outcome.results[0].predicted_samples_per_s == 1234.0);
    CHECK_FALSE(outcome.results[1].predicted_samples_per_s.has_value());
    CHECK(sweep_csv(outcome).find(",1234.0,") != std::string::npos);
}

TEST_CASE("stop() ends the running config and skips the rest, each row saying so") {
    SweepGrid grid = expand_sweep(testing::tiny_run(0), {parse_sweep_axis(knob("num_workers"), "1..3")});
    SweepRunner runner(grid, 30);  // each would run 30 s
    const SweepOutcome outcome = runner.run([&](const SweepProgress& p) {
        if (p.current) runner.stop();
    });
    CHECK(outcome.stopped);
    REQUIRE(outcome.results.size() == 3);
    for (const SweepResult& r : outcome.results) {
        CHECK_FALSE(r.ran);
        CHECK(r.error.find("stopped") != std::string::npos);
    }
}

TEST_CASE("a batch-size sweep says what compute it holds fixed") {
    PipelineConfig base;
    base.kernel_us = 1000;
    CHECK(held_fixed_note(grid_of({{"batch_size", "16,64"}}, base)) ==
          "holds fixed: the GPU's compute per batch, kernel_us=1000 us whatever the batch size, so a bigger "
          "batch gets its extra samples' compute free; set kernel_us_per_sample for compute that grows with "
          "the batch");
    base.kernel_us = 0;
    base.kernel_us_per_sample = 40;
    CHECK(held_fixed_note(grid_of({{"batch_size", "16,64"}}, base)) ==
          "holds fixed: the GPU's compute, kernel_us=0 us per batch + kernel_us_per_sample=40 us per sample");
    CHECK(held_fixed_note(grid_of({{"num_workers", "0,2"}}, base)).empty());
    CHECK(held_fixed_note(grid_of({{"batch_size", "16,64"}, {"kernel_us", "0,100"}}, base)).empty());
}
