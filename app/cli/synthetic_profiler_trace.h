#pragma once
// A PyTorch profiler trace made up for benchmarks: the shape Kineto writes (torch 2.4 and later: one
// event over several indented lines, microseconds with three decimals after baseTimeNanoseconds, which
// comes after the events) and the mix of a training step: the train loop's Python stack and operators,
// CUDA runtime calls with their ac2g flows, kernels and copies on two streams, a DataLoader wait and a
// pin-memory thread, metadata. Deterministic: the same size gives the same file.
#include <cstdint>
#include <filesystem>

namespace pinscope {

struct SyntheticTraceStats {
    uint64_t bytes = 0, events = 0, steps = 0;
};

// Writes at least `bytes` of JSON (whole steps) to `path`.
SyntheticTraceStats write_synthetic_profiler_trace(const std::filesystem::path& path, uint64_t bytes);

}  // namespace pinscope
