#include "core/io/metrics_json.h"

namespace pinscope {

nlohmann::json metrics_json(const Metrics& m) {
    nlohmann::json j;
    j["seconds"] = m.seconds;
    j["batches"] = m.batches;
    j["samples"] = m.samples;
    j["samples_per_s"] = m.samples_per_s;
    j["batches_per_s"] = m.batches_per_s;
    j["h2d_bytes"] = m.h2d_bytes;
    j["h2d_gbps"] = m.h2d_gbps;
    j["h2d_sustained_gbps"] = m.h2d_sustained_gbps;
    j["d2h_gbps"] = m.d2h_gbps;
    j["d2h_sustained_gbps"] = m.d2h_sustained_gbps;
    j["gpu_busy"] = m.gpu_busy;  // the compute engine's share
    j["h2d_busy"] = m.h2d_busy;
    j["d2h_busy"] = m.d2h_busy;
    j["copy_busy"] = m.copy_busy;
    j["gpu_idle"] = m.gpu_idle;
    j["idle"] = {{"loader", m.idle.loader},
                 {"pageable_staging", m.idle.staging},
                 {"copies", m.idle.copies},
                 {"sync", m.idle.sync},
                 {"other", m.idle.other}};
    j["overlap"] = m.overlap;
    j["stall"] = m.stall;  // idle.loader
    j["outstanding_max"] = m.outstanding_max;
    j["reorder_max"] = m.reorder_max;
    j["pinned_bytes_max"] = m.pinned_bytes_max;
    j["pageable_h2d_fraction"] = m.pageable_h2d_fraction;
    j["h2d_pageable_bytes"] = m.h2d_pageable_bytes;
    j["h2d_pinned_bytes"] = m.h2d_pinned_bytes;
    j["h2d_pageable_gbps"] = m.h2d_pageable_gbps;
    j["h2d_pinned_gbps"] = m.h2d_pinned_gbps;
    j["data_wait"] = m.data_wait;
    j["startup_ms"] = m.startup_s * 1e3;
    j["stopwatch_ms"] = m.stopwatch_s * 1e3;
    nlohmann::json latency = nlohmann::json::object();
    for (const StageLatency& l : m.latencies)
        latency[std::string(span_kind_name(l.kind))] = {
            {"count", l.count}, {"p50_us", l.p50_us}, {"p99_us", l.p99_us}};
    latency["batch"] = {{"count", m.batch_latency.count},
                        {"p50_us", m.batch_latency.p50_us},
                        {"p99_us", m.batch_latency.p99_us}};
    j["latency"] = latency;
    return j;
}

}  // namespace pinscope
