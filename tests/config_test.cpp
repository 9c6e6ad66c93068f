// Every validation rule, the JSON form of a config, and the errors a config file can produce.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/config/config_json.h"
#include "core/config/validate.h"
#include "scratch.h"

using namespace pinscope;

namespace {

// The one error a config produces, or "" when it is valid.
std::string only_error_of(const PipelineConfig& config) {
    Validation v = validate(config);
    if (v.ok()) return "";
    CHECK(v.errors.size() == 1);
    return describe(v.errors.front());
}

bool error_names(const PipelineConfig& config, const std::string& option) {
    Validation v = validate(config);
    return !v.ok() && v.errors.front().option == option;
}

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
    auto path = testing::scratch_path(name);
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("the default config is valid") {
    CHECK(only_error_of(PipelineConfig{}) == "");
}

TEST_CASE("num_workers must be non-negative, in PyTorch's words") {
    PipelineConfig c;
    c.num_workers = -1;
    CHECK(only_error_of(c) ==
          "num_workers=-1: num_workers option should be non-negative; use num_workers=0 to disable "
          "multiprocessing.");
}

TEST_CASE("num_workers has a sane upper bound") {
    PipelineConfig c;
    c.num_workers = 100000;
    CHECK(error_names(c, "num_workers"));
}

TEST_CASE("more workers than cores is a warning, not an error") {
    PipelineConfig c;
    c.num_workers = 8;
    Validation v = validate(c, 2);
    CHECK(v.ok());
    REQUIRE(v.warnings.size() == 1);
    CHECK(v.warnings[0].option == "num_workers");
}

TEST_CASE("prefetch_factor can only be set with workers") {
    PipelineConfig c;
    c.num_workers = 0;
    c.prefetch_factor = 2;
    const std::string error = only_error_of(c);
    CHECK(error.find(
              "prefetch_factor=2: prefetch_factor option could only be specified in multiprocessing") == 0);
    CHECK(error.find("leave prefetch_factor unset") != std::string::npos);
}

TEST_CASE("prefetch_factor is unset by default and means 2 with workers, 0 without") {
    PipelineConfig c;
    c.num_workers = 3;
    CHECK_FALSE(c.prefetch_factor.has_value());
    CHECK(c.effective_prefetch_factor() == 2);
    CHECK(c.max_outstanding() == 6);
    c.num_workers = 0;
    CHECK(c.effective_prefetch_factor() == 0);
    CHECK(c.max_outstanding() == 0);
}

TEST_CASE("prefetch_factor must be at least 1 and not absurd") {
    PipelineConfig c;
    c.num_workers = 2;
    c.prefetch_factor = 0;
    CHECK(error_names(c, "prefetch_factor"));
    c.prefetch_factor = 1000;
    CHECK(error_names(c, "prefetch_factor"));
    c.prefetch_factor = 4;
    CHECK(only_error_of(c) == "");
}

TEST_CASE("batch_size must be positive, in PyTorch's words") {
    PipelineConfig c;
    c.batch_size = 0;
    CHECK(only_error_of(c).find(
              "batch_size=0: batch_size should be a positive integer value, but got batch_size=0") == 0);
    c.batch_size = 1 << 20;
    CHECK(error_names(c, "batch_size"));
}

TEST_CASE("sample_shape needs 1 to 4 positive sizes and a batch under 4 GiB") {
    PipelineConfig c;
    c.sample_shape.dims = {};
    CHECK(error_names(c, "sample_shape"));
    c.sample_shape.dims = {3, 0, 224};
    CHECK(error_names(c, "sample_shape"));
    c.sample_shape.dims = {1, 2, 3, 4, 5};
    CHECK(error_names(c, "sample_shape"));
    c.sample_shape.dims = {3, 4096, 4096};  // 192 MiB a sample, 12 GiB a batch of 64
    CHECK(error_names(c, "sample_shape"));
    // Each size is allowed, but together they make 2^80 elements: too big a batch, not an overflow.
    c = config_from_json(nlohmann::json::parse(R"({"sample_shape": "1048576x1048576x1048576x1048576"})"));
    CHECK(c.sample_shape.elements() == std::numeric_limits<int64_t>::max());
    CHECK(only_error_of(c).find("sample_shape=1048576x1048576x1048576x1048576: a batch of 64 samples") == 0);
}

TEST_CASE("per-sample and kernel times must be non-negative and finite") {
    for (const char* option : {"decode_us", "io_us", "kernel_us"}) {
        CAPTURE(option);
        PipelineConfig c;
        double* field = std::string(option) == "decode_us" ? &c.decode_us
                        : std::string(option) == "io_us"   ? &c.io_us
                                                           : &c.kernel_us;
        *field = -1;
        CHECK(error_names(c, option));
        *field = std::numeric_limits<double>::infinity();
        CHECK(error_names(c, option));
        *field = 1e12;
        CHECK(error_names(c, option));
        *field = 10;
        CHECK(only_error_of(c) == "");
    }
}

TEST_CASE("d2h_bytes must be between 0 and 1 GiB") {
    PipelineConfig c;
    c.d2h_bytes = -5;
    CHECK(error_names(c, "d2h_bytes"));
    c.d2h_bytes = 2LL << 30;
    CHECK(error_names(c, "d2h_bytes"));
    c.d2h_bytes = 0;
    CHECK(only_error_of(c) == "");
}

TEST_CASE("streams and chunks have bounds, and a chunk holds at least a byte") {
    PipelineConfig c;
    c.streams = 0;
    CHECK(error_names(c, "streams"));
    c.streams = 17;
    CHECK(error_names(c, "streams"));
    c.streams = 2;
    c.chunks = 0;
    CHECK(error_names(c, "chunks"));
    c.chunks = 65;
    CHECK(error_names(c, "chunks"));
    c.chunks = 8;
    c.batch_size = 1;
    c.sample_shape.dims = {1};  // 4 bytes a batch: 8 chunks cannot split it
    CHECK(error_names(c, "chunks"));
}

TEST_CASE("seconds, batches and fail_at_sample must be in range") {
    PipelineConfig c;
    c.seconds = -1;
    CHECK(error_names(c, "seconds"));
    c.seconds = 1;
    c.batches = -1;
    CHECK(error_names(c, "batches"));
    c.batches = 0;
    c.fail_at_sample = -2;
    CHECK(error_names(c, "fail_at_sample"));
}

TEST_CASE("every error names the option, the value and a fix") {
    PipelineConfig c;
    c.num_workers = -3;
    c.batch_size = -1;
    c.streams = 0;
    c.io_us = -1;
    Validation v = validate(c);
    CHECK(v.errors.size() == 4);
    for (const ConfigIssue& issue : v.errors) {
        CAPTURE(issue.message);
        CHECK_FALSE(issue.option.empty());
        CHECK_FALSE(issue.value.empty());
        CHECK(describe(issue).find(issue.option + "=" + issue.value + ": ") == 0);
        const bool has_fix = issue.message.find("use ") != std::string::npos ||
                             issue.message.find("leave ") != std::string::npos;
        CHECK(has_fix);
    }
}

TEST_CASE("sample shapes parse from 3x224x224 and reject malformed text") {
    CHECK(parse_sample_shape("3x224x224")->dims == std::vector<int64_t>{3, 224, 224});
    CHECK(parse_sample_shape("1")->dims == std::vector<int64_t>{1});
    CHECK(parse_sample_shape("3x224x224")->elements() == 3 * 224 * 224);
    for (const char* bad : {"", "x", "3x", "x3", "3xx4", "3x-4", "3.5x2", "abc", "3 x 4"}) {
        const std::string text = bad;
        CAPTURE(text);
        CHECK_FALSE(parse_sample_shape(text).has_value());
    }
}

TEST_CASE("a config survives a JSON round trip") {
    PipelineConfig c;
    c.num_workers = 6;
    c.prefetch_factor = 4;
    c.pin_memory = false;
    c.pin_mode = PinMode::direct;
    c.in_order = false;
    c.sample_shape.dims = {3, 512, 512};
    c.decode_us = 200;
    c.issue_order = IssueOrder::copies_first;
    c.device = DeviceChoice::sim;
    c.seed = 42;
    CHECK(config_from_json(config_to_json(c)) == c);

    PipelineConfig unset;  // prefetch_factor unset stays unset
    CHECK(config_to_json(unset)["prefetch_factor"].is_null());
    CHECK(config_from_json(config_to_json(unset)) == unset);
}

TEST_CASE("a config file may hold a subset of keys - the rest keep their values") {
    PipelineConfig base;
    base.batch_size = 32;
    PipelineConfig c = config_from_json(nlohmann::json::parse(R"({"num_workers": 5})"), base);
    CHECK(c.num_workers == 5);
    CHECK(c.batch_size == 32);
}

TEST_CASE("unknown keys and wrong types in a config name the key") {
    auto error_of = [](const char* text) -> std::string {
        try {
            config_from_json(nlohmann::json::parse(text));
        } catch (const ConfigFileError& e) {
            return e.what();
        }
        return "";
    };
    CHECK(error_of(R"({"num_worker": 2})").find("unknown config key \"num_worker\"") == 0);
    CHECK(error_of(R"({"num_workers": "two"})").find("\"num_workers\" should be an integer") !=
          std::string::npos);
    CHECK(error_of(R"({"num_workers": 2.5})").find("\"num_workers\" should be an integer") !=
          std::string::npos);
    CHECK(error_of(R"({"pin_memory": 1})").find("\"pin_memory\" should be true or false") !=
          std::string::npos);
    CHECK(error_of(R"({"pin_mode": "sideways"})").find("\"pin_mode\" should be one of") != std::string::npos);
    CHECK(error_of(R"({"sample_shape": "3by4"})").find("\"sample_shape\"") != std::string::npos);
    CHECK(error_of(R"([1, 2])").find("should be a JSON object") != std::string::npos);
    CHECK(error_of(R"({"batch_size": [64]})") ==
          R"(config key "batch_size" should be an integer, not an array.)");
    // Named, not printed: printing it recursed once per level of nesting and overflowed the stack.
    const std::string deep =
        R"({"kernel_us": )" + std::string(200'000, '[') + std::string(200'000, ']') + "}";
    CHECK(error_of(deep.c_str()) == R"(config key "kernel_us" should be a number, not an array.)");
}

TEST_CASE("a malformed config file is an error with its line and column") {
    auto path = temp_file("malformed.json", "{\n  \"num_workers\": 2,\n  oops\n}\n");
    try {
        load_config(path);
        FAIL("expected ConfigFileError");
    } catch (const ConfigFileError& e) {
        const std::string message = e.what();
        CHECK(message.find("not valid JSON at line 3") != std::string::npos);
    }
    std::filesystem::remove(path);
}

TEST_CASE("a missing config file is an error naming the file") {
    CHECK_THROWS_WITH_AS(load_config("/nonexistent/pinscope.json"),
                         doctest::Contains("cannot read config file /nonexistent/pinscope.json"),
                         ConfigFileError);
}

TEST_CASE("save_config writes a file that load_config reads back, atomically") {
    auto path = testing::scratch_path("saved.json");
    PipelineConfig c;
    c.num_workers = 7;
    save_config(path, c);
    CHECK(load_config(path) == c);
    // No temporary file is left beside it.
    for (const auto& entry : std::filesystem::directory_iterator(path.parent_path()))
        CHECK(entry.path().filename().string().find("pinscope_test_saved.json.tmp") == std::string::npos);
    std::filesystem::remove(path);
    CHECK_THROWS_AS(save_config("/nonexistent-dir/x.json", c), std::runtime_error);
}
