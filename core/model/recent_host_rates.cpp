#include "core/model/recent_host_rates.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

#include "core/files/atomic_file.h"
#include "core/files/input_file.h"
#include "core/files/json_text.h"

namespace pinscope {
namespace {

constexpr const char* kFormat = "pinscope host rates";

size_t figure_count() {
    static const size_t count = [] {
        const HostRates rates;
        size_t figures = 0;
        for_each_figure(rates, [&](double) { ++figures; });
        return figures;
    }();
    return count;
}

nlohmann::json dated_to_json(const DatedRates& d) {
    nlohmann::json figures = nlohmann::json::array();
    for_each_figure(d.rates, [&](double value) { figures.push_back(value); });
    return {{"unix_s", d.unix_s}, {"cores", d.rates.cores}, {"figures", std::move(figures)}};
}

std::optional<DatedRates> dated_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("unix_s") || !j["unix_s"].is_number() || !j.contains("cores") ||
        !j["cores"].is_number_integer() || !j.contains("figures") || !j["figures"].is_array())
        return std::nullopt;
    const nlohmann::json& figures = j["figures"];
    if (figures.size() != figure_count()) return std::nullopt;
    for (const nlohmann::json& f : figures)
        if (!f.is_number() || !std::isfinite(f.get<double>())) return std::nullopt;
    DatedRates d;
    d.unix_s = j["unix_s"].get<double>();
    d.rates.cores = j["cores"].get<int>();
    if (!std::isfinite(d.unix_s) || d.rates.cores < 1) return std::nullopt;
    size_t at = 0;
    for_each_figure(d.rates, [&](double& value) { value = figures[at++].get<double>(); });
    return d;
}

// What `file` keeps, or nothing for a file that is missing, unreadable, too long or not one of these.
std::optional<KeptRates> read_kept(const std::filesystem::path& file) {
    constexpr size_t kMaxBytes = 1 << 20;  // three measurements take about 10 KiB
    try {
        return kept_rates_from_json(parse_json_text(read_input_file(file, kMaxBytes)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// Writes `kept` under the output policy (core/files/atomic_file.h): a reader sees the old file or the new
// one, whole. What went wrong, or empty.
std::string write_kept(const std::filesystem::path& file, const KeptRates& kept) {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) return fmt::format("cannot create {}: {}", file.parent_path().string(), error.message());
    try {
        write_file_atomically(file, "the kept host rates", kept_rates_to_json(kept).dump() + "\n");
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

}  // namespace

nlohmann::json kept_rates_to_json(const KeptRates& kept) {
    nlohmann::json measurements = nlohmann::json::array();
    for (const DatedRates& d : kept.measurements) measurements.push_back(dated_to_json(d));
    return {{"format", kFormat}, {"build", kept.build}, {"measurements", std::move(measurements)}};
}

std::optional<KeptRates> kept_rates_from_json(const nlohmann::json& j) {
    // The format read as JSON, not as a string: value("format", "") throws where it is an array.
    if (!j.is_object() || j.value("format", nlohmann::json()) != kFormat || !j.contains("build") ||
        !j["build"].is_string() || !j.contains("measurements") || !j["measurements"].is_array())
        return std::nullopt;
    KeptRates kept;
    kept.build = j["build"].get<std::string>();
    for (const nlohmann::json& m : j["measurements"]) {
        std::optional<DatedRates> d = dated_from_json(m);
        if (!d) return std::nullopt;
        kept.measurements.push_back(std::move(*d));
    }
    return kept;
}

namespace {

// Without a file or a build to key them by, measurements are not kept.
bool keeping(const std::filesystem::path& file, const std::string& build) {
    return !file.empty() && !build.empty();
}

// `file`'s measurements by `build` on `cores` cores within the last KeptRates::kKeptSeconds.
KeptRates recent_kept(const std::filesystem::path& file, const std::string& build, int cores,
                      double now_unix_s) {
    KeptRates kept;
    kept.build = build;
    if (std::optional<KeptRates> read = keeping(file, build) ? read_kept(file) : std::nullopt;
        read && read->build == build)
        for (DatedRates& d : read->measurements) {
            const double age = now_unix_s - d.unix_s;
            if (d.rates.cores == cores && age >= 0 && age <= KeptRates::kKeptSeconds)
                kept.measurements.push_back(std::move(d));
        }
    return kept;
}

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

size_t recent_measurement_count(const std::filesystem::path& file, const std::string& build, int cores,
                                double now_unix_s) {
    return recent_kept(file, build, cores, now_unix_s).measurements.size();
}

RecentRates recent_host_rates(const std::filesystem::path& file, const std::string& build, int cores,
                              double now_unix_s, const std::function<HostRates()>& measure) {
    KeptRates kept = recent_kept(file, build, cores, now_unix_s);
    RecentRates recent;
    if (kept.measurements.size() < KeptRates::kKept) {
        kept.measurements.push_back({now_unix_s, measure()});
        recent.measured_now = true;
    }
    while (kept.measurements.size() > KeptRates::kKept) kept.measurements.erase(kept.measurements.begin());
    if (recent.measured_now && keeping(file, build)) recent.kept_error = write_kept(file, kept);

    std::vector<HostRates> rates;
    for (const DatedRates& d : kept.measurements) rates.push_back(d.rates);
    recent.rates = median_of(rates);
    recent.measurements = rates.size();
    recent.oldest_age_s = now_unix_s - kept.measurements.front().unix_s;
    return recent;
}

RecentRates this_program_recent_rates(const std::function<HostRates()>& measure) {
    return recent_host_rates(default_kept_rates_file(), this_build(), cores_of_this_host(), unix_now(),
                             measure);
}

bool this_program_would_measure() {
    return recent_measurement_count(default_kept_rates_file(), this_build(), cores_of_this_host(),
                                    unix_now()) < KeptRates::kKept;
}

HostRatesSource kept_host_rates_source() {
    return {.get = [] { return this_program_recent_rates(measure_host_rates).rates; },
            .would_measure = this_program_would_measure};
}

std::filesystem::path default_kept_rates_file() {
    // Absolute paths only, as the XDG spec asks and sample_jpegs_folder() reads them.
    if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache == '/')
        return std::filesystem::path(cache) / "pinscope" / "host-rates.json";
    if (const char* home = std::getenv("HOME"); home && *home == '/')
        return std::filesystem::path(home) / ".cache" / "pinscope" / "host-rates.json";
    return {};
}

std::string this_build() {
    std::error_code error;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
    struct stat status {};
    if (error || ::stat(exe.c_str(), &status) != 0) return {};
    return fmt::format("{} {}.{:09}", exe.string(), status.st_mtim.tv_sec, status.st_mtim.tv_nsec);
}

}  // namespace pinscope
