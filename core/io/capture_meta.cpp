// META, the section that says what the run was: config, device, metrics window, lanes, and the counts
// the other sections are checked against. JSON both ways, every field checked on the way in.
#include "core/io/capture_meta.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "core/config/config_json.h"
#include "core/config/validate.h"
#include "core/units/units.h"

#ifndef PINSCOPE_VERSION
#define PINSCOPE_VERSION "unknown"
#endif

namespace pinscope::capture_meta {
namespace {

constexpr std::string_view kGroupKeys[] = {"host", "device"};

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

nlohmann::json device_json(const DeviceInfo& d) {
    return {{"kind", d.kind},
            {"name", d.name},
            {"copy_engines", d.copy_engines},
            {"h2d_peak_gbps", d.h2d_peak_gbps},
            {"d2h_peak_gbps", d.d2h_peak_gbps},
            {"memory_bytes", d.memory_bytes}};
}

nlohmann::json gpu_trace_json(const std::optional<GpuTraceReport>& report) {
    if (!report) return nullptr;
    return {{"cupti", report->cupti},     {"method", report->method},
            {"spans", report->spans},     {"dropped", report->dropped},
            {"untimed", report->untimed}, {"uncorrelated", report->uncorrelated}};
}

nlohmann::json lanes_json(const std::vector<LaneInfo>& lanes) {
    nlohmann::json out = nlohmann::json::array();
    for (const LaneInfo& lane : lanes)
        out.push_back({{"id", lane.id},
                       {"role", kLaneRoleKeys[static_cast<int>(lane.role)]},
                       {"index", lane.index},
                       {"name", lane.name},
                       {"group", kGroupKeys[static_cast<int>(lane.group)]},
                       {"process", lane.origin.process},
                       {"thread", lane.origin.thread},
                       {"group_name", lane.group_name},
                       {"sort_key", lane.sort_key}});
    return out;
}

// Reads META's fields with messages that say which one is wrong.
class MetaReader {
  public:
    explicit MetaReader(const nlohmann::json& j) : j_(j) {
        if (!j_.is_object()) throw CaptureError("its header (META) is not a JSON object");
    }

    const nlohmann::json& field(const char* key, nlohmann::json::value_t type) const {
        if (!j_.contains(key)) throw CaptureError(fmt::format("its header has no \"{}\"", key));
        const nlohmann::json& v = j_[key];
        const bool ok = type == nlohmann::json::value_t::number_integer ? v.is_number_integer()
                        : type == nlohmann::json::value_t::number_float ? v.is_number()
                                                                        : v.type() == type;
        if (!ok)
            throw CaptureError(
                fmt::format("its header's \"{}\" has the wrong type ({})", key, v.type_name()));
        return v;
    }
    std::string text(const char* key) const {
        return field(key, nlohmann::json::value_t::string).get<std::string>();
    }
    int64_t integer(const char* key) const {
        return field(key, nlohmann::json::value_t::number_integer).get<int64_t>();
    }
    uint64_t count(const char* key) const {
        const nlohmann::json& v = field(key, nlohmann::json::value_t::number_integer);
        if (v.is_number_unsigned()) return v.get<uint64_t>();
        const int64_t n = v.get<int64_t>();
        if (n < 0) throw CaptureError(fmt::format("its header's \"{}\" is negative", key));
        return static_cast<uint64_t>(n);
    }
    const nlohmann::json& object(const char* key) const {
        return field(key, nlohmann::json::value_t::object);
    }
    const nlohmann::json& array(const char* key) const { return field(key, nlohmann::json::value_t::array); }
    const nlohmann::json& any(const char* key) const {
        if (!j_.contains(key)) throw CaptureError(fmt::format("its header has no \"{}\"", key));
        return j_[key];
    }

  private:
    const nlohmann::json& j_;
};

DeviceInfo device_from_json(const nlohmann::json& j) {
    const MetaReader r(j);
    DeviceInfo d;
    d.kind = printable(r.text("kind"));
    d.name = printable(r.text("name"));
    d.copy_engines = static_cast<int>(r.integer("copy_engines"));
    d.h2d_peak_gbps = r.field("h2d_peak_gbps", nlohmann::json::value_t::number_float).get<double>();
    d.d2h_peak_gbps = r.field("d2h_peak_gbps", nlohmann::json::value_t::number_float).get<double>();
    d.memory_bytes = r.integer("memory_bytes");
    return d;
}

std::optional<GpuTraceReport> gpu_trace_from_json(const nlohmann::json& j) {
    if (j.is_null()) return std::nullopt;
    const MetaReader r(j);
    GpuTraceReport report;
    report.cupti = r.field("cupti", nlohmann::json::value_t::boolean).get<bool>();
    report.method = printable(r.text("method"));
    report.spans = r.count("spans");
    report.dropped = r.count("dropped");
    report.untimed = r.count("untimed");
    report.uncorrelated = r.count("uncorrelated");
    return report;
}

// Formats 1 and 2 name a lane's role "kind" and know only pinscope's own lanes: their origin and group
// name follow from role and index as they do for a live run.
LaneInfo lane_from_json(const nlohmann::json& j, size_t position, uint32_t version) {
    const MetaReader r(j);
    if (r.count("id") != position)
        throw CaptureError(fmt::format("lane {} is listed out of order", position));
    const std::string role = r.text(version >= 3 ? "role" : "kind");
    const auto at = std::find(kLaneRoleKeys.begin(), kLaneRoleKeys.end(), role);
    if (at == kLaneRoleKeys.end() ||
        (version < 3 && at - kLaneRoleKeys.begin() > static_cast<int>(LaneRole::d2h)))
        throw CaptureError(fmt::format("lane {} has an unknown role \"{}\"", position, printable(role)));
    const int index = static_cast<int>(r.integer("index"));
    LaneInfo lane = own_lane(static_cast<LaneRole>(at - kLaneRoleKeys.begin()), index);
    lane.id = static_cast<LaneId>(position);
    lane.name = printable(r.text("name"));
    const std::string group = r.text("group");
    if (group != kGroupKeys[0] && group != kGroupKeys[1])
        throw CaptureError(fmt::format("lane {} has an unknown group \"{}\"", position, printable(group)));
    lane.group = group == kGroupKeys[0] ? LaneGroup::host : LaneGroup::device;
    lane.sort_key = static_cast<int>(r.integer("sort_key"));
    if (version >= 3) {
        lane.origin = {r.integer("process"), r.integer("thread")};
        lane.group_name = printable(r.text("group_name"));
    }
    return lane;
}

// META is a few KiB of JSON (65,535 lanes would take under 8 MiB) nested a few levels deep. A bigger
// one would take seconds and gigabytes to parse, and a deeper one would overflow the stack where
// nlohmann::json copies it (it recurses once per level): only a hostile file has either.
constexpr size_t kMaxMetaBytes = 16 << 20;
constexpr int kMaxMetaDepth = 32;

}  // namespace

nlohmann::json meta_json(const TraceStore& tables, const CaptureInfo& info, Counts counts) {
    return {{"format", "pinscope-capture"},
            {"format_version", kCaptureFormatVersion},
            {"writer_version", PINSCOPE_VERSION},
            {"created", info.created.empty() ? utc_now() : info.created},
            {"config", info.config ? config_to_json(*info.config) : nlohmann::json(nullptr)},
            {"device", device_json(info.device)},
            {"device_why", info.device_why},
            {"source", info.source},
            {"samples_per_batch", info.samples_per_batch},
            {"loader", info.loader},
            {"calibration", info.calibration},
            {"window", {{"start", info.window.start}, {"end", info.window.end}}},
            {"metrics", info.metrics},
            {"dropped_spans", info.dropped_spans},
            {"evicted_spans", info.evicted_spans + tables.evicted_spans()},
            {"gpu_trace", gpu_trace_json(info.gpu_trace)},
            {"lanes", lanes_json(tables.lanes())},
            {"spans", counts.spans},
            {"counter_samples", counts.counter_samples},
            {"flows", "in FLOW, and by batch id: a batch's spans in time order"}};
}

Meta meta_from_json(const std::vector<uint8_t>& raw, uint32_t version) {
    if (raw.size() > kMaxMetaBytes)
        throw CaptureError(fmt::format("its header (META) is {} bytes, more than any capture's", raw.size()));
    int depth = 0;
    const auto note_depth = [&](int d, nlohmann::json::parse_event_t, nlohmann::json&) {
        depth = std::max(depth, d);
        return true;
    };
    nlohmann::json j = nlohmann::json::parse(raw.begin(), raw.end(), note_depth, false);
    if (j.is_discarded()) throw CaptureError("its header (META) is not valid JSON");
    if (depth > kMaxMetaDepth)
        throw CaptureError(fmt::format("its header (META) nests deeper than {} levels", kMaxMetaDepth));
    const MetaReader r(j);
    if (r.text("format") != "pinscope-capture") throw CaptureError("its header is not a pinscope capture's");
    Meta meta;
    CaptureInfo& info = meta.info;
    // Every text that may reach a terminal is kept printable (units.h): a name is never a command to it.
    info.writer_version = printable(r.text("writer_version"));
    info.created = printable(r.text("created"));
    // From format 3 on a capture may have no config: a trace no pipeline of pinscope's ran.
    if (version < 3 || !r.any("config").is_null()) {
        try {
            info.config = config_from_json(r.object("config"));
        } catch (const ConfigFileError& e) {
            throw CaptureError(fmt::format("its config cannot be read: {}", e.what()));
        }
        info.config->calibration = printable(info.config->calibration);
        // The numbers were read as the command line reads them; now their ranges and rules, as it checks
        // them.
        const Validation validation = validate(*info.config);
        if (!validation.ok()) info.config_problem = printable(describe(validation.errors.front()));
    }
    info.device = device_from_json(r.object("device"));
    info.device_why = printable(r.text("device_why"));
    // Since 0.4 (an imported trace's origin and batch size); older files have neither.
    if (const auto source = j.find("source"); source != j.end() && source->is_string())
        info.source = printable(source->get<std::string>());
    if (const auto loader = j.find("loader"); loader != j.end() && loader->is_object()) info.loader = *loader;
    if (const auto samples = j.find("samples_per_batch"); samples != j.end() && samples->is_number_integer())
        info.samples_per_batch = static_cast<int>(std::clamp<int64_t>(samples->get<int64_t>(), 0, 1 << 24));
    info.calibration = r.any("calibration");
    const MetaReader window(r.object("window"));
    info.window = {window.integer("start"), window.integer("end")};
    if (info.window.start < 0 || info.window.end < info.window.start || info.window.end > kMaxTime)
        throw CaptureError(fmt::format("its metrics window [{}, {}] is not a time range", info.window.start,
                                       info.window.end));
    info.metrics = r.any("metrics");
    info.dropped_spans = r.count("dropped_spans");
    info.evicted_spans = r.count("evicted_spans");
    info.gpu_trace = gpu_trace_from_json(r.any("gpu_trace"));
    const nlohmann::json& lanes = r.array("lanes");
    if (lanes.size() >= kNoLane)
        throw CaptureError(fmt::format("it lists {} lanes, more than a trace holds", lanes.size()));
    for (size_t i = 0; i < lanes.size(); ++i) meta.lanes.push_back(lane_from_json(lanes[i], i, version));
    if (version < 3) meta.time_base = r.integer("time_base");
    meta.spans = r.count("spans");
    meta.counter_samples = r.count("counter_samples");
    return meta;
}

}  // namespace pinscope::capture_meta
