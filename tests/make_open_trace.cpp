// Writes the three-process trace of tests/three_process_trace.h as a capture without a pipeline config:
// what the app's render test opens, and what docs/open-trace.png shows.
//   make_open_trace OUT.pinscope [STEPS]
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/io/capture.h"
#include "tests/three_process_trace.h"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: make_open_trace OUT.pinscope [STEPS]\n");
        return 2;
    }
    const int steps = argc == 3 ? std::atoi(argv[2]) : 8;
    if (steps < 1 || steps > 100'000) {
        std::fprintf(stderr, "make_open_trace: STEPS must be 1 to 100000\n");
        return 2;
    }
    try {
        pinscope::testing::ThreeProcessTrace trace(steps);
        pinscope::CaptureInfo info;  // no config: no pipeline of pinscope's ran this
        info.device.name = "2x NVIDIA H100 80GB HBM3";
        info.window = {trace.store.first_time(), trace.store.last_time()};
        pinscope::save_capture(argv[1], trace.store, info);
        std::printf("make_open_trace: %zu spans, %d steps: %s\n", trace.store.span_count(), steps, argv[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_open_trace: %s\n", e.what());
        return 1;
    }
}
