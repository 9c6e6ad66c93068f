#include "core/device/cuda/pcie_link.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>

namespace pinscope::cuda {
namespace {

// NVML's C interface, as the driver exports it: every call returns 0 on success. Only the calls
// used here are declared; the library is the driver's, so it is never linked.
struct NvmlDevice;
struct Nvml {
    int (*init)() = nullptr;
    int (*by_bus_id)(const char*, NvmlDevice**) = nullptr;
    int (*link_generation)(NvmlDevice*, unsigned*) = nullptr;
    int (*link_width)(NvmlDevice*, unsigned*) = nullptr;
    int (*max_link_generation)(NvmlDevice*, unsigned*) = nullptr;
    int (*max_link_width)(NvmlDevice*, unsigned*) = nullptr;
    int (*driver_version)(char*, unsigned) = nullptr;
};

const Nvml* nvml() {
    static std::once_flag once;
    static Nvml library;
    static bool usable = false;
    std::call_once(once, [] {
        void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) return;
        auto bind = [&](auto& slot, const char* name) {
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
            return slot != nullptr;
        };
        usable = bind(library.init, "nvmlInit_v2") &&
                 bind(library.by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
                 bind(library.link_generation, "nvmlDeviceGetCurrPcieLinkGeneration") &&
                 bind(library.link_width, "nvmlDeviceGetCurrPcieLinkWidth") &&
                 bind(library.max_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration") &&
                 bind(library.max_link_width, "nvmlDeviceGetMaxPcieLinkWidth") &&
                 bind(library.driver_version, "nvmlSystemGetDriverVersion") && library.init() == 0;
    });
    return usable ? &library : nullptr;
}

std::string read_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// "32.0 GT/s PCIe" -> 5: each generation doubles the transfer rate from Gen3's 8 GT/s.
int generation_of(const std::string& speed) {
    const double gts = std::atof(speed.c_str());
    if (gts <= 0) return 0;
    if (gts < 4) return 1;
    if (gts < 7) return 2;
    int generation = 3;
    for (double rate = 8; rate * 1.5 < gts; rate *= 2) ++generation;
    return generation;
}

PcieLink from_sysfs(std::string bus_id) {
    std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const std::string dir = "/sys/bus/pci/devices/" + bus_id + "/";
    PcieLink link;
    link.generation = generation_of(read_line(dir + "current_link_speed"));
    link.width = std::atoi(read_line(dir + "current_link_width").c_str());
    link.max_generation = generation_of(read_line(dir + "max_link_speed"));
    link.max_width = std::atoi(read_line(dir + "max_link_width").c_str());
    return link;
}

}  // namespace

PcieLink pcie_link(const std::string& pci_bus_id) {
    if (const Nvml* n = nvml()) {
        NvmlDevice* device = nullptr;
        unsigned gen = 0, width = 0, max_gen = 0, max_width = 0;
        if (n->by_bus_id(pci_bus_id.c_str(), &device) == 0 && n->link_generation(device, &gen) == 0 &&
            n->link_width(device, &width) == 0 && n->max_link_generation(device, &max_gen) == 0 &&
            n->max_link_width(device, &max_width) == 0)
            return PcieLink{static_cast<int>(gen), static_cast<int>(width), static_cast<int>(max_gen),
                            static_cast<int>(max_width)};
    }
    return from_sysfs(pci_bus_id);
}

std::string driver_release() {
    char version[96] = {};
    if (const Nvml* n = nvml(); n && n->driver_version(version, sizeof(version)) == 0) return version;
    return {};
}

}  // namespace pinscope::cuda
