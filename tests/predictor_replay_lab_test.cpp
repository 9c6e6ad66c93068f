// `bench --predictor-replay` end to end, on a check this build writes: it measures the host six times (three
// for the check, three for the rates the replay keeps), 170-185 s under AddressSanitizer on the 2-core VM,
// so it runs in the Release stage; the replay's refusals, which measure nothing, run in test_cli.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/cli/predictor_figures.h"
#include "run_binary.h"
#include "scratch.h"

using namespace pinscope;
using namespace pinscope::testing;

TEST_CASE("bench --predictor-replay predicts a stored check's runs again, on rates it can keep") {
    const std::filesystem::path check = scratch_path("pinscope_replay_check.json");
    const std::filesystem::path rates = scratch_path("pinscope_replay_rates.json");
    std::filesystem::remove(rates);
    const BinaryResult ran = run_pinscope("bench --predictor-check 3 --seed 7 --seconds 0.2 --json");
    CAPTURE(ran.err);
    REQUIRE(ran.exit_code == 0);
    std::ofstream(check) << ran.out;
    const nlohmann::json stored = nlohmann::json::parse(ran.out);

    const std::string replay =
        "bench --predictor-replay " + check.string() + " --host-rates " + rates.string();
    const BinaryResult first = run_pinscope(replay + " --json");
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    REQUIRE(std::filesystem::exists(rates));  // measured, and kept for the next replay
    const std::string kept = slurp(rates);
    const nlohmann::json j = nlohmann::json::parse(first.out);
    const nlohmann::json& summary = j["predictor_replay"];
    CHECK(summary["configs"] == 3);
    REQUIRE(j["configs"].size() == 3);
    // "Then" is the file's own predictions against its runs.
    int within_then = 0;
    for (size_t i = 0; i < 3; ++i) {
        const nlohmann::json& c = j["configs"][i];
        const nlohmann::json& s = stored["configs"][i];
        CHECK(c["knobs"] == s["knobs"]);
        CHECK(c["measured_samples_per_s"] == s["measured_samples_per_s"]);
        CHECK(c["predicted_then"] == s["predicted_samples_per_s"]);
        CHECK(c["predicted_now"].get<double>() >= 0);
        within_then += std::abs(relative_error(s["predicted_samples_per_s"].get<double>(),
                                               s["measured_samples_per_s"].get<double>())) <= 0.10;
    }
    CHECK(summary["within_10pct_then"] == within_then);
    CHECK(summary["within_10pct_now"].get<int>() <= summary["within_25pct_now"].get<int>());
    CHECK(summary["files"].size() == 1);
    CHECK(summary["files"][0]["ran_on_other_cores"] == false);  // the check ran here

    // Again on the kept rates: the same predictions to the last digit, and the kept file untouched.
    const BinaryResult second = run_pinscope(replay + " --json");
    REQUIRE(second.exit_code == 0);
    const nlohmann::json again = nlohmann::json::parse(second.out);
    for (size_t i = 0; i < 3; ++i)
        CHECK(again["configs"][i]["predicted_now"] == j["configs"][i]["predicted_now"]);
    CHECK(slurp(rates) == kept);

    // The text report names the file and the counts.
    const BinaryResult text = run_pinscope(replay);
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find(check.string() + " (seed 7, 3 configs") != std::string::npos);
    CHECK(text.out.find("then,") != std::string::npos);
}
