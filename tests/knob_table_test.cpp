// The knob table: every field of PipelineConfig described once, and the JSON form, the range checks
// and the typed form that come from it.
#include <doctest/doctest.h>

#include <set>

#include "core/config/config_json.h"
#include "core/config/validate.h"
#include "tests/knob_values.h"

using namespace pinscope;
using namespace pinscope::testing;

TEST_CASE("every field of a config is one knob, with a unique key, a group and a help text") {
    std::set<std::string_view> keys;
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        CHECK(keys.insert(knob.key).second);
        CHECK_FALSE(knob.help.empty());
        CHECK(find_knob(knob.key) == &knob);
        if (knob.type == KnobType::choice) CHECK(knob.choices().size() >= 2);
    }
    // The JSON form holds exactly the table's keys: a field without a row would be missing here.
    const nlohmann::json saved = config_to_json(PipelineConfig{});
    CHECK(saved.size() == knobs().size());
    for (const auto& [key, value] : saved.items()) CHECK(keys.count(key) == 1);
}

TEST_CASE("every knob's JSON key round-trips a value other than its default") {
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        const nlohmann::json value = non_default_value(knob);
        PipelineConfig config;
        knob.set(config, value);
        CHECK_FALSE(config == PipelineConfig{});
        CHECK(knob.get(config) == value);
        CHECK(config_from_json(config_to_json(config)) == config);
        CHECK(config_from_json(nlohmann::json{{std::string(knob.key), value}}) == config);
    }
}

TEST_CASE("what a person types for a knob parses back to its value") {
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        const nlohmann::json value = non_default_value(knob);
        CHECK(knob.parse(typed(value)) == value);
    }
    CHECK_THROWS_AS(knob("num_workers").parse("two"), KnobValueError);
    CHECK_THROWS_AS(knob("pin_mode").parse("sideways"), KnobValueError);
    CHECK_THROWS_AS(knob("sample_shape").parse("3x"), KnobValueError);
    CHECK(knob("prefetch_factor").parse("unset").is_null());
}

TEST_CASE("every out-of-range value gives the table's message, which names the knob and a fix") {
    for (const Knob& knob : knobs()) {
        for (const nlohmann::json& value : out_of_range_values(knob)) {
            CAPTURE(knob.key);
            CAPTURE(value);
            const std::string message = table_message(knob, value);
            CHECK(message.find(knob.key) != std::string::npos);
            const bool has_fix =
                message.find("use ") != std::string::npos || message.find("leave ") != std::string::npos;
            CHECK(has_fix);
            PipelineConfig config;
            try {
                knob.set(config, value);
            } catch (const KnobValueError&) {
                continue;  // does not fit the field at all: the readers report the range message (above)
            }
            const Validation v = validate(config);
            REQUIRE_FALSE(v.ok());
            CHECK(v.errors.front().option == knob.key);
            CHECK(v.errors.front().message == message);
        }
    }
}

TEST_CASE("a value that does not fit a knob's field is refused with its range") {
    PipelineConfig config;
    CHECK_THROWS_WITH_AS(knob("num_workers").set(config, int64_t{1} << 40),
                         doctest::Contains("between 0 and 256"), KnobValueError);
    CHECK_THROWS_WITH_AS(knob("seed").set(config, -1), doctest::Contains("at least 0"), KnobValueError);
    CHECK_THROWS_WITH_AS(knob("pin_memory").set(config, 1), doctest::Contains("true or false"),
                         KnobValueError);
}

TEST_CASE("presets and resets keep the knobs that describe the machine") {
    PipelineConfig mine;
    mine.device = DeviceChoice::sim;
    mine.calibration = "my-gpu.json";
    mine.pinned_budget_mb = 1024;
    mine.num_workers = 7;
    PipelineConfig fresh;
    keep_machine_knobs(fresh, mine);
    CHECK(fresh.device == DeviceChoice::sim);
    CHECK(fresh.calibration == "my-gpu.json");
    CHECK(fresh.pinned_budget_mb == 1024);
    CHECK(fresh.num_workers == PipelineConfig{}.num_workers);  // the workload is not the machine
}

TEST_CASE("a knob that means nothing in a config says so: prefetch_factor without workers") {
    PipelineConfig config;
    config.num_workers = 0;
    CHECK_FALSE(knob("prefetch_factor").applies_to(config));
    config.num_workers = 2;
    CHECK(knob("prefetch_factor").applies_to(config));
    config.pin_memory = false;
    CHECK_FALSE(knob("pin_mode").applies_to(config));
}

TEST_CASE("a knob's label names its none only for the none: prefetch_factor=1 is set, not unset") {
    PipelineConfig config;
    config.num_workers = 2;
    CHECK(knob("prefetch_factor").label(config) == "unset (2)");
    config.prefetch_factor = 1;  // the lowest value, given: the predictor check printed it "1 (unset)"
    CHECK_FALSE(knob("prefetch_factor").is_none(config));
    CHECK(knob("prefetch_factor").label(config) == "1");
    config.straggler_every = 0;  // a knob whose lowest value is its none keeps its label
    CHECK(knob("straggler_every").is_none(config));
}
