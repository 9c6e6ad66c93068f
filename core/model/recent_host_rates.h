#pragma once
// This host's rates as the median of its last few measurements, kept in a file between processes, for
// `pinscope predict`, sweeps, advice and the app's preview: each invocation measured once (5 s on this
// project's VM) and its answer moved with that one measurement (four invocations a few seconds apart:
// 10,537 to 11,530 samples/s for the defaults, 35,983 to 46,611 for 16 workers of 3x128x128 batches). The
// predictor check takes the median of the last three measurements (host_rates.h, median_of); so does this,
// with the three taken minutes apart by separate invocations, and once it has three recent ones an invocation
// measures nothing and answers at once.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/host_rates.h"

namespace pinscope {

// One measurement, when it was taken (seconds since the epoch).
struct DatedRates {
    double unix_s = 0;
    HostRates rates;
};

// What a file keeps: measurements taken by one build of pinscope (`build`: anything that changes with it,
// such as the executable's modification time), each with the cores it ran on (in its HostRates).
struct KeptRates {
    static constexpr size_t kKept = 3;           // the median of three, as the predictor check takes
    static constexpr double kKeptSeconds = 600;  // a measurement older than this is dropped
    std::string build;
    std::vector<DatedRates> measurements;  // oldest first
};

nlohmann::json kept_rates_to_json(const KeptRates& kept);
// Empty for anything but what kept_rates_to_json() writes: another format, a figure more or less (a build
// that measures other figures), a value that is not a finite number.
std::optional<KeptRates> kept_rates_from_json(const nlohmann::json& j);

struct RecentRates {
    HostRates rates;            // the median of `measurements`
    size_t measurements = 0;    // how many it is the median of
    double oldest_age_s = 0;    // how long ago the oldest of them was taken
    bool measured_now = false;  // whether this call measured
    std::string kept_error;     // why the file could not be written, if it could not (the rates stand)
};

// The median of `file`'s measurements taken by `build` on `cores` cores within the last
// KeptRates::kKeptSeconds, after measuring once more (`measure`) when there are fewer than kKept, and
// writing the file again then (a temporary file renamed over it, so that a reader never sees half of one).
// A missing, unreadable or foreign file counts as none kept; one that cannot be written leaves the answer as
// it is and says why in kept_error. With an empty `file` or `build` nothing is kept: it measures.
RecentRates recent_host_rates(const std::filesystem::path& file, const std::string& build, int cores,
                              double now_unix_s, const std::function<HostRates()>& measure);

// How many measurements recent_host_rates() would take the median of now, before measuring: where that
// is KeptRates::kKept, it would measure nothing.
size_t recent_measurement_count(const std::filesystem::path& file, const std::string& build, int cores,
                                double now_unix_s);

// recent_host_rates() for this program: default_kept_rates_file(), this_build(), this host's cores and
// the clock now.
RecentRates this_program_recent_rates(const std::function<HostRates()>& measure);
// Whether this_program_recent_rates() would measure now (fewer than KeptRates::kKept recent ones kept).
bool this_program_would_measure();
// this_program_recent_rates() as this_host_rates()'s source (host_rates.h): what pinscope's main sets, so
// that every command and the app answer on the kept measurements, and keep theirs.
HostRatesSource kept_host_rates_source();

// Where pinscope keeps its measurements: $XDG_CACHE_HOME/pinscope/host-rates.json, or
// ~/.cache/pinscope/host-rates.json; empty where neither is set to an absolute path.
std::filesystem::path default_kept_rates_file();
// What changes with each build of the running executable: its path and modification time (empty where
// /proc/self/exe cannot say).
std::string this_build();

}  // namespace pinscope
