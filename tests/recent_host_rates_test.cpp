// recent_host_rates (core/model/recent_host_rates.h): `pinscope predict` answers on the median of the last
// three measurements kept between invocations. Deterministic: the measurements are made up, the clock is
// the test's, and the file lives in this process's scratch folder.
#include <doctest/doctest.h>

#include <fstream>
#include <vector>

#include "core/model/recent_host_rates.h"
#include "tests/scratch.h"

namespace pinscope {
namespace {

using testing::scratch_path;

// A measurement whose every figure is `level`, on 2 cores (host_rates_median_test.cpp has its own by hand).
HostRates kept_level(double level) {
    HostRates r;
    r.cores = 2;
    for_each_figure(r, [&](double& figure) { figure = level; });
    return r;
}

// A stand-in for measure_host_rates(): the levels given, one a call, counting the calls.
struct FakeHost {
    std::vector<double> levels;
    size_t calls = 0;
    HostRates measure() { return kept_level(levels.at(calls++)); }
};

RecentRates recent(const std::filesystem::path& file, FakeHost& host, double now,
                   const std::string& build = "b1", int cores = 2) {
    return recent_host_rates(file, build, cores, now, [&] { return host.measure(); });
}

double first_figure(const HostRates& r) {
    return r.convert_plain.gbps[0];
}

}  // namespace

TEST_CASE("the kept measurements go to JSON and back figure for figure, and nothing else is read as them") {
    KeptRates kept;
    kept.build = "pinscope 123.456";
    HostRates rates;
    rates.cores = 16;
    double next = 0.5;
    for_each_figure(rates, [&](double& figure) { figure = next++; });  // every figure its own value
    kept.measurements = {{1000.25, rates}, {1060.5, kept_level(3)}};

    const std::optional<KeptRates> back = kept_rates_from_json(kept_rates_to_json(kept));
    REQUIRE(back);
    CHECK(back->build == kept.build);
    REQUIRE(back->measurements.size() == 2);
    CHECK(back->measurements[0].unix_s == 1000.25);
    CHECK(back->measurements[0].rates.cores == 16);
    std::vector<double> written, read;
    for_each_figure(rates, [&](double figure) { written.push_back(figure); });
    for_each_figure(back->measurements[0].rates, [&](double figure) { read.push_back(figure); });
    CHECK(read == written);

    const nlohmann::json good = kept_rates_to_json(kept);
    nlohmann::json j = good;
    j["format"] = "something else";
    CHECK_FALSE(kept_rates_from_json(j));
    j["format"] = nlohmann::json::array({"pinscope host rates"});  // the fuzzer's: not a string at all
    CHECK_FALSE(kept_rates_from_json(j));
    j.erase("format");
    CHECK_FALSE(kept_rates_from_json(j));
    j = good;
    j["measurements"][1]["figures"].erase(0);  // a build that measures one figure fewer
    CHECK_FALSE(kept_rates_from_json(j));
    j = good;
    j["measurements"][0]["figures"][3] = nullptr;  // what a NaN is written as
    CHECK_FALSE(kept_rates_from_json(j));
    j = good;
    j["measurements"][0]["cores"] = 0;
    CHECK_FALSE(kept_rates_from_json(j));
    j = good;
    j.erase("build");
    CHECK_FALSE(kept_rates_from_json(j));
    CHECK_FALSE(kept_rates_from_json(nlohmann::json::array()));
}

TEST_CASE("each call measures until three are kept, then answers on their median without measuring") {
    const std::filesystem::path file = scratch_path("kept/host-rates.json");
    FakeHost host{{9, 1, 4, 100}};

    const RecentRates first = recent(file, host, 1000);
    CHECK(first.measured_now);
    CHECK(first.measurements == 1);
    CHECK(first_figure(first.rates) == 9);
    CHECK(first.kept_error.empty());
    CHECK(std::filesystem::exists(file));

    CHECK(recent(file, host, 1010).measurements == 2);
    const RecentRates third = recent(file, host, 1020);
    CHECK(third.measured_now);
    CHECK(third.measurements == 3);
    CHECK(first_figure(third.rates) == 4);  // the middle of 9, 1 and 4, every figure alike
    CHECK(third.rates.sleep_overshoot.us[2][2] == 4);
    CHECK(third.oldest_age_s == 20);

    // Three recent ones: a caller can tell, without measuring, that asking measures nothing.
    CHECK(recent_measurement_count(file, "b1", 2, 1030) == KeptRates::kKept);
    CHECK(recent_measurement_count(file, "b2", 2, 1030) == 0);
    CHECK(recent_measurement_count(file, "b1", 4, 1030) == 0);
    CHECK(recent_measurement_count(file, "b1", 2, 1000 + KeptRates::kKeptSeconds + 1) == 2);
    CHECK(recent_measurement_count(scratch_path("kept/none.json"), "b1", 2, 1030) == 0);
    CHECK(host.calls == 3);

    const RecentRates fourth = recent(file, host, 1030);
    CHECK_FALSE(fourth.measured_now);
    CHECK(host.calls == 3);
    CHECK(fourth.measurements == 3);
    CHECK(first_figure(fourth.rates) == 4);
    CHECK(fourth.oldest_age_s == 30);

    // Ten minutes after the first, it is dropped: two left, so one more is measured (the 100).
    const RecentRates later = recent(file, host, 1000 + KeptRates::kKeptSeconds + 1);
    CHECK(later.measured_now);
    CHECK(host.calls == 4);
    CHECK(later.measurements == 3);
    CHECK(first_figure(later.rates) == 4);  // the middle of 1, 4 and 100
}

TEST_CASE("measurements of another build, another core count or the future are not the answer") {
    const std::filesystem::path file = scratch_path("builds/host-rates.json");
    FakeHost host{{5, 5, 7, 8, 9}};
    recent(file, host, 2000);
    recent(file, host, 2001);

    const RecentRates rebuilt = recent(file, host, 2002, "b2");
    CHECK(rebuilt.measurements == 1);
    CHECK(first_figure(rebuilt.rates) == 7);
    // The file now keeps b2's one measurement: b1's are gone with their build.
    CHECK(recent(file, host, 2003, "b1").measurements == 1);

    const RecentRates other_cores = recent(file, host, 2004, "b1", 4);
    CHECK(other_cores.measurements == 1);
    CHECK(first_figure(other_cores.rates) == 9);
    CHECK(host.calls == 5);

    // A clock set back: measurements "from the future" are not this host's recent ones.
    FakeHost again{{3, 6}};
    recent(file, again, 3000);
    CHECK(recent(file, again, 2500).measurements == 1);
}

TEST_CASE("a broken or unwritable file costs a measurement, never the answer") {
    const std::filesystem::path file = scratch_path("broken/host-rates.json");
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << "{\"format\": \"pinscope host rates\", \"measurem";  // cut off mid-write
    FakeHost host{{6, 2}};
    const RecentRates r = recent(file, host, 100);
    CHECK(r.measured_now);
    CHECK(first_figure(r.rates) == 6);
    CHECK(r.kept_error.empty());
    CHECK(recent(file, host, 110).measurements == 2);  // rewritten whole

    // Its folder's place taken by a file: the measurement stands, and the reason is said.
    const std::filesystem::path blocked = scratch_path("a-file");
    std::ofstream(blocked) << "x";
    FakeHost other{{4}};
    const RecentRates unkept = recent(blocked / "host-rates.json", other, 100);
    CHECK(first_figure(unkept.rates) == 4);
    CHECK(unkept.measurements == 1);
    CHECK_FALSE(unkept.kept_error.empty());

    // No file, or no build to key by: nothing kept, every call measures.
    FakeHost none{{1, 2, 3}};
    CHECK(recent({}, none, 100).measured_now);
    CHECK(recent({}, none, 101).measurements == 1);
    CHECK(recent(scratch_path("no-build.json"), none, 102, "").measurements == 1);
    CHECK_FALSE(std::filesystem::exists(scratch_path("no-build.json")));
    CHECK(none.calls == 3);
}

}  // namespace pinscope
