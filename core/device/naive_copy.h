#pragma once
// The naive benchmark on a real GPU. Its whole point is a fresh process's start-up (the first CUDA call
// makes the context), and pinscope's own process started its GPU long before: so the benchmark runs in
// a fresh pinscope process (`pinscope naive-copy-child`, hidden), which times each step on the steady
// clock that every process of the machine shares and prints them as JSON, and the session draws them.
// On the simulated GPU the session runs the same steps itself on a cold device (Session says how).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/trace/span.h"

namespace pinscope {

struct NaiveCopyRequest {
    size_t bytes = 0;
    bool pinned = false;  // tensor.pin_memory() before the stopwatch
    bool non_blocking = true;
    int gpu = 0;
};

// One timed step of the child: what it was, which span kind draws it, when (now_ns()'s clock).
struct NaiveCopyStep {
    std::string what;
    SpanKind kind = SpanKind::startup;
    TimeNs start = 0, end = 0;
};

// In this process, which must not have touched CUDA yet: the naive script, step by step (CUDA builds
// only; throws DeviceError elsewhere or when a call fails). The child's JSON: {"steps": [{"what",
// "kind", "start", "end"}, ...]}.
nlohmann::json run_naive_copy_here(const NaiveCopyRequest& request);

// The program a fresh process runs: pinscope's own binary, which main() names. Empty: none (a test
// binary), and the naive benchmark on a real GPU says so.
void set_fresh_process_program(std::string path);
const std::string& fresh_process_program();

// Runs `fresh_process_program() naive-copy-child ...` and reads its steps, each checked (a known kind,
// ordered times). Throws DeviceError with the child's own message when it fails.
std::vector<NaiveCopyStep> run_naive_copy_in_fresh_process(const NaiveCopyRequest& request);

// The request as the child reads it (its one argument), and back; naive_copy_request throws
// std::invalid_argument for anything else.
nlohmann::json naive_copy_request_json(const NaiveCopyRequest& request);
NaiveCopyRequest naive_copy_request(const std::string& text);

// The child's JSON read back into steps; throws DeviceError naming what is wrong.
std::vector<NaiveCopyStep> naive_copy_steps(const nlohmann::json& json);

}  // namespace pinscope
