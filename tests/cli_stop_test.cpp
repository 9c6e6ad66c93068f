// Runs stop when told, whatever their work would still take: their seconds, Ctrl-C, SIGTERM and SIGHUP all
// end a run within a fraction of a second of being asked, with the summary printed, every requested file
// written whole, and the work in hand cut and marked so in the trace. The time bounds here are generous
// (seconds where the runs take a tenth of that) because a busy 2-core machine must pass them too.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/io/capture.h"
#include "run_binary.h"
#include "scratch.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

namespace fs = std::filesystem;

// The spans of a capture that the run's end cut short.
std::vector<Span> cut_spans(const Capture& capture) {
    std::vector<Span> cut;
    for (const LaneInfo& lane : capture.store.lanes())
        for (const Span& s : capture.store.spans(lane.id))
            if (s.cut) cut.push_back(s);
    return cut;
}

// No file of `folder` is a temporary left behind (".NAME.tmpPID-N").
bool no_temporaries(const fs::path& folder) {
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().filename().string().find(".tmp") != std::string::npos) return false;
    return true;
}

}  // namespace

TEST_CASE("a run whose kernel outlasts its seconds ends on time, with the kernel cut and marked") {
    const fs::path folder = scratch_path("long-kernel");
    fs::create_directories(folder);
    const BinaryResult r = run_binary(
        PINSCOPE_BINARY, {"run", "--device", "sim", "--seconds", "1", "--kernel-us", "10000000", "--capture",
                          (folder / "k.pinscope").string(), "--trace", (folder / "k.json").string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.seconds < 5);  // the kernel alone would take 10 s, and the run used to take 40
    const Capture capture = load_capture(folder / "k.pinscope");
    const std::vector<Span> cut = cut_spans(capture);
    REQUIRE(cut.size() >= 1);
    CHECK(cut.front().kind == SpanKind::kernel);
    CHECK(cut.front().duration() < 2 * kNsPerS);
    const nlohmann::json trace = nlohmann::json::parse(slurp(folder / "k.json"));
    size_t marked = 0;
    for (const auto& e : trace["traceEvents"])
        marked += e.value("ph", "") == "X" && e.contains("args") && e["args"].contains("cut");
    CHECK(marked == cut.size());
    CHECK(no_temporaries(folder));
}

TEST_CASE("at 1000x slow motion a 96 MiB batch's run ends on time, its unfinished work cut") {
    const fs::path folder = scratch_path("slow-motion");
    fs::create_directories(folder);
    for (const char* mode : {"thread", "direct"}) {
        CAPTURE(mode);
        const BinaryResult r =
            run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--seconds", "1", "--slow-motion", "1000",
                                         "--batch-size", "32", "--sample-shape", "3x512x512", "--pin-mode",
                                         mode, "--capture", (folder / "s.pinscope").string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.seconds < 5);  // one batch's collation alone takes about 10 s at 1000x
        const Capture capture = load_capture(folder / "s.pinscope");
        CHECK_FALSE(cut_spans(capture).empty());
        CHECK(r.out.find("metrics over") != std::string::npos);
    }
}

TEST_CASE("SIGTERM, SIGHUP and Ctrl-C end a run as its seconds would: summary, whole files, 128 + signal") {
    const fs::path folder = scratch_path("signals");
    fs::create_directories(folder);
    for (const auto& signal_and_code :
         {std::pair{SIGTERM, 143}, std::pair{SIGHUP, 129}, std::pair{SIGINT, 130}}) {
        // Named: clang 14 lambdas (CAPTURE's too) cannot capture a structured binding.
        const int signal_number = signal_and_code.first, code = signal_and_code.second;
        CAPTURE(signal_number);
        const fs::path capture = folder / "c.pinscope", trace = folder / "t.json";
        double sent_at = 0;
        const BinaryResult r = run_binary(PINSCOPE_BINARY,
                                          {"run", "--device", "sim", "--seconds", "60", "--capture",
                                           capture.string(), "--trace", trace.string()},
                                          60, [&](pid_t pid, double seconds) {
                                              if (seconds > 1.5 && sent_at == 0) {
                                                  ::kill(pid, signal_number);
                                                  sent_at = seconds;
                                              }
                                          });
        CAPTURE(r.err);
        CHECK(r.exit_code == code);
        CHECK_FALSE(r.signalled);
        CHECK(r.seconds - sent_at < 10);  // the run stops: it does not go on to its 60 s
        CHECK(r.out.find("samples/s") != std::string::npos);
        const Capture kept = load_capture(capture);
        CHECK(kept.store.span_count() > 0);
        CHECK(nlohmann::json::parse(slurp(trace))["traceEvents"].size() > 0);
        CHECK(no_temporaries(folder));
    }
}

TEST_CASE("a signal outside a run ends the process at once, and its temporaries with it") {
    // export readies its output (a temporary beside it) before it reads its input; a FIFO nobody writes
    // holds it there, at a known point, until the signal comes.
    const fs::path folder = scratch_path("killed");
    fs::create_directories(folder);
    const fs::path fifo = folder / "input.fifo", output = folder / "out.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::ofstream(output) << "precious\n";
    bool sent = false;
    const BinaryResult r = run_binary(
        PINSCOPE_BINARY, {"export", fifo.string(), "--to", "perfetto", "--output", output.string()}, 60,
        [&](pid_t pid, double) {
            if (!sent && !no_temporaries(folder)) {  // the temporary exists: the export waits on its input
                ::kill(pid, SIGTERM);
                sent = true;
            }
        });
    CHECK(sent);
    CHECK(r.signalled);
    CHECK(r.exit_code == 128 + SIGTERM);
    CHECK(no_temporaries(folder));
    CHECK(slurp(output) == "precious\n");
}
