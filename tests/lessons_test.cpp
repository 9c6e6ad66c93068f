// Every lesson keeps what its text promises, run on the simulated GPU on the machine that runs the tests
// (CI's has two cores), a few seconds per run. Run alone (RUN_SERIAL): the promises are about speed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "core/images/sample_jpegs.h"
#include "core/io/metrics_json.h"
#include "core/lab/lesson.h"
#include "core/lab/measured_run.h"
#include "tests/scratch.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

constexpr double kSecondsPerRun = 2;  // as the app measures a lesson (LessonPlayer::reveal)

LessonOutcome run_on_sim(const std::string& slug) {
    const Lesson* lesson = find_lesson(slug);
    REQUIRE(lesson != nullptr);
    const Measure measured = [](const PipelineConfig& config) {
        PipelineConfig bounded = config;
        bounded.seconds = kSecondsPerRun;
        return metrics_json(measure(bounded));
    };
    LessonOutcome outcome = run_lesson(*lesson, on_sim(), measured);
    MESSAGE(slug << ": " << outcome.answer);
    return outcome;
}

void check_kept(const std::string& slug) {
    const LessonOutcome outcome = run_on_sim(slug);
    for (const CheckResult& check : outcome.checks) {
        MESSAGE(slug << ": " << check.line);
        CHECK(check.held);
    }
    CHECK(outcome.answer.find('{') == std::string::npos);  // every placeholder filled in
}

}  // namespace

TEST_CASE(
    "a: pinning alone changes little, with workers PyTorch's pin thread gains little and collating into "
    "pinned memory (beyond PyTorch) pays") {
    check_kept("pin-memory-alone");
}

TEST_CASE(
    "b: stall at 8 workers is at least 0.3 lower than at 0, and 8 workers are no faster than 2 on "
    "decode") {
    check_kept("workers-hide-decode");
}

TEST_CASE("c: waiting (io_us) is not work: 8 workers give at least twice the samples/s of 2 on 2 cores") {
    check_kept("waiting-is-not-work");
}

TEST_CASE("d: a deeper prefetch stalls less on uneven samples and holds more pinned memory") {
    check_kept("prefetch-depth");
}

TEST_CASE("e: non_blocking from pageable memory still holds the host, from pinned memory it overlaps") {
    check_kept("non-blocking-needs-pinned");
}

TEST_CASE(
    "f: with one copy engine per-chunk issue overlaps nothing, copies first or a second engine overlap "
    "most") {
    check_kept("overlap-copy-engines");
}

TEST_CASE(
    "g: a naive benchmark shows pinned 20x faster or more, warmed up pinned copies are 3 to 10x faster") {
    check_kept("honest-transfer-measurement");
}

TEST_CASE("h: collating straight into pinned memory beats PyTorch's pin thread on large batches") {
    check_kept("pin-thread-bottleneck");
}

TEST_CASE("i: a deeper prefetch on a GPU-bound run holds more pinned memory for no more samples/s") {
    check_kept("too-much-pinned");
}

TEST_CASE("j: in order, batches wait behind a straggler, in arrival order the run is faster") {
    check_kept("head-of-line-blocking");
}

TEST_CASE("k: on real JPEGs decoded on the workers, 2 workers beat none and 8 add little to 2") {
    // The sample JPEGs are made in a scratch cache, not the home of whoever runs the tests (ctest runs
    // each test case in a process of its own: the variable ends with it).
    const ScratchFolder cache;
    setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
    check_kept("workers-decode-jpegs");
    CHECK(std::filesystem::is_directory(sample_jpegs_folder()));
    CHECK(sample_jpegs_folder().string().starts_with(cache.path().string()));
}

TEST_CASE("l: on a decode-heavy load the usual recipe's speed-up comes from its workers") {
    check_kept("the-usual-recipe");
}

TEST_CASE("every lesson that runs direct pinning says it is beyond PyTorch") {
    for (const Lesson& lesson : builtin_lessons()) {
        CAPTURE(lesson.slug);
        bool direct = lesson.config.value("pin_mode", "") == "direct";
        for (const LessonRun& run : lesson.runs)
            direct = direct || run.with.value("pin_mode", "") == "direct";
        if (!direct) continue;
        std::string text = lesson.answer;
        for (const std::string& step : lesson.steps) text += step;
        for (const LessonRun& run : lesson.runs) text += run.label;
        CHECK(text.find("beyond PyTorch") != std::string::npos);
    }
}

TEST_CASE("m: one request at a time, a pinned buffer kept across requests answers sooner than pinning each") {
    check_kept("latency-pin-each-request");
}

TEST_CASE("n: sending uint8 and normalising on the GPU carries far more samples/s than float32") {
    check_kept("fewer-bytes-over-the-link");
}
