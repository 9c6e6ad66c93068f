#pragma once
// The PCIe link of a GPU, which the CUDA runtime does not report. NVML (the driver's libnvidia-ml,
// loaded at run time) reads it from the GPU itself; Linux's sysfs is the fallback, which inside a
// virtual machine may describe the virtual bus rather than the real link.
#include <string>

#include "core/device/gpu_inventory.h"

namespace pinscope::cuda {

PcieLink pcie_link(const std::string& pci_bus_id);

// The driver's release ("580.159.04") from NVML; empty when NVML is not there.
std::string driver_release();

}  // namespace pinscope::cuda
