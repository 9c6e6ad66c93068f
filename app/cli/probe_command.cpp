#include "app/cli/probe_command.h"

#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/output_option.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/device/copy_probe.h"
#include "core/device/device_factory.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

void print_table(const CopyProbeResult& r) {
    fmt::print("pinscope probe: {} ({} copy engines)\n", r.name, r.copy_engines);
    fmt::print("  {:<14}", "GB/s");
    for (int mib : kProbeSizesMiB) fmt::print("{:>9}", fmt::format("{} MiB", mib));
    fmt::print("\n");
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h})
        for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable}) {
            fmt::print("  {:<14}", fmt::format("{} {}", direction == CopyDirection::h2d ? "H2D" : "D2H",
                                               host_memory_name(memory)));
            for (int mib : kProbeSizesMiB) fmt::print("{:>9.2f}", r.gbps(direction, memory, mib));
            fmt::print("\n");
        }
    fmt::print("  both directions at once (256 MiB each): {} in total\n", format_gbps(r.bidir_total_gbps));
    fmt::print("  one host thread copying 64 MiB: {}\n", format_gbps(r.host_memcpy_gbps));
    if (!r.h2d_under_host_writes.empty()) {
        fmt::print("  64 MiB H2D while the host writes memory at");
        for (const Calibration::HostWriteShare& point : r.h2d_under_host_writes)
            fmt::print("  {:.0f} GB/s: {:.0f}%", point.host_write_gbps, point.share * 100);
        fmt::print(" of its idle rate\n");
    }
    if (!r.bidir_under_host_writes.empty()) {
        fmt::print("  both directions at once (64 MiB each) while the host writes memory at");
        for (const Calibration::HostWriteShare& point : r.bidir_under_host_writes)
            fmt::print("  {:.0f} GB/s: {:.0f}%", point.host_write_gbps, point.share * 100);
        fmt::print(" of their idle total\n");
    }
    fmt::print(
        "  fixed cost per copy: {:.1f} us pinned, {:.1f} us pageable (a 4 KiB copy as the caller waits)\n",
        r.copy_latency_us, r.pageable_copy_latency_us);
    if (!r.pageable_h2d_staging.empty()) {
        fmt::print("  pageable H2D staged by the driver / by one thread's memcpy:");
        for (const Calibration::StagingPoint& point : r.pageable_h2d_staging)
            fmt::print("  {} {:.0f} / {:.0f} us", format_bytes(point.bytes), point.driver_us,
                       point.memcpy_us);
        fmt::print("\n");
    }
    fmt::print(
        "  one device call as the train loop makes it (query, copy in, launch, copy out, record; CUPTI on) "
        "costs the calling thread {:.1f} us\n",
        r.host_call_us);
    fmt::print("  pinning 256 MiB: cudaHostAlloc {:.0f} ms", r.pin_host_alloc_256MB_s * 1e3);
    if (r.pin_huge_pages_256MB_s > 0)
        fmt::print(", huge pages + cudaHostRegister {:.0f} ms (H2D from it {})",
                   r.pin_huge_pages_256MB_s * 1e3, format_gbps(r.h2d_huge_pages_256MB_gbps));
    fmt::print("\n");
    fmt::print(
        "  start-up: first CUDA call (driver and context) {:.0f} ms, first cudaMalloc (16 MiB) {:.2f} ms\n",
        r.context_create_s * 1e3, r.device_alloc_16MB_s * 1e3);
}

}  // namespace

Command add_probe_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "probe",
        "Measure the GPU's copy bandwidths and write them as a calibration file for the simulated GPU");
    auto output = std::make_shared<OutputOption>();
    auto json = std::make_shared<bool>(false);
    add_output_option(*cmd, "--output,-o", *output,
                      "Write the calibration file here; load it with --device sim --calibration FILE");
    cmd->add_flag("--json", *json, "Print the calibration file's JSON on stdout instead of the table");
    return {cmd, [output, json] {
                std::string reason;
                if (cuda_device_count(&reason) == 0)
                    throw UsageError(fmt::format("no GPU to measure: {}.", reason));
                OutputPlan plan;
                OutputFile file = output->ready(plan, "the calibration");
                const CopyProbeResult result = probe_copies();
                const std::string text = calibration_json(result).dump(1) + "\n";
                if (*json)
                    std::cout << text << std::flush;
                else
                    print_table(result);
                if (file) {
                    file.write(text);
                    if (!*json)
                        fmt::print(
                            "calibration written to {}; model this GPU with: pinscope run --device sim "
                            "--calibration {}\n",
                            file.path().string(), file.path().string());
                }
                return kExitOk;
            }};
}

}  // namespace pinscope
