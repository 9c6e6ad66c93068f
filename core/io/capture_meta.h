#pragma once
// META, a capture's first section: what the run was (config, device, metrics window, lanes) as JSON, and
// the counts the other sections are checked against. Only capture.cpp and capture_columns.cpp use this
// header.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/io/capture.h"

namespace pinscope::capture_meta {

// Times live in [0, kMaxTime]: steady_clock counts from boot, and the bound keeps every difference the
// metrics take inside int64.
constexpr TimeNs kMaxTime = TimeNs{1} << 62;

// What META says, and what the other sections are checked against.
struct Meta {
    CaptureInfo info;
    std::vector<LaneInfo> lanes;
    TimeNs time_base = 0;  // formats 1 and 2: where span times count from
    uint64_t spans = 0, counter_samples = 0;
};

struct Counts {
    uint64_t spans = 0, counter_samples = 0;
};
// META (format 3) for a capture of `tables`' lanes holding `counts`.
nlohmann::json meta_json(const TraceStore& tables, const CaptureInfo& info, Counts counts);
// Reads and checks META of a file of format `version`; throws CaptureError naming the field that is wrong.
Meta meta_from_json(const std::vector<uint8_t>& raw, uint32_t version);

}  // namespace pinscope::capture_meta
