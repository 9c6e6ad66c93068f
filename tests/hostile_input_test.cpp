// The hostile-input suite: every reader and writer of pinscope fed what a stranger, a typo or a damaged
// disk gives it, through the executable as a user runs it. Each case asserts the exit code, that stderr
// is one line naming the file or flag and what is wrong (a warning, for a file that opens), that nothing
// reaches stdout on an error, and that every file in the fixture folder has the same bytes afterwards:
// nothing overwritten, nothing half written, no temporary left behind.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/io/capture.h"
#include "run_binary.h"
#include "scratch.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A calibration file: the built-in one's shape, with `extra` (JSON members) replacing what it names.
std::string calibration_with(const std::string& bandwidths, const std::string& extra = "") {
    return R"({"format": "pinscope-calibration/1", "name": "test", "copy_engines": 3)" + extra +
           R"(, "copy_bandwidth_GBps": {)" + bandwidths + "}}";
}
const std::string kGoodBandwidths =
    R"("h2d_pinned_16MB": 50, "h2d_pageable_16MB": 10, "d2h_pinned_16MB": 50, "d2h_pageable_16MB": 12)";

// A lesson file, with `field` (a JSON member) replacing the field of that name.
std::string lesson_with(const std::map<std::string, std::string>& fields) {
    std::map<std::string, std::string> all = {
        {"title", R"("A test lesson")"},
        {"belief", R"("More workers are always faster.")"},
        {"config", R"({"batch_size": 8, "sample_shape": "3x32x32"})"},
        {"runs", R"([{"id": "w0", "label": "no workers", "with": {"num_workers": 0}},
                     {"id": "w2", "label": "two workers", "with": {"num_workers": 2}}])"},
        {"steps", R"(["Look at the loader."])"},
        {"question", R"({"text": "Which is faster?", "choices": ["w0", "w2"], "answer": 1})"},
        {"answer", R"("w2 gave {w2.samples_per_s} samples/s ({w2/w0.samples_per_s}).")"},
        {"promise", R"({"text": "w2 is faster", "checks": [{"metric": "samples_per_s", "at_least": 0}]})"},
    };
    for (const auto& [key, value] : fields) all[key] = value;
    std::string text = "{";
    for (const auto& [key, value] : all)
        if (!value.empty()) text += (text.size() > 1 ? ", \"" : "\"") + key + "\": " + value;
    return text + "}";
}

// The fixture folder every case runs against, made once per test process.
struct Fixtures {
    fs::path dir = scratch_path("hostile");
    std::string good_bytes;

    Fixtures() {
        fs::create_directories(dir / "a folder");
        const BinaryResult made =
            run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "4", "--seconds", "0",
                                         "--capture", (dir / "good.pinscope").string()});
        REQUIRE_MESSAGE(made.exit_code == 0, made.err);
        good_bytes = slurp(dir / "good.pinscope");
        captures();
        configs();
        calibrations();
        lessons();
        write(dir / "precious.json", "precious: a file no failed command may touch\n");
        write(dir / "precious.csv", "precious\n");
        fs::create_symlink(dir / "good.pinscope", dir / "link-to-good.pinscope");
        // A capture behind a name that does not say so: what the file holds decides.
        fs::create_symlink(dir / "good.pinscope", dir / "capture-behind.json");
        // A unix socket: not a file, a device or a FIFO.
        const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const std::string socket_path = (dir / "socket").string();
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
        CHECK(::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        ::close(s);
    }

    void captures() {
        write(dir / "empty.pinscope", "");
        write(dir / "picture.pinscope",
              std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + std::string(200, 'x'));
        write(dir / "cut.pinscope", good_bytes.substr(0, 200));
        std::string flipped = good_bytes;
        flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5A);
        write(dir / "flipped.pinscope", flipped);
        std::string newer = good_bytes;
        newer[8] = 99;
        write(dir / "newer.pinscope", newer);
        write(dir / "config.pinscope", R"({"num_workers": 2})");
        // Profiler traces a stranger may bring (the importer's own cases: tests/profiler_import_test.cpp).
        write(dir / "foreign.json", R"({"name": "package.json", "dependencies": {}})");
        write(dir / "no-events.json", R"({"traceEvents": []})");
        write(dir / "cut-early.json", R"({"traceEvents": [{"ph": "X", "name": "aten::add", "ts": 1)");
        write(dir / "not-gzip.json.gz", std::string("\x1f\x8b\x08\x00garbage that does not inflate", 34));
        Capture capture = load_capture(dir / "good.pinscope");
        CaptureInfo bad = capture.info;
        bad.config->num_workers = -5;
        bad.config->sample_shape = SampleShape{{0, 0}};
        save_capture(dir / "bad-config.pinscope", capture.store, bad);
        CaptureInfo evil = capture.info;
        evil.device.name = "evil \x1b[2J\x1b[31mred\x07 GPU";
        save_capture(dir / "escapes.pinscope", capture.store, evil);
    }

    void configs() {
        write(dir / "malformed.json", R"({"num_workers": 2,, })");
        write(dir / "overflow.json", R"({"seconds": 1e999})");
        write(dir / "deep.json", std::string(100'000, '[') + std::string(100'000, ']'));
        write(dir / "unknown-key.json", R"({"num_wrokers": 2})");
        write(dir / "wrong-type.json", R"({"num_workers": "two"})");
        write(dir / "negative.json", R"({"num_workers": -5})");
        write(dir / "array.json", R"([1, 2, 3])");
        write(dir / "too-long.json", R"({"seconds": 1e308})");
        write(dir / "preset-bad.json", R"({"name": "bad", "config": {"batch_size": 0}})");
        write(dir / "config.json", R"({"num_workers": 1})");
    }

    void calibrations() {
        write(dir / "cal-good.json", calibration_with(kGoodBandwidths));
        write(dir / "cal-no-format.json", R"({"copy_bandwidth_GBps": {)" + kGoodBandwidths + "}}");
        write(dir / "cal-slow.json",
              calibration_with(
                  R"("h2d_pinned_16MB": 0.001, "h2d_pageable_16MB": 0.001, "d2h_pinned_16MB": 0.001,
                                 "d2h_pageable_16MB": 0.001)"));
        write(dir / "cal-vanishing.json",
              calibration_with(R"("h2d_pinned_16MB": 1e-300, "h2d_pageable_16MB": 10, "d2h_pinned_16MB": 50,
                                 "d2h_pageable_16MB": 12)"));
        write(dir / "cal-negative.json",
              calibration_with(R"("h2d_pinned_16MB": -50, "h2d_pageable_16MB": 10, "d2h_pinned_16MB": 50,
                                 "d2h_pageable_16MB": 12)"));
        write(dir / "cal-half-engine.json", calibration_with(kGoodBandwidths, R"(, "copy_engines": 2.5)"));
        write(dir / "cal-many-engines.json", calibration_with(kGoodBandwidths, R"(, "copy_engines": 1e30)"));
        write(dir / "cal-overflow.json", calibration_with(kGoodBandwidths, R"(, "copy_latency_us": 1e999)"));
        write(dir / "cal-no-pageable.json", calibration_with(R"("h2d_pinned_16MB": 50, "d2h_pinned_16MB": 50,
                                                                "d2h_pageable_16MB": 12)"));
        write(dir / "cal-latency.json", calibration_with(kGoodBandwidths, R"(, "copy_latency_us": -1)"));
        write(dir / "cal-slow-start.json",
              calibration_with(kGoodBandwidths, R"(, "context_create_s": 3600)"));
    }

    void lessons() {
        write(dir / "lesson-malformed.json", "{\"title\": ");
        write(dir / "lesson-no-belief.json", lesson_with({{"belief", ""}}));
        write(dir / "lesson-answer-index.json",
              lesson_with({{"question", R"({"text": "?", "choices": ["a", "b"], "answer": 7})"}}));
        write(dir / "lesson-bad-run.json",
              lesson_with({{"runs", R"([{"id": "w", "label": "w", "with": {"num_workers": -1}}])"}}));
        write(dir / "lesson-bad-metric.json",
              lesson_with({{"promise", R"({"checks": [{"metric": "speediness", "at_least": 1}]})"}}));
        write(dir / "lesson-no-run.json", lesson_with({{"answer", R"("{w9.samples_per_s}")"}}));
        write(dir / "lesson-overflow.json", lesson_with({{"config", R"({"decode_us": -1e999})"}}));
        write(dir / "lesson-huge.json", lesson_with({{"answer", "\"" + std::string(300'000, 'a') + "\""}}));
        write(dir / "lesson-deep.json",
              lesson_with({{"config", std::string(10'000, '[') + std::string(10'000, ']')}}));
        fs::create_directories(dir / "broken-images");
        write(dir / "broken-images" / "a.jpg", "not a jpeg");
    }
};

const Fixtures& fixtures() {
    static const Fixtures f;
    return f;
}

// Every regular file and link under the folder, with its bytes (a link: its target's name).
std::map<std::string, std::string> contents(const fs::path& dir) {
    std::map<std::string, std::string> all;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        const std::string name = fs::relative(entry.path(), dir).string();
        if (entry.is_symlink())
            all[name] = "-> " + fs::read_symlink(entry.path()).string();
        else if (entry.is_regular_file())
            all[name] = slurp(entry.path());
        else
            all[name] = entry.is_directory() ? "(folder)" : "(other)";
    }
    return all;
}

struct Case {
    std::vector<std::string> args;  // "{dir}" stands for the fixture folder
    int exit_code = 2;
    std::string says;        // stderr holds this
    bool output_ok = false;  // a file that opens with a warning: its report goes to stdout
};

void check_case(const Case& c) {
    const Fixtures& f = fixtures();
    const auto in_dir = [&](std::string text) {
        for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, f.dir.string());
        return text;
    };
    std::vector<std::string> args;
    std::string shown;
    for (const std::string& given : c.args) {
        const std::string a = in_dir(given);
        shown += " " + (a.empty() ? std::string("\"\"") : a);
        args.push_back(a);
    }
    const std::string says = in_dir(c.says);
    CAPTURE(shown);
    const auto before = contents(f.dir);
    const BinaryResult r = run_binary(PINSCOPE_BINARY, args, 120);
    CAPTURE(r.err);
    CHECK(r.exit_code == c.exit_code);
    CHECK_FALSE(r.signalled);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(says) != std::string::npos);
    if (!c.output_ok) CHECK(r.out.empty());
    CHECK(r.err.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x1b') == std::string::npos);
    const auto after = contents(f.dir);
    CHECK(after == before);
    // PINSCOPE_HOSTILE_TABLE=FILE: every case as a row of a Markdown table (input, exit code, message).
    if (const char* table = std::getenv("PINSCOPE_HOSTILE_TABLE")) {
        std::string message = r.err.substr(0, r.err.find('\n'));
        for (size_t at; (at = message.find(f.dir.string())) != std::string::npos;)
            message.replace(at, f.dir.string().size(), "DIR");
        std::string input = shown.substr(1);
        for (size_t at; (at = input.find(f.dir.string())) != std::string::npos;)
            input.replace(at, f.dir.string().size(), "DIR");
        std::ofstream(table, std::ios::app)
            << "| `pinscope " << input << "` | " << r.exit_code << " | " << message << " |\n";
    }
}

void check_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases) check_case(c);
}

using Args = std::vector<std::string>;

}  // namespace

TEST_CASE("hostile captures: missing, empty, foreign, cut short, damaged, newer - exit 2, one line") {
    check_cases({
        {{"stats", "{dir}/missing.pinscope"}, 2, "missing.pinscope: no such file"},
        {{"stats", "{dir}/empty.pinscope"}, 2, "empty.pinscope: is empty"},
        {{"stats", "{dir}/picture.pinscope"}, 2, "not a pinscope capture"},
        {{"stats", "{dir}/config.pinscope"}, 2, "not a pinscope capture"},
        {{"stats", "{dir}/cut.pinscope"}, 2, "cut.pinscope: cut short"},
        {{"stats", "{dir}/flipped.pinscope"}, 2, "flipped.pinscope:"},
        {{"stats", "{dir}/newer.pinscope"}, 2, "newer pinscope (capture format 99"},
        {{"stats", "{dir}/a folder"}, 2, "is a folder"},
        {{"stats", "/dev/zero"}, 2, "/dev/zero"},
        {{"diff", "{dir}/good.pinscope", "{dir}/cut.pinscope"}, 2, "cut.pinscope: cut short"},
        {{"export", "{dir}/flipped.pinscope", "--to", "csv", "--output", "{dir}/out.csv"},
         2,
         "flipped.pinscope"},
        {{"advise", "{dir}/newer.pinscope"}, 2, "newer pinscope"},
        {{"{dir}/picture.pinscope"}, 2, "not a pinscope capture"},
        {{"gui", "--open", "{dir}/picture.pinscope"}, 2, "--open"},
        {{"stats", "{dir}/foreign.json"}, 2, "nor a PyTorch profiler trace"},
        {{"stats", "{dir}/no-events.json"}, 2, "no events pinscope can show"},
        {{"stats", "{dir}/cut-early.json"}, 2, "truncated"},
        {{"advise", "{dir}/not-gzip.json.gz"}, 2, "gzip stream is corrupt"},
        {{"replay", "{dir}/foreign.json"}, 2, "nor a PyTorch profiler trace"},
        {{"stats", "{dir}/good.pinscope", "--loader-dir", "{dir}"}, 2, "is not a PyTorch profiler trace"},
    });
}

TEST_CASE("a capture's config goes through the validator: it opens with a warning, the advisor refuses it") {
    check_cases({
        {{"stats", "{dir}/bad-config.pinscope"}, 0, "its config would not run (--num-workers -5", true},
        {{"advise", "{dir}/bad-config.pinscope"}, 2, "its config would not run (--num-workers -5"},
    });
}

TEST_CASE("a name in a capture reaches the terminal with its control characters escaped") {
    const BinaryResult r =
        run_binary(PINSCOPE_BINARY, {"stats", (fixtures().dir / "escapes.pinscope").string()});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
    CHECK(r.out.find("evil \\x1b[2J\\x1b[31mred\\x07 GPU") != std::string::npos);
}

TEST_CASE("hostile configs: every way a config file is wrong is exit 2 naming the file and the place") {
    check_cases({
        {{"run", "--config", "{dir}/missing.json"}, 2, "--config: cannot read config file"},
        {{"run", "--config", "{dir}/malformed.json"}, 2, "not valid JSON at line 1, column 19"},
        {{"run", "--config", "{dir}/overflow.json"}, 2, "the number 1e999 at \"seconds\""},
        {{"run", "--config", "{dir}/deep.json"}, 2, "nests deeper than 64 levels"},
        {{"run", "--config", "{dir}/unknown-key.json"}, 2, "unknown config key \"num_wrokers\""},
        {{"run", "--config", "{dir}/wrong-type.json"}, 2, "\"num_workers\" should be an integer"},
        {{"run", "--config", "{dir}/negative.json"},
         2,
         "--num-workers -5: num_workers option should be non-negative"},
        {{"run", "--config", "{dir}/array.json"}, 2, "should be a JSON object"},
        {{"run", "--config", "{dir}/too-long.json"}, 2, "seconds should be between 0 and 1000000"},
        {{"run", "--config", "{dir}/preset-bad.json"}, 2, "--batch-size 0"},
        {{"run", "--config", "/dev/zero"}, 2, "longer than 1024 KiB"},
        {{"run", "--config", "{dir}/a folder"}, 2, "is a folder"},
        {{"sweep", "--config", "{dir}/overflow.json", "--num-workers", "0..1"},
         2,
         "beyond the range of a double"},
        {{"predict", "--config", "{dir}/malformed.json"}, 2, "not valid JSON"},
        {{"run", "--preset", "no-such-preset"}, 2, "--preset no-such-preset: no such preset"},
    });
}

TEST_CASE("hostile calibrations: a damaged or unphysical calibration is exit 2 naming the key") {
    const auto run_with = [](const std::string& file) {
        return Args{"run", "--device", "sim", "--seconds", "0.1", "--calibration", "{dir}/" + file};
    };
    check_cases({
        {run_with("cal-missing.json"), 2, "--calibration: cannot read calibration file"},
        {run_with("cal-no-format.json"), 2, "not a calibration file (it has no \"format\""},
        {run_with("cal-slow.json"), 2, "_16MB\" should be between 0.1 and 2000 GB/s"},
        {run_with("cal-vanishing.json"), 2, "\"h2d_pinned_16MB\" should be between 0.1 and 2000 GB/s"},
        {run_with("cal-negative.json"), 2, "\"h2d_pinned_16MB\" should be between 0.1 and 2000 GB/s"},
        {run_with("cal-half-engine.json"), 2, "copy_engines should be between 1 and 16"},
        {run_with("cal-many-engines.json"), 2, "copy_engines should be between 1 and 16"},
        {run_with("cal-overflow.json"), 2, "the number 1e999 at \"copy_latency_us\""},
        {run_with("cal-no-pageable.json"), 2, "no \"h2d_pageable_<N>MB\" figures"},
        {run_with("cal-latency.json"), 2, "copy_latency_us should be between 0 and 1000 us"},
        {run_with("malformed.json"), 2, "not valid JSON at line 1"},
        {{"run", "--device", "sim", "--calibration", "/dev/zero"}, 2, "longer than 1024 KiB"},
        {{"predict", "--calibration", "{dir}/cal-slow.json"}, 2, "should be between 0.1 and 2000 GB/s"},
    });
}

TEST_CASE("hostile lessons: a lesson file a teacher got wrong is exit 2 naming the field") {
    check_cases({
        {{"lesson", "{dir}/lesson-missing.json"}, 2, "cannot read lesson file"},
        {{"lesson", "{dir}/lesson-malformed.json"}, 2, "not valid JSON at line 1"},
        {{"lesson", "{dir}/lesson-no-belief.json"}, 2, "\"belief\" should be a non-empty string"},
        {{"lesson", "{dir}/lesson-answer-index.json"}, 2, "\"question.answer\" should index the 2 choices"},
        {{"lesson", "{dir}/lesson-bad-run.json"}, 2, "run \"w\": num_workers=-1"},
        {{"lesson", "{dir}/lesson-bad-metric.json"}, 2, "unknown metric \"speediness\""},
        {{"lesson", "{dir}/lesson-no-run.json"}, 2, "names no run \"w9\""},
        {{"lesson", "{dir}/lesson-overflow.json"}, 2, "beyond the range of a double"},
        {{"lesson", "{dir}/lesson-huge.json"}, 2, "longer than 256 KiB"},
        {{"lesson", "{dir}/lesson-deep.json"}, 2, "nests deeper than 64 levels"},
        {{"lesson", "no-such-lesson"}, 2, "lesson no-such-lesson: no such lesson"},
    });
}

TEST_CASE("hostile image folders: a dataset that cannot be read is exit 2 before the run") {
    check_cases({
        {{"run", "--device", "sim", "--dataset", "folder:{dir}/no-such"},
         2,
         "--dataset folder:{dir}/no-such: no such folder"},
        {{"run", "--device", "sim", "--dataset", "folder:{dir}/a folder"},
         2,
         "holds no .jpg, .jpeg or .png files"},
        {{"run", "--device", "sim", "--dataset", "imagenet"},
         2,
         "dataset should be synthetic, sample-jpegs or folder:PATH"},
        {{"run", "--device", "sim", "--dataset", "folder:{dir}/broken-images", "--sample-shape", "4x8x8"},
         2,
         "needs sample_shape CxHxW with 1 or 3 channels"},
        {{"predict", "--dataset", "folder:{dir}/no-such"}, 2, "no such folder"},
    });
}

TEST_CASE("hostile numbers: every flag that takes a number refuses what it cannot use, in one line") {
    check_cases({
        {{"run", "--seconds", "inf"}, 2, "--seconds inf: seconds should be between 0 and 1000000 s"},
        {{"run", "--seconds", "nan"}, 2, "--seconds nan"},
        {{"run", "--seconds", "-1"}, 2, "--seconds -1"},
        {{"run", "--seconds", "1e300"}, 2, "seconds should be between 0 and 1000000"},
        {{"run", "--num-workers", "1000000000"}, 2, "--num-workers 1000000000"},
        {{"run", "--batch-size", "0"}, 2, "--batch-size 0"},
        {{"run", "--kernel-us", "-1"}, 2, "--kernel-us -1"},
        {{"run", "--slow-motion", "0"}, 2, "--slow-motion 0"},
        {{"run", "--sample-shape", "0x0"}, 2, "--sample-shape 0x0"},
        {{"run", "--pinned-budget-mb", "99999999999"}, 2, "--pinned-budget-mb 99999999999"},
        {{"run", "--batches", "1e3"}, 2, "--batches 1e3: batches should be an integer"},
        {{"predict", "--seconds", "1e300"}, 2, "seconds should be between 0 and 1000000"},
        {{"predict", "--batch-size", "-3"}, 2, "--batch-size -3"},
        {{"sweep", "--seconds-each", "0", "--num-workers", "0..1"}, 2, "--seconds-each"},
        {{"sweep", "--num-workers", "0..100000"}, 2, "--num-workers 0..100000"},
        {{"bench", "--seconds", "1e9"}, 2, "--seconds"},
        {{"advise", "--cores", "0", "{dir}/good.pinscope"}, 2, "--cores"},
        {{"lesson", "pin-memory-alone", "--seconds", "0"}, 2, "--seconds"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.png", "--window", "100:200"},
         2,
         "--window 100:200: the capture is"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.png", "--window", "abc"},
         2,
         "--window abc"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.png", "--window", "0.5:0.1"},
         2,
         "--window 0.5:0.1"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.png", "--size", "0x0"},
         2,
         "--size 0x0"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.png", "--size", "99999x99999"},
         2,
         "--size 99999x99999"},
        {{"gui", "--size", "1x1"}, 2, "--size 1x1"},
        {{"gui", "--font-scale", "100"}, 2, "--font-scale"},
    });
}

TEST_CASE(
    "hostile outputs: a place that cannot be written, or a write that would destroy, is refused first") {
    check_cases({
        {{"run", "--device", "sim", "--batches", "2", "--capture", ""},
         2,
         "--capture: no file name was given"},
        {{"run", "--device", "sim", "--batches", "2", "--capture", "/proc/x.pinscope"},
         2,
         "--capture /proc/x.pinscope: cannot create a file in /proc"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/a folder"}, 2, "is a folder"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/no/such/t.json"},
         2,
         "does not exist"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/socket"}, 2, "is a socket"},
        {{"run", "--device", "sim", "--batches", "2", "--capture", "{dir}/precious.json", "--trace",
          "{dir}/precious.json"},
         2,
         "--capture {dir}/precious.json: --trace writes there too"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/good.pinscope"},
         2,
         "--trace writes Chrome Trace JSON, not a capture"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/link-to-good.pinscope"},
         2,
         "--trace writes Chrome Trace JSON, not a capture"},
        {{"run", "--device", "sim", "--batches", "2", "--trace", "{dir}/capture-behind.json"},
         2,
         "that file is a pinscope capture, which writing the trace there would destroy"},
        {{"run", "--config", "{dir}/config.json", "--save-config", "{dir}/config.json"},
         2,
         "that is the --config file, which this command reads"},
        {{"run", "--device", "sim", "--calibration", "{dir}/cal-good.json", "--batches", "2", "--capture",
          "{dir}/cal-good.json"},
         2,
         "that is the --calibration file"},
        {{"export", "{dir}/good.pinscope", "--to", "perfetto", "--output", "{dir}/good.pinscope"},
         2,
         "that is the capture it exports, which this command reads"},
        {{"export", "{dir}/good.pinscope", "--to", "csv", "--output", "{dir}/link-to-good.pinscope"},
         2,
         "--output"},
        {{"export", "{dir}/good.pinscope", "--to", "png", "--output", "{dir}/x.txt"}, 2, "ending in .png"},
        {{"export", "{dir}/good.pinscope", "--to", "svg", "--output", "/proc/x.svg"}, 2, "/proc"},
        {{"export", "{dir}/good.pinscope", "--to", "perfetto", "--output", ""}, 2, "--output: no file name"},
        {{"sweep", "--device", "sim", "--num-workers", "0..1", "--csv", "{dir}/good.pinscope"},
         2,
         "--csv {dir}/good.pinscope: that file is a pinscope capture"},
        {{"sweep", "--device", "sim", "--num-workers", "0..1", "--csv", "/proc/sweep.csv"},
         2,
         "--csv /proc/sweep.csv"},
        {{"gui", "--screenshot", "/proc/x.png"}, 2, "--screenshot /proc/x.png"},
        {{"gui", "--screenshot", "{dir}/good.pinscope"}, 2, "--screenshot"},
        {{"probe", "--output", "/proc/x.json"}, 2, "pinscope probe: "},  // no GPU here: it says so first
    });
}
