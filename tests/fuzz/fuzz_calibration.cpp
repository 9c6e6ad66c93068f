// Fuzzes the calibration reader as calibration_file_json and load_calibration use it: bytes are JSON text
// or a JsonTextError, and JSON is a calibration or a CalibrationError. A calibration that loads must give
// every copy a finite time, never negative: the simulated GPU schedules its copies by it.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/device/calibration.h"
#include "tests/fuzz/fuzz_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const std::optional<nlohmann::json> parsed = fuzz_json(data, size);
    if (!parsed) return 0;
    const nlohmann::json& json = *parsed;
    Calibration calibration;
    try {
        calibration = calibration_from_json(json, "fuzz.json");
    } catch (const CalibrationError&) {
        return 0;
    }
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h})
        for (HostMemory memory : {HostMemory::pageable, HostMemory::pinned}) {
            const CopyCurve& curve = calibration.curve(direction, memory);
            for (double bytes : {0.0, 1.0, 4096.0, 1048576.0, 3e6, 67108864.0, 1e9, 1e12}) {
                const double seconds = curve.seconds(bytes);
                if (!std::isfinite(seconds) || seconds < 0) std::abort();
            }
        }
    return 0;
}
