#include "core/io/kineto/profiler_trace_builder.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pinscope {

namespace {

// Microseconds past this from the first event are not a real trace's (over 3 years).
constexpr double kFarthestUs = 1e14;
// Wall-clock microseconds since 1970 are past this (2001): timestamps of older traces, which have no base.
constexpr double kWallClockUs = 1e15;

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

bool is_device_category(std::string_view cat) {
    return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" ||
           cat == "gpu_memset" || cat == "Memset" || cat == "gpu_user_annotation";
}
bool is_runtime_category(std::string_view cat) {
    return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "cuda_sync";
}

// "Memcpy HtoD (Pageable -> Device)": which way, and which host memory (older traces spell "Pagable").
struct MemcpyShape {
    LaneRole role = LaneRole::other;
    HostMemory memory = HostMemory::none;
};
MemcpyShape memcpy_shape(std::string_view name) {
    MemcpyShape shape;
    if (contains(name, "HtoD"))
        shape.role = LaneRole::h2d;
    else if (contains(name, "DtoH"))
        shape.role = LaneRole::d2h;
    if (contains(name, "Pageable") || contains(name, "Pagable"))
        shape.memory = HostMemory::pageable;
    else if (contains(name, "Pinned"))
        shape.memory = HostMemory::pinned;
    return shape;
}

// The train loop asking its DataLoader for the next batch, as torch's profiler names it.
bool is_data_wait(std::string_view name) {
    return starts_with(name, "enumerate(DataLoader)#") && contains(name, "__next__");
}

}  // namespace

int64_t ProfilerTraceBuilder::resolve(const TraceId& id) {
    if (id.text.empty()) return id.number;
    // "100" (a number in quotes) or "stream 7", as older traces name a GPU event's tid.
    const std::string_view digits = starts_with(id.text, "stream ") ? id.text.substr(7) : id.text;
    if (!digits.empty() && digits.size() < 16 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        int64_t n = 0;
        for (char c : digits) n = n * 10 + (c - '0');
        return n;
    }
    // Other strings ("CPU functions", "Spans") get ids of their own, far from real pids.
    auto [at, added] =
        text_ids_.try_emplace(std::string(id.text), -1'000'000 - static_cast<int64_t>(text_ids_.size()));
    if (added) {
        process_names_.try_emplace(at->second, id.text);
        text_of_id_.try_emplace(at->second, id.text);
    }
    return at->second;
}

bool ProfilerTraceBuilder::to_time(double us, TimeNs& out) {
    if (!std::isfinite(us)) return false;
    if (!have_origin_) {
        have_origin_ = true;
        origin_us_ = std::floor(us);
    }
    const double relative = us - origin_us_;
    if (!(std::fabs(relative) < kFarthestUs)) return false;
    out = static_cast<TimeNs>(std::llround(relative * 1000.0));
    return true;
}

uint32_t ProfilerTraceBuilder::slot_for(const SlotKey& key, LaneGroup group) {
    auto [at, added] = slot_of_.try_emplace(key, static_cast<uint32_t>(slots_.size()));
    if (added) {
        Slot slot;
        slot.info.group = group;
        slot.info.origin = {key.a, key.b};
        slot.info.role = key.kind == 0 ? LaneRole::other : static_cast<LaneRole>(key.kind - 1);
        slot.info.index = static_cast<int>(key.b);
        slots_.push_back(std::move(slot));
    }
    return at->second;
}

void ProfilerTraceBuilder::event(const KinetoEvent& e) {
    ++counts_.events;
    switch (e.ph) {
        case 'X': {
            if (!e.pid.present || !e.tid.present || std::isnan(e.ts) || std::isnan(e.dur)) {
                ++counts_.skipped_times;
                return;
            }
            TimeNs start = 0, duration = 0;
            if (!to_time(e.ts, start) || !std::isfinite(e.dur) || e.dur < 0 || e.dur > kFarthestUs) {
                ++counts_.skipped_times;
                return;
            }
            duration = static_cast<TimeNs>(std::llround(e.dur * 1000.0));
            if (is_device_category(e.cat))
                device_event(e, start, start + duration);
            else
                host_event(e, start, start + duration);
            return;
        }
        case 'M':
            return metadata(e);
        case 's':
        case 'f':
            return flow_event(e);
        default:
            return;  // instants, counters: nothing pinscope draws yet
    }
}

void ProfilerTraceBuilder::host_event(const KinetoEvent& e, TimeNs start, TimeNs end) {
    const int64_t pid = resolve(e.pid), tid = resolve(e.tid);
    const uint32_t s = slot_for({pid, tid, 0}, LaneGroup::host);
    Slot& slot = slots_[s];
    Span span{start, end};
    span.name = store_.intern(e.name);
    if (is_data_wait(e.name)) {  // user_annotation; "Operator" in older traces, none in the legacy profiler's
        span.kind = SpanKind::wait;
        ++slot.waits;
    } else {
        span.kind = store_.intern_category(e.cat.empty() ? std::string_view("cpu") : e.cat);
        if (starts_with(e.name, "ProfilerStep#")) ++slot.steps;
        if (e.name == "aten::pin_memory" || e.name == "aten::_pin_memory") ++slot.pin_ops;
        if (is_runtime_category(e.cat) && contains(e.name, "Synchronize")) span.kind = SpanKind::sync;
    }
    if (e.correlation != KinetoEvent::kNoValue && is_runtime_category(e.cat))
        host_launches_.push_back({e.correlation, s, static_cast<uint32_t>(slot.spans.size())});
    slot.spans.push_back(span);
    ++counts_.spans;
}

void ProfilerTraceBuilder::device_event(const KinetoEvent& e, TimeNs start, TimeNs end) {
    const int64_t device = e.device != KinetoEvent::kNoValue ? e.device : resolve(e.pid);
    const int64_t stream = e.stream != KinetoEvent::kNoValue ? e.stream : resolve(e.tid);
    Span span{start, end};
    span.name = store_.intern(e.name);
    LaneRole role = LaneRole::other;
    if (e.cat == "kernel" || e.cat == "Kernel") {
        role = LaneRole::kernel;
        span.kind = SpanKind::kernel;
    } else if (e.cat == "gpu_memcpy" || e.cat == "Memcpy") {
        const MemcpyShape shape = memcpy_shape(e.name);
        role = shape.role;
        span.memory = shape.memory;
        span.kind = role == LaneRole::h2d   ? SpanKind::h2d
                    : role == LaneRole::d2h ? SpanKind::d2h
                                            : store_.intern_category("gpu_memcpy");
        if (std::isfinite(e.bytes) && e.bytes > 0 && e.bytes < 1.8e19)
            span.bytes = static_cast<uint64_t>(e.bytes);
    } else if (e.cat == "gpu_memset" || e.cat == "Memset") {
        role = LaneRole::memset;
        span.kind = store_.intern_category("gpu_memset");
    } else {
        span.kind = store_.intern_category(e.cat);  // gpu_user_annotation: its own row
    }
    const uint32_t s = slot_for({device, stream, 1 + static_cast<int>(role)}, LaneGroup::device);
    Slot& slot = slots_[s];
    if (e.correlation != KinetoEvent::kNoValue && role != LaneRole::other)
        device_work_.push_back({e.correlation, s, static_cast<uint32_t>(slot.spans.size())});
    slot.spans.push_back(span);
    ++counts_.spans;
}

void ProfilerTraceBuilder::metadata(const KinetoEvent& e) {
    if (!e.pid.present) return;
    const int64_t pid = resolve(e.pid);
    if (e.name == "process_name" && !e.arg_name.empty()) {
        process_names_[pid] = std::string(e.arg_name);
    } else if (e.name == "process_sort_index" && e.sort_index != KinetoEvent::kNoValue) {
        process_sort_[pid] = e.sort_index;
    } else if (e.tid.present) {
        const SlotKey key{pid, resolve(e.tid), 0};
        if (e.name == "thread_name" && !e.arg_name.empty())
            thread_names_[key] = std::string(e.arg_name);
        else if (e.name == "thread_sort_index" && e.sort_index != KinetoEvent::kNoValue)
            thread_sort_[key] = e.sort_index;
    }
}

// ac2g flows (a launch to its GPU work) are rebuilt from correlation ids, which every version writes;
// other flows (fwdbwd: a forward operator to its backward) link host threads by their start and finish.
void ProfilerTraceBuilder::flow_event(const KinetoEvent& e) {
    if (e.cat == "ac2g" || e.id == KinetoEvent::kNoValue || !e.pid.present || !e.tid.present) return;
    TimeNs at = 0;
    if (!to_time(e.ts, at)) return;
    const FlowEnd end{slot_for({resolve(e.pid), resolve(e.tid), 0}, LaneGroup::host), at};
    if (e.ph == 's') {
        flow_starts_[e.id] = end;
    } else if (auto start = flow_starts_.find(e.id); start != flow_starts_.end()) {
        host_flows_.push_back({start->second, end});
        flow_starts_.erase(start);
    } else {
        ++counts_.unpaired_flows;
    }
}

void ProfilerTraceBuilder::top_level(std::string_view key, std::string_view json) {
    const nlohmann::json value = nlohmann::json::parse(json, nullptr, false);
    if (value.is_discarded()) return;
    if (key == "baseTimeNanoseconds" && value.is_number_integer()) {
        base_time_ns_ = value.get<int64_t>();
    } else if (key == "deviceProperties" && value.is_array()) {
        for (const nlohmann::json& device : value) {
            if (!device.is_object() || !device.contains("name") || !device["name"].is_string()) continue;
            const int64_t id =
                device.value("id", nlohmann::json(0)).is_number_integer() ? device.value("id", 0) : 0;
            device_names_[id] = device["name"].get<std::string>();
            if (info_.device.name.empty()) info_.device.name = device["name"].get<std::string>();
            const nlohmann::json& memory = device.value("totalGlobalMem", nlohmann::json());
            if (memory.is_number_integer() && info_.device.memory_bytes == 0)
                info_.device.memory_bytes = memory.get<int64_t>();
        }
    } else if (key == "distributedInfo" && value.is_object()) {
        const auto rank = value.value("rank", nlohmann::json()),
                   world = value.value("world_size", nlohmann::json());
        if (rank.is_number_integer() && world.is_number_integer())
            rank_note_ = fmt::format("rank {} of {}", rank.get<int64_t>(), world.get<int64_t>());
    }
}

int64_t ProfilerTraceBuilder::wall_ns_at_zero() const {
    // Only times a clock can show (before 2100): anything else is a broken file's, and 0 says "unknown".
    constexpr double kLatestUs = 4.1e15;
    if (!(std::fabs(origin_us_) < kLatestUs)) return 0;
    if (base_time_ns_ > 0 && base_time_ns_ < static_cast<int64_t>(kLatestUs) * 1000)
        return base_time_ns_ + static_cast<int64_t>(origin_us_) * 1000;
    if (origin_us_ > kWallClockUs) return static_cast<int64_t>(origin_us_) * 1000;
    return 0;
}

// The train loop is the thread that waits for data; without waits, the one with profiler steps.
void ProfilerTraceBuilder::settle_roles() {
    if (roles_settled_) return;
    roles_settled_ = true;
    uint64_t best = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
        const Slot& slot = slots_[i];
        if (slot.info.group != LaneGroup::host || slot.role_fixed) continue;
        const uint64_t score = slot.waits * 1'000'000 + slot.steps;
        if (score > best) {
            best = score;
            main_slot_ = static_cast<int64_t>(i);
        }
    }
    for (size_t i = 0; i < slots_.size(); ++i) {
        Slot& slot = slots_[i];
        if (slot.info.group != LaneGroup::host || slot.role_fixed) continue;
        if (static_cast<int64_t>(i) == main_slot_)
            slot.info.role = LaneRole::main;
        else if (slot.pin_ops > 0)
            slot.info.role = LaneRole::pin;
    }
}

ProfilerTraceBuilder::ThreadRef ProfilerTraceBuilder::train_loop_thread() const {
    if (main_slot_ < 0) return {};
    const LaneOrigin& origin = slots_[static_cast<size_t>(main_slot_)].info.origin;
    return {origin.process, origin.thread};
}

ProfilerTraceBuilder::ThreadRef ProfilerTraceBuilder::pin_thread(int64_t pid) const {
    for (const Slot& slot : slots_)
        if (slot.info.group == LaneGroup::host && slot.info.origin.process == pid &&
            slot.info.role == LaneRole::pin)
            return {pid, slot.info.origin.thread};
    return {pid, -1};
}

TimeNs ProfilerTraceBuilder::first_time() const {
    TimeNs t = std::numeric_limits<TimeNs>::max();
    for (const Slot& slot : slots_)
        for (const Span& span : slot.spans) t = std::min(t, span.start);
    return t == std::numeric_limits<TimeNs>::max() ? 0 : t;
}

TimeNs ProfilerTraceBuilder::last_time() const {
    TimeNs t = std::numeric_limits<TimeNs>::min();
    for (const Slot& slot : slots_)
        for (const Span& span : slot.spans) t = std::max(t, span.end);
    return t == std::numeric_limits<TimeNs>::min() ? 0 : t;
}

std::vector<Interval> ProfilerTraceBuilder::train_loop_waits() {
    settle_roles();
    std::vector<Interval> waits;
    if (main_slot_ < 0) return waits;
    for (const Span& span : slots_[static_cast<size_t>(main_slot_)].spans)
        if (span.kind == SpanKind::wait) waits.push_back({span.start, span.end});
    std::sort(waits.begin(), waits.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    // A wait nested in another (a wrapper's __next__ around the loader's) is the same wait.
    std::vector<Interval> outer;
    for (const Interval& w : waits)
        if (outer.empty() || w.start >= outer.back().end) outer.push_back(w);
    return outer;
}

// Batch k: the k-th wait, and the GPU work the train loop launched after it returned and before the
// next one returned.
void ProfilerTraceBuilder::assign_batches() {
    const std::vector<Interval> waits = train_loop_waits();
    if (waits.empty()) return;
    Slot& main = slots_[static_cast<size_t>(main_slot_)];
    for (Span& span : main.spans) {
        if (span.kind != SpanKind::wait) continue;
        const auto at = std::upper_bound(waits.begin(), waits.end(), span.start,
                                         [](TimeNs t, const Interval& w) { return t < w.start; });
        span.batch = (at - waits.begin()) - 1;
    }
    const auto batch_after = [&](TimeNs t) -> int64_t {
        const auto at = std::upper_bound(waits.begin(), waits.end(), t,
                                         [](TimeNs time, const Interval& w) { return time < w.end; });
        return (at - waits.begin()) - 1;  // -1 (kNoBatch) before the first wait returned
    };
    std::unordered_map<int64_t, int64_t> batch_of_launch;
    batch_of_launch.reserve(host_launches_.size());
    for (const Launch& launch : host_launches_) {
        if (static_cast<int64_t>(launch.slot) != main_slot_) continue;
        batch_of_launch[launch.correlation] = batch_after(slots_[launch.slot].spans[launch.index].start);
    }
    for (const Launch& work : device_work_) {
        const auto batch = batch_of_launch.find(work.correlation);
        if (batch != batch_of_launch.end()) slots_[work.slot].spans[work.index].batch = batch->second;
    }
}

// A copy call whose H2D copy reads pageable memory holds its thread while the driver stages the bytes:
// pinscope's `stage` span, which the metrics count as idle time by cause. Its name stays the call's.
void ProfilerTraceBuilder::mark_staging() {
    std::unordered_map<int64_t, const Span*> pageable_copy;
    for (const Launch& work : device_work_) {
        const Span& span = slots_[work.slot].spans[work.index];
        if (span.kind == SpanKind::h2d && span.memory == HostMemory::pageable)
            pageable_copy[work.correlation] = &span;
    }
    if (pageable_copy.empty()) return;
    for (const Launch& launch : host_launches_) {
        const auto copy = pageable_copy.find(launch.correlation);
        if (copy == pageable_copy.end()) continue;
        Span& call = slots_[launch.slot].spans[launch.index];
        call.kind = SpanKind::stage;
        call.memory = HostMemory::pageable;
        call.bytes = copy->second->bytes;
        call.batch = copy->second->batch;
    }
}

void ProfilerTraceBuilder::add_host_span(int64_t pid, int64_t tid, LaneRole role, int index,
                                         std::string_view lane_name, std::string_view process_name, Span span,
                                         std::string_view span_name) {
    const uint32_t s = slot_for({pid, tid, 0}, LaneGroup::host);
    Slot& slot = slots_[s];
    if (!slot.role_fixed) {
        slot.role_fixed = true;
        slot.info.role = role;
        slot.info.index = index;
        thread_names_.try_emplace({pid, tid, 0}, std::string(lane_name));
        process_names_.try_emplace(pid, std::string(process_name));
    }
    span.name = store_.intern(span_name);
    slot.spans.push_back(span);
    ++counts_.spans;
}

void ProfilerTraceBuilder::name_lanes() {
    for (Slot& slot : slots_) {
        LaneInfo& lane = slot.info;
        const int64_t process = lane.origin.process, thread = lane.origin.thread;
        if (lane.group == LaneGroup::device) {
            const auto device = device_names_.find(process);
            lane.group_name = device != device_names_.end()
                                  ? fmt::format("GPU {}: {}", process, device->second)
                                  : device_group_name(process);
            lane.name = lane.role == LaneRole::other
                            ? fmt::format("stream {} other", thread)
                            : pinscope::lane_name(lane.role, static_cast<int>(thread));
            lane.sort_key = lane_sort_key(lane.role == LaneRole::other ? LaneRole::memset : lane.role,
                                          static_cast<int>(std::clamp<int64_t>(thread, 0, 100'000))) +
                            (lane.role == LaneRole::other ? 1 : 0);
            continue;
        }
        const auto process_name = process_names_.find(process);
        const std::string pname =
            process_name != process_names_.end() ? process_name->second : fmt::format("process {}", process);
        lane.group_name = process >= 0 ? fmt::format("{} (pid {})", pname, process) : pname;
        const auto thread_name = thread_names_.find({process, thread, 0});
        const auto text = text_of_id_.find(thread);  // a tid the trace wrote as a string
        const std::string tname = thread_name != thread_names_.end() ? thread_name->second
                                  : text != text_of_id_.end()        ? text->second
                                                                     : fmt::format("thread {}", thread);
        lane.name = lane.role == LaneRole::main  ? fmt::format("train loop ({})", tname)
                    : lane.role == LaneRole::pin ? fmt::format("pin memory ({})", tname)
                                                 : tname;
        const auto sort = thread_sort_.find({process, thread, 0});
        lane.sort_key =
            lane.role == LaneRole::main     ? 0
            : lane.role == LaneRole::worker ? lane_sort_key(LaneRole::worker, lane.index)
            : lane.role == LaneRole::pin    ? lane_sort_key(LaneRole::pin, 0)
            : sort != thread_sort_.end()
                ? 20'000 + static_cast<int>(std::clamp<int64_t>(sort->second, 0, 1'000'000))
                : 20'000 + static_cast<int>(std::clamp<int64_t>(thread % 1'000'000, 0, 1'000'000));
    }
}

Capture ProfilerTraceBuilder::finish() {
    settle_roles();
    assign_batches();
    mark_staging();
    name_lanes();
    // Lane ids are 16 bits: a trace of more lanes keeps the first 65534 (no real trace comes near).
    if (slots_.size() >= kNoLane) {
        for (size_t i = kNoLane - 1; i < slots_.size(); ++i) counts_.too_many_lanes += slots_[i].spans.size();
        slots_.resize(kNoLane - 1);
    }
    // Times from 0: the earliest span starts there.
    TimeNs earliest = std::numeric_limits<TimeNs>::max();
    for (const Slot& slot : slots_)
        for (const Span& span : slot.spans) earliest = std::min(earliest, span.start);
    if (earliest == std::numeric_limits<TimeNs>::max()) earliest = 0;

    // Flows: each GPU span from the runtime call that launched it.
    std::unordered_map<int64_t, FlowEnd> launch_at;
    launch_at.reserve(host_launches_.size());
    for (const Launch& launch : host_launches_)
        if (launch.slot < slots_.size())
            launch_at[launch.correlation] = {launch.slot, slots_[launch.slot].spans[launch.index].start};
    std::vector<Flow> flows;
    for (const Launch& work : device_work_) {
        const auto from = launch_at.find(work.correlation);
        if (from == launch_at.end() || work.slot >= slots_.size()) continue;
        flows.push_back({from->second.start - earliest, slots_[work.slot].spans[work.index].start - earliest,
                         static_cast<LaneId>(from->second.slot), static_cast<LaneId>(work.slot)});
    }
    for (const auto& [from, to] : host_flows_)
        if (from.slot < slots_.size() && to.slot < slots_.size())
            flows.push_back({from.start - earliest, to.start - earliest, static_cast<LaneId>(from.slot),
                             static_cast<LaneId>(to.slot)});
    counts_.flows = flows.size();

    std::vector<LaneInfo> lanes;
    for (size_t i = 0; i < slots_.size(); ++i) {
        slots_[i].info.id = static_cast<LaneId>(i);
        lanes.push_back(slots_[i].info);
    }
    Capture capture;
    capture.store = std::move(store_);
    capture.store.set_lanes(lanes);
    for (size_t i = 0; i < slots_.size(); ++i) {
        std::vector<Span>& spans = slots_[i].spans;
        for (Span& span : spans) {
            span.start -= earliest;
            span.end -= earliest;
            span.lane = static_cast<LaneId>(i);
        }
        // Outer spans first where starts tie, so that depth counts the spans a span sits in.
        std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
        std::vector<TimeNs> open;  // ends of the spans the current one may sit in
        for (Span& span : spans) {
            while (!open.empty() && open.back() <= span.start) open.pop_back();
            span.depth = static_cast<uint32_t>(std::min<size_t>(open.size(), kMaxSpanDepth));
            open.push_back(span.end);
        }
        capture.store.adopt_lane(static_cast<LaneId>(i), std::move(spans));
    }
    for (const Flow& flow : flows) capture.store.add(flow);
    info_.window = {capture.store.first_time(), capture.store.last_time()};
    info_.device.kind = "cuda";
    capture.info = std::move(info_);
    return capture;
}

}  // namespace pinscope
