// The lessons README.md gives, each run as written on the simulated GPU of the machine that runs the
// tests (CI's has two cores), and checked for what README says it shows. README must quote each command
// exactly as it is here (a test checks that), so the two cannot drift apart. Run alone (RUN_SERIAL).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/run_binary.h"

using pinscope::testing::slurp;

namespace {

// `pinscope run <args> --json` (what README's commands run, made quiet for the test) as JSON.
nlohmann::json run(const std::string& args) {
    const auto out =
        std::filesystem::temp_directory_path() / ("pinscope_lesson_" + std::to_string(::getpid()));
    const std::string command =
        std::string(PINSCOPE_BINARY) + " run " + args + " --json >" + out.string() + " 2>/dev/null";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    const nlohmann::json j = nlohmann::json::parse(slurp(out));
    std::filesystem::remove(out);
    return j;
}

double metric(const nlohmann::json& j, const char* key) {
    return j[key].get<double>();
}

// README quotes `command` verbatim.
void quoted_in_readme(const std::string& command) {
    static const std::string readme = slurp(PINSCOPE_README);
    CAPTURE(command);
    CHECK(readme.find("`" + command + "`") != std::string::npos);
}

}  // namespace

TEST_CASE("README lesson: pinned copies run at the link's speed, pageable ones far below it") {
    const std::string pageable =
        "run --device sim --batch-size 1 --sample-shape 1x4096x4096 --batches 8 --seconds 0 --no-pin-memory";
    const std::string pinned =
        "run --device sim --batch-size 1 --sample-shape 1x4096x4096 --batches 8 --seconds 0 --pin-mode "
        "direct";
    quoted_in_readme(pageable);
    quoted_in_readme(pinned);
    const double slow = metric(run(pageable.substr(4)), "h2d_gbps"),
                 fast = metric(run(pinned.substr(4)), "h2d_gbps");
    MESSAGE("H2D while copying: pageable " << slow << " GB/s, pinned " << fast << " GB/s");
    CHECK(slow < 15);
    CHECK(fast > 45);
    CHECK(fast > 4 * slow);
}

TEST_CASE("README lesson: on a 2-core machine PyTorch's pin thread is slower than pinning directly") {
    const std::string thread = "run --device sim --num-workers 4 --pin-mode thread --seconds 3";
    const std::string direct = "run --device sim --num-workers 4 --pin-mode direct --seconds 3";
    quoted_in_readme(thread);
    quoted_in_readme(direct);
    const double t = metric(run(thread.substr(4)), "samples_per_s"),
                 d = metric(run(direct.substr(4)), "samples_per_s");
    MESSAGE("samples/s: pin thread " << t << ", direct " << d);
    CHECK(d >= 1.3 * t);
}

TEST_CASE("README lesson: workers beyond the cores help with waiting, not with CPU work") {
    const std::string cpu2 = "run --device sim --pin-mode direct --decode-us 200 --num-workers 2 --seconds 3";
    const std::string cpu8 = "run --device sim --pin-mode direct --decode-us 200 --num-workers 8 --seconds 3";
    const std::string io2 =
        "run --device sim --pin-mode direct --sample-shape 3x64x64 --io-us 400 --num-workers 2 --seconds 3";
    const std::string io8 =
        "run --device sim --pin-mode direct --sample-shape 3x64x64 --io-us 400 --num-workers 8 --seconds 3";
    for (const std::string& c : {cpu2, cpu8, io2, io8}) quoted_in_readme(c);
    const double c2 = metric(run(cpu2.substr(4)), "samples_per_s"),
                 c8 = metric(run(cpu8.substr(4)), "samples_per_s");
    const double i2 = metric(run(io2.substr(4)), "samples_per_s"),
                 i8 = metric(run(io8.substr(4)), "samples_per_s");
    MESSAGE("decode: 2 workers " << c2 << ", 8 workers " << c8 << "; io: 2 workers " << i2 << ", 8 workers "
                                 << i8);
    CHECK(c8 <= 1.1 * c2);
    CHECK(i8 >= 2 * i2);
}

TEST_CASE("README lesson: non_blocking needs a second stream to overlap copies with kernels") {
    const std::string one =
        "run --device sim --sample-shape 3x32x32 --d2h-bytes 33554432 --kernel-us 600 --streams 1 --seconds "
        "3";
    const std::string two =
        "run --device sim --sample-shape 3x32x32 --d2h-bytes 33554432 --kernel-us 600 --streams 2 --seconds "
        "3";
    quoted_in_readme(one);
    quoted_in_readme(two);
    const nlohmann::json a = run(one.substr(4)), b = run(two.substr(4));
    MESSAGE("samples/s: 1 stream " << metric(a, "samples_per_s") << ", 2 streams "
                                   << metric(b, "samples_per_s"));
    CHECK(metric(b, "samples_per_s") >= 1.5 * metric(a, "samples_per_s"));
    CHECK(metric(a, "overlap") <= 0.05);
    CHECK(metric(b, "overlap") >= 0.5);
}

TEST_CASE("README lesson: with a straggler, in_order holds later batches back and in_order=False does not") {
    const std::string ordered =
        "run --device sim --io-us 100 --sample-shape 3x32x32 --straggler-every 8 --seconds 3";
    const std::string arrival =
        "run --device sim --io-us 100 --sample-shape 3x32x32 --straggler-every 8 --seconds 3 --no-in-order";
    quoted_in_readme(ordered);
    quoted_in_readme(arrival);
    const nlohmann::json a = run(ordered.substr(4)), b = run(arrival.substr(4));
    MESSAGE("reorder buffer at most " << metric(a, "reorder_max") << " in order, " << metric(b, "reorder_max")
                                      << " in arrival order; samples/s " << metric(a, "samples_per_s")
                                      << " and " << metric(b, "samples_per_s"));
    CHECK(metric(a, "reorder_max") >= 1);
    CHECK(metric(b, "reorder_max") == 0);
    CHECK(metric(b, "samples_per_s") >= metric(a, "samples_per_s"));
}
