// Files in and out, below the command line: the output policy (OutputFile, OutputPlan), the temporaries
// a signal handler removes, JSON a user gave read with messages that say where it is wrong, text from a
// file made printable, and fonts checked before the app's atlas reads them.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/files/input_file.h"
#include "core/files/json_text.h"
#include "core/files/output_file.h"
#include "core/files/temporary_files.h"
#include "core/io/capture.h"
#include "core/io/output_plan.h"
#include "core/units/units.h"
#include "run_binary.h"
#include "scratch.h"
#if PINSCOPE_HAVE_FONTS
#include "core/fonts/font_check.h"
#endif

using namespace pinscope;
using namespace pinscope::testing;

namespace {

namespace fs = std::filesystem;

fs::path fresh_folder(const std::string& name) {
    const fs::path folder = scratch_path(name);
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

size_t entries(const fs::path& folder) {
    return static_cast<size_t>(std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("an output file is written whole through a temporary made up front, or left as it was") {
    const fs::path folder = fresh_folder("output-file");
    const fs::path path = folder / "out.json";
    std::ofstream(path) << "old";
    ::chmod(path.c_str(), 0640);
    {
        OutputFile file(path, "the test");
        CHECK(file.kind() == OutputFile::Kind::file);
        CHECK(entries(folder) == 2);  // the target and its temporary, before anything is written
        CHECK(slurp(path) == "old");
        file.write("new\n");
        CHECK(file.written());
    }
    CHECK(slurp(path) == "new\n");
    CHECK((fs::status(path).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(entries(folder) == 1);
    {
        OutputFile file(path, "the test");
        CHECK_THROWS_AS(file.write([](std::ostream& out) {
            out << "half";
            throw std::runtime_error("the writer failed");
        }),
                        std::runtime_error);
    }
    CHECK(slurp(path) == "new\n");
    CHECK(entries(folder) == 1);
    { OutputFile unused(folder / "never.json", "the test"); }  // made and dropped: nothing stays
    CHECK(entries(folder) == 1);
}

TEST_CASE("an output path that is a folder, a socket's or nowhere is refused before any work") {
    const fs::path folder = fresh_folder("output-refused");
    CHECK_THROWS_WITH_AS(OutputFile(folder, "x"), doctest::Contains("is a folder"), OutputPathError);
    CHECK_THROWS_WITH_AS(OutputFile(folder / "no" / "x.json", "x"), doctest::Contains("does not exist"),
                         OutputPathError);
    CHECK_THROWS_WITH_AS(OutputFile("", "x"), doctest::Contains("no file name"), OutputPathError);
    CHECK_THROWS_WITH_AS(OutputFile("/proc/x.json", "x"), doctest::Contains("cannot create a file in /proc"),
                         OutputPathError);
    const OutputPathError labelled = OutputPathError("/proc/x", "cannot", "--trace");
    CHECK(std::string(labelled.what()) == "--trace /proc/x: cannot");
}

TEST_CASE("a character device is written in place as a stream") {
    OutputFile null("/dev/null", "the test");
    CHECK(null.kind() == OutputFile::Kind::stream);
    null.write("nothing to keep");
    struct stat st;
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("a temporary a killed writer left is removed by the next write to its path") {
    const fs::path folder = fresh_folder("stale");
    // pid 2^22 + 1 is beyond Linux's pid_max: no process has it.
    const fs::path stale = folder / ".out.json.tmp4194305-0";
    const fs::path live = folder / fmt::format(".out.json.tmp{}-77", ::getpid());  // ours: left alone
    std::ofstream(stale) << "half";
    std::ofstream(live) << "half";
    OutputFile(folder / "out.json", "the test").write("whole");
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(live));
    CHECK(slurp(folder / "out.json") == "whole");
}

TEST_CASE("the temporaries a signal handler removes are every one this process has open") {
    const fs::path folder = fresh_folder("registry");
    OutputFile a(folder / "a.json", "a"), b(folder / "b.json", "b");
    CHECK(entries(folder) == 2);
    remove_all_temporaries_now();  // what a handler calls before the process ends
    CHECK(entries(folder) == 0);
}

TEST_CASE("an output plan refuses an input, a second output on one file, and a capture replaced") {
    const fs::path folder = fresh_folder("plan");
    std::ofstream(folder / "in.json") << "{}";
    std::ofstream(folder / "capture.pinscope") << capture_format::file_header() << capture_format::end();
    OutputPlan plan;
    plan.add_input(folder / "in.json", "the --config file");
    const std::string refused = "--save-config " + (folder / "in.json").string() +
                                ": that is the --config file, which this command reads";
    CHECK_THROWS_WITH_AS(
        plan.add_output(folder / "in.json", "--save-config", "the config", OutputFormat::other),
        doctest::Contains(refused.c_str()), OutputPathError);
    OutputFile trace = plan.add_output(folder / "t.json", "--trace", "the trace", OutputFormat::other);
    CHECK_THROWS_WITH_AS(
        plan.add_output(folder / "./t.json", "--capture", "the capture", OutputFormat::capture),
        doctest::Contains("--trace writes there too"), OutputPathError);
    CHECK_THROWS_WITH_AS(
        plan.add_output(folder / "capture.pinscope", "--trace", "the trace", OutputFormat::other),
        doctest::Contains("that file is a pinscope capture"), OutputPathError);
    CHECK_NOTHROW(
        plan.add_output(folder / "capture.pinscope", "--capture", "the capture", OutputFormat::capture));
    CHECK_NOTHROW(plan.add_output("/dev/null", "--a", "a", OutputFormat::other));
    CHECK_NOTHROW(plan.add_output("/dev/null", "--b", "b", OutputFormat::other));  // discarding twice is fine
}

TEST_CASE("JSON a user gave says where it is wrong: the line and column, the key of a number beyond range") {
    CHECK(parse_json_text(R"({"a": [1, 2.5, "x"]})")["a"][1] == 2.5);
    CHECK_THROWS_WITH_AS(parse_json_text("{\n  \"a\": 1,,\n}"), "not valid JSON at line 2, column 10",
                         JsonTextError);
    CHECK_THROWS_WITH_AS(
        parse_json_text(R"({"config": {"seconds": 1e999}})"),
        doctest::Contains("the number 1e999 at \"config.seconds\" is beyond the range of a double"),
        JsonTextError);
    CHECK_THROWS_WITH_AS(parse_json_text(R"({"runs": [{}, {"with": [-1e400]}]})"),
                         doctest::Contains("at \"runs[1].with[0]\""), JsonTextError);
    CHECK_THROWS_WITH_AS(parse_json_text(std::string(65, '[') + std::string(65, ']')),
                         "it nests deeper than 64 levels", JsonTextError);
    CHECK_NOTHROW(parse_json_text(std::string(64, '[') + std::string(64, ']')));
    CHECK_THROWS_AS(parse_json_text(""), JsonTextError);
}

TEST_CASE("an input file is read whole up to a bound, never forever") {
    CHECK_THROWS_WITH_AS(read_input_file("/dev/zero", 1 << 16), doctest::Contains("longer than 64 KiB"),
                         InputFileError);
    CHECK_THROWS_WITH_AS(read_input_file("/", 1 << 16), "it is a folder, not a file", InputFileError);
    CHECK_THROWS_WITH_AS(read_input_file("/nonexistent/x", 1 << 16), "No such file or directory",
                         InputFileError);
}

TEST_CASE("text from a file is printable: control characters escaped, UTF-8 kept") {
    CHECK(printable("NVIDIA H100 80GB HBM3") == "NVIDIA H100 80GB HBM3");
    CHECK(printable("evil \x1b[2J\a") == "evil \\x1b[2J\\x07");
    CHECK(printable("a\nb\tc") == "a\\nb\\tc");
    CHECK(printable("\xce\xbb \xc2\xb7 \xe2\x80\xa6") == "\xce\xbb \xc2\xb7 \xe2\x80\xa6");  // λ · …
    CHECK(printable("\xc2\x9b"
                    "31m") == "\\xc2\\x9b31m");  // the 8-bit CSI is a control too
    CHECK(printable("\xff\xfe") == "\\xff\\xfe");
    CHECK(printable("\xe2\x80") == "\\xe2\\x80");  // cut short
}

#if PINSCOPE_HAVE_FONTS
TEST_CASE("a font file is checked by FreeType before the app uses it: empty, foreign, cut short refused") {
    const fs::path folder = fresh_folder("fonts");
    std::ofstream(folder / "empty.ttf");
    const std::string dejavu = slurp("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    REQUIRE_MESSAGE(dejavu.size() > 100'000, "fonts-dejavu-core is a dependency of the build");
    std::ofstream(folder / "cut.ttf", std::ios::binary).write(dejavu.data(), 20'000);
    CHECK(font_file_problem(folder / "empty.ttf") == "it is empty");
    CHECK(font_file_problem("/etc/passwd") == "it is not a font FreeType can read");
    CHECK_FALSE(font_file_problem(folder / "cut.ttf").empty());
    CHECK(font_file_problem(folder / "missing.ttf") == "No such file or directory");
    CHECK(font_file_problem(folder) == "it is a folder, not a file");
    std::string bytes;
    CHECK(font_file_problem("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", &bytes).empty());
    CHECK(bytes == dejavu);
}
#endif
