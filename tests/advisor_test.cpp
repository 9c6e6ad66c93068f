// The advisor on hand-built traces whose answers are known: the verdict's lines, which rule fires on
// which pattern, the evidence it points at, and fixes that validate.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/analysis/advisor.h"
#include "core/config/validate.h"
#include "core/io/advice_json.h"
#include "tests/spans.h"
#include "tests/within.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

constexpr TimeNs kUs = kNsPerUs;

struct Lanes {
    LaneRegistry registry;
    LaneId main = registry.lane(LaneRole::main);
    LaneId worker = registry.lane(LaneRole::worker, 0);
    LaneId h2d = registry.lane(LaneRole::h2d, 0);
    LaneId kernel = registry.lane(LaneRole::kernel, 0);

    TraceStore store() const {
        TraceStore s;
        s.set_lanes(registry.snapshot());
        return s;
    }
};

// Ten steps of 100 us: the train loop waits `wait_us` for batch b (the GPU idles), then a kernel runs
// for the rest of the step; batch `long_batch` waits `long_wait_us` instead.
TraceStore starved_trace(const Lanes& lanes, TimeNs wait_us, int64_t long_batch = -1,
                         TimeNs long_wait_us = 0) {
    TraceStore store = lanes.store();
    TimeNs t = 0;
    for (int64_t b = 0; b < 10; ++b) {
        const TimeNs wait = (b == long_batch ? long_wait_us : wait_us) * kUs;
        store.add(span(lanes.worker, SpanKind::fetch, t, t + wait, b));
        store.add(span(lanes.main, SpanKind::wait, t, t + wait, b));
        store.add(span(lanes.h2d, SpanKind::h2d, t + wait, t + wait + kUs, b, 1 << 20, HostMemory::pinned));
        store.add(span(lanes.kernel, SpanKind::kernel, t + wait + kUs, t + 100 * kUs, b));
        t += 100 * kUs;
    }
    return store;
}

PipelineConfig small_config() {
    PipelineConfig config;
    config.batch_size = 8;
    config.kernel_us = 70;
    config.num_workers = 1;
    config.io_us = 5;
    return config;
}

Advice advise_on(const TraceStore& store, const PipelineConfig& config, unsigned cores = 2) {
    const Metrics metrics = compute_metrics(store, config.batch_size);
    AdviceContext ctx;
    ctx.cores = cores;
    return advise(store, metrics, config, ctx);
}

const Finding* finding(const Advice& advice, std::string_view rule) {
    for (const Finding& f : advice.findings)
        if (f.rule_id == rule) return &f;
    return nullptr;
}

}  // namespace

TEST_CASE("the verdict follows the Input Pipeline Analyzer: highly from 20%, moderately from 5%") {
    const Lanes lanes;
    const PipelineConfig config = small_config();
    // A trace of 10 steps of 100 us, from the first wait's start to the last kernel's end.
    CHECK(advise_on(starved_trace(lanes, 30), config).verdict == Verdict::highly);
    CHECK(advise_on(starved_trace(lanes, 10), config).verdict == Verdict::moderately);
    const Advice fed = advise_on(starved_trace(lanes, 2), config);
    CHECK(fed.verdict == Verdict::not_input_bound);
    CHECK(fed.findings.empty());
    CHECK(fed.verdict_line.find("Not input-bound") == 0);
    const Advice starved = advise_on(starved_trace(lanes, 30), config);
    CHECK(starved.input_share == within(0.30, 0.02));
    CHECK(starved.verdict_line.find("HIGHLY input-bound") == 0);
}

TEST_CASE("gpu-starvation counts the starved gaps and points at the longest first") {
    const Lanes lanes;
    const TraceStore store = starved_trace(lanes, 20, 6, 60);
    const Advice advice = advise_on(store, small_config());
    const Finding* starving = finding(advice, "gpu-starvation");
    REQUIRE(starving);
    CHECK(starving->explanation.find("in 10 gaps") != std::string::npos);
    CHECK(starving->explanation.find("60.00 us (batch 6)") != std::string::npos);
    REQUIRE(starving->evidence.size() == kMaxEvidence);
    CHECK(starving->evidence.front().batch == 6);
    CHECK(starving->evidence.front().lane == lanes.main);
    // The whole GPU idle gap: the 60 us wait and the 1 us copy after it.
    CHECK(starving->evidence.front().end - starving->evidence.front().start == 61 * kUs);
    for (size_t i = 1; i < starving->evidence.size(); ++i)
        CHECK(starving->evidence[i].end - starving->evidence[i].start <=
              starving->evidence[i - 1].end - starving->evidence[i - 1].start);
    // io-bound workers: the fix asks for more of them; the stall should fall.
    CHECK(starving->fix.value("num_workers", 0) > 1);
    CHECK(starving->metric == "stall");
    CHECK(starving->should == Direction::fall);
    CHECK(starving->cost == doctest::Approx(advice.input_share));
}

TEST_CASE("CPU-bound workers are not asked to outnumber the cores") {
    const Lanes lanes;
    PipelineConfig config = small_config();
    config.io_us = 0;
    config.decode_us = 50;
    config.num_workers = 2;
    const Advice advice = advise_on(starved_trace(lanes, 30), config, 2);
    const Finding* starving = finding(advice, "gpu-starvation");
    REQUIRE(starving);
    CHECK(starving->fix.empty());  // two workers on two cores: no knob helps
    CHECK(starving->fix_text.find("No knob helps") == 0);

    config.num_workers = 4;  // and with more than the cores, the oversubscription is named
    const Advice over = advise_on(starved_trace(lanes, 30), config, 2);
    const Finding* oversubscribed = finding(over, "oversubscribed-workers");
    REQUIRE(oversubscribed);
    CHECK(oversubscribed->fix == nlohmann::json{{"num_workers", 2}});
}

TEST_CASE("pageable-async-memcpy names the staging spans on the train loop") {
    const Lanes lanes;
    TraceStore store = lanes.store();
    TimeNs t = 0;
    for (int64_t b = 0; b < 10; ++b) {
        // The train loop stages a pageable copy for 40 us (its H2D runs meanwhile), then the kernel.
        store.add(span(lanes.main, SpanKind::stage, t, t + 40 * kUs, b, 1 << 20, HostMemory::pageable));
        store.add(span(lanes.h2d, SpanKind::h2d, t, t + 40 * kUs, b, 1 << 20, HostMemory::pageable));
        store.add(span(lanes.kernel, SpanKind::kernel, t + 40 * kUs, t + 100 * kUs, b));
        t += 100 * kUs;
    }
    PipelineConfig config = small_config();
    config.pin_memory = false;
    const Advice advice = advise_on(store, config);
    CHECK(advice.verdict == Verdict::highly);  // staging pageable copies is the input pipeline's time
    REQUIRE(advice.findings.size() == 1);
    const Finding& pageable = advice.findings.front();
    CHECK(pageable.rule_id == "pageable-async-memcpy");
    CHECK(pageable.cost == within(0.4, 0.01));
    CHECK(pageable.fix == nlohmann::json{{"pin_memory", true}});
    CHECK(pageable.metric == "idle.pageable_staging");
    REQUIRE(pageable.evidence.size() == kMaxEvidence);
    for (const SpanRef& ref : pageable.evidence) {
        CHECK(ref.lane == lanes.main);
        CHECK(ref.end - ref.start == 40 * kUs);
    }
}

TEST_CASE("one stream with copies alone on the GPU gives low-overlap, with streams=2 as its fix") {
    const Lanes lanes;
    TraceStore store = lanes.store();
    TimeNs t = 0;
    for (int64_t b = 0; b < 10; ++b) {
        store.add(span(lanes.h2d, SpanKind::h2d, t, t + 30 * kUs, b, 1 << 20, HostMemory::pinned));
        store.add(span(lanes.kernel, SpanKind::kernel, t + 30 * kUs, t + 100 * kUs, b));
        t += 100 * kUs;
    }
    PipelineConfig config = small_config();
    config.streams = 1;
    const Advice advice = advise_on(store, config);
    const Finding* overlap = finding(advice, "low-overlap");
    REQUIRE(overlap);
    CHECK(overlap->fix == nlohmann::json{{"streams", 2}});
    CHECK(overlap->should == Direction::rise);
    CHECK(overlap->cost == within(0.3, 0.01));
    config.streams = 2;  // the knob is not what keeps them apart: nothing to say
    CHECK_FALSE(finding(advise_on(store, config), "low-overlap"));
}

TEST_CASE("pinned memory within a batch of its budget is named, with a smaller prefetch that validates") {
    const Lanes lanes;
    TraceStore store = starved_trace(lanes, 2);
    PipelineConfig config = small_config();
    config.num_workers = 2;
    config.prefetch_factor = 4;
    const double batch = static_cast<double>(config.batch_bytes());
    store.add(CounterSample{10 * kUs, 9 * batch, CounterKind::pinned_bytes});
    const Metrics metrics = compute_metrics(store, config.batch_size);
    AdviceContext ctx;
    ctx.cores = 2;
    ctx.pinned_budget_bytes = static_cast<int64_t>(9.5 * batch);
    const Advice advice = advise(store, metrics, config, ctx);
    const Finding* budget = finding(advice, "pinned-over-budget");
    REQUIRE(budget);
    CHECK(budget->fix == nlohmann::json{{"prefetch_factor", 3}});
    CHECK(validate(with_fix(config, budget->fix)).ok());
    REQUIRE(budget->evidence.size() == 1);
    CHECK(budget->evidence.front().lane == kNoLane);
    ctx.pinned_budget_bytes = static_cast<int64_t>(11 * batch);  // room for one more: fine
    CHECK_FALSE(finding(advise(store, metrics, config, ctx), "pinned-over-budget"));
}

TEST_CASE("findings come most costly first, and the JSON has the documented keys") {
    const Lanes lanes;
    TraceStore store = lanes.store();
    TimeNs t = 0;
    for (int64_t b = 0; b < 10; ++b) {
        store.add(span(lanes.main, SpanKind::wait, t, t + 10 * kUs, b));
        store.add(
            span(lanes.main, SpanKind::stage, t + 10 * kUs, t + 40 * kUs, b, 1 << 20, HostMemory::pageable));
        store.add(
            span(lanes.h2d, SpanKind::h2d, t + 10 * kUs, t + 40 * kUs, b, 1 << 20, HostMemory::pageable));
        store.add(span(lanes.kernel, SpanKind::kernel, t + 40 * kUs, t + 100 * kUs, b));
        t += 100 * kUs;
    }
    PipelineConfig config = small_config();
    config.pin_memory = false;
    const Advice advice = advise_on(store, config);
    REQUIRE(advice.findings.size() >= 2);
    CHECK(advice.findings[0].rule_id == "pageable-async-memcpy");  // 30% against the loader's 10%
    CHECK(std::is_sorted(advice.findings.begin(), advice.findings.end(),
                         [](const Finding& a, const Finding& b) { return a.cost > b.cost; }));
    for (const Finding& f : advice.findings) {
        CAPTURE(f.rule_id);
        CHECK(f.evidence.size() <= kMaxEvidence);
        CHECK(validate(with_fix(config, f.fix)).ok());
    }

    const nlohmann::json j = advice_json(advice);
    CHECK(j["verdict"] == "highly");
    CHECK(j["input_share"].get<double>() == within(0.4, 0.01));
    const nlohmann::json& first = j["findings"][0];
    for (const char* key :
         {"rule", "title", "explanation", "cost", "evidence", "fix", "fix_text", "metric", "should"})
        CHECK(first.contains(key));
    CHECK(first["should"] == "fall");
    const nlohmann::json& ref = first["evidence"][0];
    for (const char* key : {"lane", "start_ns", "end_ns", "batch"}) CHECK(ref.contains(key));
}

TEST_CASE("with_fix sets knobs by config key and refuses a key the knob table does not have") {
    const PipelineConfig config = small_config();
    const PipelineConfig fixed = with_fix(config, {{"pin_mode", "direct"}, {"prefetch_factor", 4}});
    CHECK(fixed.pin_mode == PinMode::direct);
    CHECK(fixed.prefetch_factor == 4);
    CHECK_THROWS_AS(with_fix(config, {{"no_such_knob", 1}}), std::invalid_argument);
}
