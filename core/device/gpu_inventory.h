#pragma once
// What `pinscope info` reports about the machine's GPUs and CUDA software. Plain types: the CUDA
// build fills them in (core/device/cuda/gpu_inventory.cpp), a build without CUDA says so.
#include <cstdint>
#include <string>
#include <vector>

namespace pinscope {

struct PcieLink {
    int generation = 0, width = 0;          // now; an idle GPU may train its link down to save power
    int max_generation = 0, max_width = 0;  // the most the GPU and its slot allow
    std::string to_string() const;          // "PCIe Gen5 x16", "PCIe Gen5 x16 (now Gen1 x16)", "" if unknown
};

struct GpuDescription {
    int ordinal = 0;
    std::string name;
    std::string pci_bus_id;  // "0000:19:00.0"
    int64_t memory_bytes = 0;
    int compute_major = 0, compute_minor = 0;
    int multiprocessors = 0;
    int copy_engines = 0;  // asyncEngineCount: engines that copy while kernels run
    PcieLink link;
};

struct CudaEnvironment {
    bool built = false;       // this build has the CUDA device
    std::string unavailable;  // why no GPU can be used; empty when one can
    std::string driver;       // "580.159.04, CUDA 13.0"
    std::string runtime;      // the CUDA runtime this build carries: "13.0"
    std::string cupti;        // the CUPTI library found, or why none could be loaded
    std::string tracing;      // whether GPU tracing works, from a real copy and kernel (when checked)
    std::vector<GpuDescription> gpus;
};

// `check_tracing` runs a tiny traced copy and kernel on the first GPU to say whether tracing works.
CudaEnvironment describe_cuda(bool check_tracing);

}  // namespace pinscope
