// Every preset keeps its promise: run on the simulated GPU, on the machine that runs the tests (CI's has
// two cores), for a few seconds each. Run alone (RUN_SERIAL): the promises are about speed.
#include <doctest/doctest.h>

#include <limits>
#include <map>
#include <set>
#include <string>

#include "core/config/presets.h"
#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"
#include "core/lab/promise.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

// Long enough that a pipeline's first use of each pinned buffer (allocated when first needed, as PyTorch's
// caching allocator does) is not most of what the run measures: over 2.5 s the tuned preset's loader
// stall was 0.036-0.092 across 17 runs on the 2-core VM, over 6 s 0.02.
constexpr double kSecondsPerRun = 4;

nlohmann::json measured(const PipelineConfig& config) {
    return metrics_json(measure(config));
}

void check_kept(const Preset& preset) {
    PipelineConfig config = apply_preset(preset, on_sim());
    config.seconds = kSecondsPerRun;
    for (const CheckResult& r : check_promise(preset.promise, config, measured)) {
        MESSAGE(preset.slug << ": " << r.line);
        CHECK(r.held);
    }
}

}  // namespace

TEST_CASE("every preset says what to look at and promises something a test can check") {
    for (const Preset& preset : builtin_presets()) {
        CAPTURE(preset.file);
        CHECK_FALSE(preset.look_at.empty());
        CHECK(preset.view_seconds > 0);
        REQUIRE(preset.promise.is_object());
        CHECK_FALSE(preset.promise.value("text", "").empty());
        CHECK(preset.promise["checks"].size() >= 1);
    }
}

TEST_CASE("every preset keeps its promise on the simulated GPU") {
    for (const Preset& preset : builtin_presets()) check_kept(preset);
}

// data_on_gpu is the ideal: no loading and no H2D. Nothing a preset's loader does can beat it.
TEST_CASE("data_on_gpu gives at least the samples/s of every preset's own run") {
    for (const Preset& preset : builtin_presets()) {
        CAPTURE(preset.slug);
        PipelineConfig config = apply_preset(preset, on_sim());
        config.seconds = 1;
        const double actual = measure(config).samples_per_s;
        config.data_on_gpu = true;
        const double ideal = measure(config).samples_per_s;
        MESSAGE(preset.slug << ": " << actual << " samples/s, " << ideal << " with the data on the GPU");
        CHECK(ideal >= 0.97 * actual);
        CHECK(ideal > 0);
    }
}

// With compute per sample and nothing else, a batch costs the GPU in proportion to its size: a batch-size
// sweep must not crown the biggest batch (with kernel_us alone it did, 45.2x the slowest).
TEST_CASE("with per-sample compute only, batch size 16 and 128 run at about the same samples/s") {
    PipelineConfig config = on_sim();
    config.data_on_gpu = true;
    config.kernel_us = 0;
    config.kernel_us_per_sample = 40;
    config.seconds = 1.5;
    config.batch_size = 16;
    const double small = measure(config).samples_per_s;
    config.batch_size = 128;
    const double large = measure(config).samples_per_s;
    MESSAGE("batch 16: " << small << " samples/s, batch 128: " << large);
    CHECK(large <= 1.15 * small);
    CHECK(large >= 0.85 * small);
    CHECK(small == doctest::Approx(1e6 / 40).epsilon(0.2));  // the GPU's per-sample cost sets the pace
}

// A preset's look_at line names spans and lanes; look_at_shows says the same as checks, run here against
// a short run of the preset (pytorch-defaults once described pin spans and empty GPU lanes for a run with
// pin_memory off).
TEST_CASE("every preset's look_at line holds on the lanes and spans its run produces") {
    for (const Preset& preset : builtin_presets()) {
        CAPTURE(preset.slug);
        REQUIRE_FALSE(preset.look_at_shows.empty());
        PipelineConfig config = apply_preset(preset, on_sim());
        config.seconds = 0.5;
        MeasuredRun run(config);
        run.run();
        const TraceCollector::Snapshot snapshot = run.trace();
        const TraceStore& store = snapshot.store();
        std::map<std::string, std::set<std::string>> seen;  // role -> span kinds
        for (const LaneInfo& lane : store.lanes())
            for (const Span& span :
                 store.spans_touching(lane.id, Interval{0, std::numeric_limits<TimeNs>::max()}))
                seen[std::string(kLaneRoleKeys[static_cast<size_t>(lane.role)])].insert(
                    std::string(span_kind_name(span.kind)));
        for (const nlohmann::json& shows : preset.look_at_shows) {
            const std::string kind = shows["kind"], on = shows.value("on", "");
            const bool absent = shows.value("absent", false);
            bool found = false;
            for (const auto& [role, kinds] : seen)
                if ((on.empty() || role == on) && kinds.count(kind)) found = true;
            CAPTURE(shows.dump());
            CHECK(found != absent);
        }
    }
}

TEST_CASE("every preset that pins directly says it is beyond PyTorch") {
    for (const Preset& preset : builtin_presets()) {
        CAPTURE(preset.slug);
        if (preset.config.value("pin_mode", "") != "direct") continue;
        CHECK(preset.description.find("beyond PyTorch") != std::string::npos);
    }
}
