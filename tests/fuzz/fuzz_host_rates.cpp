// Fuzzes the reader of the host rates `pinscope predict` keeps between invocations
// (core/model/recent_host_rates.h), as it reads them: bytes are JSON text or a JsonTextError, and JSON is
// kept rates or nothing. Rates it reads must be what a prediction can run on (every figure finite, at
// least one core), and must come back the same from the JSON they are written as.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/recent_host_rates.h"
#include "tests/fuzz/fuzz_json.h"

namespace {

std::vector<double> figures_of(const pinscope::KeptRates& kept) {
    std::vector<double> figures;
    for (const pinscope::DatedRates& d : kept.measurements)
        pinscope::for_each_figure(d.rates, [&](double value) { figures.push_back(value); });
    return figures;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const std::optional<nlohmann::json> parsed = fuzz_json(data, size);
    if (!parsed) return 0;
    const std::optional<KeptRates> kept = kept_rates_from_json(*parsed);
    if (!kept) return 0;
    for (const DatedRates& d : kept->measurements) {
        if (d.rates.cores < 1 || !std::isfinite(d.unix_s)) std::abort();
        for_each_figure(d.rates, [](double value) {
            if (!std::isfinite(value)) std::abort();
        });
    }
    const std::optional<KeptRates> again = kept_rates_from_json(kept_rates_to_json(*kept));
    if (!again || again->build != kept->build || figures_of(*again) != figures_of(*kept)) std::abort();
    return 0;
}
