// Captures from the command line, end to end: run --capture, stats, diff, export, `pinscope FILE`, and
// twenty damaged files that each end in one line naming the file and what is wrong, with exit code 2.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/capture.h"
#include "tests/run_binary.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

using Result = BinaryResult;

void write(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A folder of this test process's own (ctest runs test cases as parallel processes), removed when the
// process ends: a folder of its own name under /tmp was left behind by every run.
std::filesystem::path folder() {
    return scratch_folder();
}

// A quick copy-bound run (big batches, no CPU work, two streams), pinned or not.
std::filesystem::path recorded(const std::string& name, bool pinned) {
    const auto file = folder() / (name + ".pinscope");
    if (std::filesystem::exists(file)) return file;
    const Result r =
        run_pinscope(std::string("run --device sim --num-workers 2 --batch-size 64 --sample-shape 3x128x128 "
                                 "--kernel-us 300 --streams 2 --batches 60 ") +
                     (pinned ? "" : "--no-pin-memory ") + "--capture " + file.string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return file;
}

size_t lines(const std::string& text) {
    return line_count(text);
}

}  // namespace

TEST_CASE(
    "run --capture writes a file whose stats --json repeats the run's metrics with the keys of run --json") {
    const auto file = folder() / "json.pinscope";
    const Result run = run_pinscope("run --device sim --batches 40 --json --capture " + file.string());
    REQUIRE(run.exit_code == 0);
    const nlohmann::json live = nlohmann::json::parse(run.out);
    const Result stats = run_pinscope("stats --json " + file.string());
    REQUIRE(stats.exit_code == 0);
    const nlohmann::json opened = nlohmann::json::parse(stats.out);
    for (const char* key : {"samples_per_s", "h2d_gbps", "overlap", "gpu_busy", "gpu_idle", "idle", "batches",
                            "latency", "config", "device"})
        CHECK_MESSAGE(opened.contains(key), key);
    CHECK(opened["samples_per_s"] == live["samples_per_s"]);
    CHECK(opened["h2d_bytes"] == live["h2d_bytes"]);
    CHECK(opened["idle"] == live["idle"]);
    CHECK(opened["latency"] == live["latency"]);
    CHECK(opened["config"] == live["config"]);
    CHECK(opened["capture"]["spans"].get<size_t>() > 100);
}

TEST_CASE("pinscope FILE without a display prints the capture's metrics, and says why") {
    const Result r = run_pinscope(recorded("pinned", true).string());
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("samples/s") != std::string::npos);
    CHECK(r.err.find("no display") != std::string::npos);
}

TEST_CASE("diff of a pinned and a pageable capture states the H2D and overlap differences") {
    const Result r = run_pinscope("diff " + recorded("pinned", true).string() + " " +
                                  recorded("pageable", false).string());
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("pin_memory                 true -> false") != std::string::npos);
    CHECK(r.out.find("H2D while copying") != std::string::npos);
    CHECK(r.out.find("copy/compute overlap") != std::string::npos);
    CHECK(r.out.find("staging pageable copies") != std::string::npos);

    const Result j = run_pinscope("diff --json " + recorded("pinned", true).string() + " " +
                                  recorded("pageable", false).string());
    REQUIRE(j.exit_code == 0);
    const nlohmann::json diff = nlohmann::json::parse(j.out);
    REQUIRE(diff["config_differences"].size() == 1);
    CHECK(diff["config_differences"][0]["key"] == "pin_memory");
    for (const auto& row : diff["metrics"]) {
        if (row["name"] == "H2D while copying") {
            // Pageable copies run at a fraction of the link: the difference is stated as a ratio.
            CHECK(row["b"].get<double>() < 0.5 * row["a"].get<double>());
            CHECK(row["change"].get<std::string>().back() == 'x');
        }
        if (row["name"] == "staging pageable copies") CHECK(row["b"].get<double>() > row["a"].get<double>());
    }
}

TEST_CASE("diff of the committed H100 captures states the H2D speed-up and the overlap pinning bought") {
    const std::string captures = PINSCOPE_CAPTURES;
    const std::string pair = captures + "/h100-transfer-bound-pageable.pinscope " + captures +
                             "/h100-transfer-bound-pinned.pinscope";
    const Result r = run_pinscope("diff " + pair);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("NVIDIA H100 80GB HBM3") != std::string::npos);
    const Result j = run_pinscope("diff --json " + pair);
    REQUIRE(j.exit_code == 0);
    const nlohmann::json diff = nlohmann::json::parse(j.out);
    int stated = 0;
    for (const auto& row : diff["metrics"]) {
        const std::string change = row["change"];
        if (row["name"] == "H2D while copying") {
            CHECK(row["b"].get<double>() > 3 * row["a"].get<double>());  // pinned: several times faster
            CHECK(change.back() == 'x');
            ++stated;
        }
        if (row["name"] == "copy/compute overlap") {
            CHECK(row["b"].get<double>() > row["a"].get<double>() + 0.5);
            CHECK(change.find("pts") != std::string::npos);
            ++stated;
        }
    }
    CHECK(stated == 2);
}

TEST_CASE("export writes a Perfetto trace, CSV, PNG and SVG of a capture, and refuses what it cannot do") {
    const std::string capture = recorded("pinned", true).string();
    const auto out = [](const char* name) { return (folder() / name).string(); };
    CHECK(run_pinscope("export " + capture + " --to perfetto --output " + out("t.json")).exit_code == 0);
    CHECK(nlohmann::json::parse(slurp(out("t.json")))["traceEvents"].size() > 100);
    CHECK(run_pinscope("export " + capture + " --to csv --output " + out("t.csv")).exit_code == 0);
    const std::string batches = slurp(out("t.csv"));
    CHECK(batches.rfind("batch,start_us,end_us,latency_us,fetch_us", 0) == 0);
    CHECK(lines(batches) > 50);
    CHECK(slurp(out("t.metrics.csv")).find("\nsamples_per_s,") != std::string::npos);
    CHECK(run_pinscope("export " + capture + " --to png --size 800x450 --window 0.1:0.15 --output " +
                       out("t.png"))
              .exit_code == 0);
    CHECK(slurp(out("t.png")).substr(1, 3) == "PNG");
    CHECK(run_pinscope("export " + capture + " --to svg --output " + out("t.svg")).exit_code == 0);
    CHECK(slurp(out("t.svg")).find("<svg") != std::string::npos);

    for (const std::string& bad : {"--to pdf --output " + out("t.pdf"), "--to png --output " + out("t.svg"),
                                   "--to png --size 10x10 --output " + out("u.png"),
                                   "--to png --window 2:1 --output " + out("u.png")}) {
        const Result r = run_pinscope("export " + capture + " " + bad);
        CHECK_MESSAGE(r.exit_code == 2, bad);
        CHECK_MESSAGE(lines(r.err) == 1, r.err);
    }
}

TEST_CASE("twenty damaged or foreign files each exit 2 with one line naming the file and what is wrong") {
    const std::string good = slurp(recorded("pinned", true));
    REQUIRE(good.size() > 200);
    const std::string meta =
        R"({"format":"pinscope-capture","format_version":1,"writer_version":"t",)"
        R"("created":"now","config":{},"device":{"kind":"sim","name":"x","copy_engines":1,)"
        R"("h2d_peak_gbps":1,"d2h_peak_gbps":1,"memory_bytes":0},"device_why":"","calibration":null,)"
        R"("window":{"start":0,"end":0},"metrics":null,"dropped_spans":0,"evicted_spans":0,)"
        R"("gpu_trace":null,"lanes":[{"id":0,"kind":"h2d","index":0,"name":"s","group":"device",)"
        R"("sort_key":0}],"time_base":0,"spans":1,"counter_samples":0,"flows":""})";
    const auto with_meta = [&](const std::string& text, const std::string& rest = "") {
        return capture_format::file_header() + capture_format::section("META", text) + rest +
               capture_format::end();
    };
    const auto replaced = [&](std::string key, std::string value) {
        std::string text = meta;
        const size_t at = text.find("\"" + key + "\":");
        REQUIRE(at != std::string::npos);
        const size_t from = at + key.size() + 3;
        size_t to = from;
        for (int depth = 0; to < text.size(); ++to) {
            if (text[to] == '{' || text[to] == '[') ++depth;
            if (text[to] == '}' || text[to] == ']') {
                if (depth == 0) break;
                --depth;
            }
            if (text[to] == ',' && depth == 0) break;
        }
        return text.replace(from, to - from, value);
    };
    std::string newer = good;
    newer[8] = 9;
    std::string zero_version = good;
    zero_version[8] = 0;
    // A byte in the middle of META's compressed frame (not wherever the file's middle falls: that may be
    // a section header, which other cases cover).
    size_t meta_stored = 0;  // the little-endian u64 "stored bytes" of the first section's header
    for (int i = 7; i >= 0; --i) meta_stored = meta_stored << 8 | static_cast<uint8_t>(good[16 + 8 + i]);
    REQUIRE(meta_stored > 8);
    std::string flipped = good;
    flipped[16 + 24 + meta_stored / 2] ^= 0x5A;
    std::string section_reserved = good;
    section_reserved[16 + 4] = 1;
    std::string file_reserved = good;
    file_reserved[12] = 1;
    std::string huge_stored = good, huge_raw = good;
    huge_stored[16 + 8 + 6] = 0x7F;                           // META's stored size: far beyond the file
    huge_raw[16 + 16 + 5] = 0x7F;                             // META's inflated size: terabytes
    const std::string one_span = std::string("\x00\x01", 2);  // lane 0, one span, and then no columns

    const std::vector<std::pair<std::string, std::string>> files = {
        {"empty", ""},
        {"cut in the header", good.substr(0, 10)},
        {"cut in a section header", good.substr(0, 16 + 10)},
        {"cut inside META", good.substr(0, 16 + 24 + 5)},
        {"cut in the middle", good.substr(0, good.size() / 2)},
        {"cut before END", good.substr(0, good.size() - 24)},
        {"wrong magic", "\x89PNG\r\n\x1a\n" + good.substr(8)},
        {"a config", R"({"num_workers": 4})"},
        {"newer version", newer},
        {"version 0", zero_version},
        {"huge stored size", huge_stored},
        {"huge inflated size", huge_raw},
        {"zero-length section",
         capture_format::file_header() + good.substr(16, 4) + std::string(20, '\0') + capture_format::end()},
        {"META not JSON", with_meta("{not json")},
        {"META of the wrong type", with_meta(replaced("spans", "\"many\""))},
        {"META without a config", with_meta(replaced("config", "7"))},
        {"config of the wrong type", with_meta(replaced("config", R"({"num_workers":"four"})"))},
        {"an unknown lane kind", with_meta(replaced("lanes", R"([{"id":0,"kind":"tpu","index":0,"name":"s",)"
                                                             R"("group":"device","sort_key":0}])"))},
        {"huge span count",
         with_meta(meta, capture_format::section("STRS", std::string("\x01\x00", 2)) +
                             capture_format::section("SPAN", std::string("\x00\xFF\xFF\xFF\xFF\x0F", 6)))},
        {"spans without columns",
         with_meta(meta, capture_format::section("STRS", std::string("\x01\x00", 2)) +
                             capture_format::section("SPAN", one_span))},
        {"corrupt zstd frame", flipped},
        {"a section header's reserved bytes set", section_reserved},
        {"the file header's reserved bytes set", file_reserved},
        {"bytes after END", good + "tail"},
    };
    REQUIRE(files.size() >= 20);
    for (size_t i = 0; i < files.size(); ++i) {
        const auto& what = files[i].first;  // named: CAPTURE's lambda cannot take a binding in clang 14
        const auto& bytes = files[i].second;
        CAPTURE(what);
        const auto file = folder() / ("bad" + std::to_string(i) + ".pinscope");
        write(file, bytes);
        const Result r = run_pinscope("stats " + file.string());
        CHECK(r.exit_code == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(file.string()) != std::string::npos);
        CHECK(r.out.empty());
        MESSAGE(what, ": ", r.err);
    }
    const Result folder_itself = run_pinscope("stats " + folder().string());
    CHECK(folder_itself.exit_code == 2);
    CHECK(lines(folder_itself.err) == 1);
}
