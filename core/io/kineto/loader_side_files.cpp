#include "core/io/kineto/loader_side_files.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files/input_file.h"
#include "core/io/kineto/profiler_trace_builder.h"

namespace pinscope {

namespace {

constexpr size_t kLargestSideFile = size_t{1} << 30;

// j[key] when j is an object that has it; null otherwise (a const json's operator[] must not be asked
// for a key it lacks).
const nlohmann::json& member(const nlohmann::json& j, const char* key) {
    static const nlohmann::json null;
    if (!j.is_object()) return null;
    const auto at = j.find(key);
    return at == j.end() ? null : *at;
}

int64_t integer_or(const nlohmann::json& j, int64_t fallback) {
    return j.is_number_integer() ? j.get<int64_t>() : fallback;
}

// Clock readings a machine can give (under 2^61 ns, 73 years): differences of two stay inside int64.
constexpr int64_t kLatestClock = int64_t{1} << 61;
bool in_clock_range(int64_t t) {
    return t >= 0 && t < kLatestClock;
}

bool parse_record(const nlohmann::json& line, LoaderRecord& r) {
    if (!line.is_array() || line.empty() || !line[0].is_string()) return false;
    const std::string& kind = line[0].get_ref<const std::string&>();
    const auto number = [&](size_t i, int64_t fallback) {
        return i < line.size() ? integer_or(line[i], fallback) : fallback;
    };
    const auto has_times = [&](size_t n) {
        return line.size() >= n && line[1].is_number_integer() && line[2].is_number_integer();
    };
    if (kind == "epoch") {
        if (line.size() < 3 || !line[1].is_number_integer()) return false;
        r.kind = LoaderRecord::Kind::epoch;
        r.t0 = r.t1 = line[1].get<int64_t>();
        r.epoch = number(2, -1);
        return in_clock_range(r.t0);
    }
    if (kind == "fetch")
        r.kind = LoaderRecord::Kind::fetch;
    else if (kind == "collate")
        r.kind = LoaderRecord::Kind::collate;
    else if (kind == "pin")
        r.kind = LoaderRecord::Kind::pin;
    else if (kind == "wait")
        r.kind = LoaderRecord::Kind::wait;
    else
        return false;
    if (!has_times(r.kind == LoaderRecord::Kind::wait ? 5 : 6)) return false;
    r.t0 = line[1].get<int64_t>();
    r.t1 = line[2].get<int64_t>();
    if (r.t1 < r.t0 || !in_clock_range(r.t0) || !in_clock_range(r.t1)) return false;
    r.epoch = number(3, -1);
    r.batch = number(4, -1);
    r.value = number(5, -1);
    return true;
}

}  // namespace

LoaderProcess parse_loader_side_file(std::string_view text) {
    const size_t first_end = text.find('\n');
    const nlohmann::json header = nlohmann::json::parse(text.substr(0, first_end), nullptr, false);
    if (header.is_discarded() || !header.is_object() || !header.contains("pinscope_loader"))
        throw std::runtime_error("its first line is not a pinscope_loader header");
    if (integer_or(member(header, "pinscope_loader"), 0) != 1)
        throw std::runtime_error("it is of a side-file format this pinscope does not know");
    LoaderProcess p;
    const nlohmann::json& run = member(header, "run");
    p.run = run.is_string() ? run.get<std::string>() : "";
    p.pid = integer_or(member(header, "pid"), 0);
    p.main = member(header, "process") == "main";
    p.worker_id =
        static_cast<int>(std::clamp<int64_t>(integer_or(member(header, "worker_id"), -1), -1, 1 << 20));
    const nlohmann::json& clock = member(header, "clock");
    const nlohmann::json &wall = member(clock, "wall_ns"), &monotonic = member(clock, "monotonic_ns");
    if (!wall.is_number_integer() || !monotonic.is_number_integer() || !in_clock_range(wall.get<int64_t>()) ||
        !in_clock_range(monotonic.get<int64_t>()))
        throw std::runtime_error("its header has no clock pair");
    p.wall_minus_monotonic = wall.get<int64_t>() - monotonic.get<int64_t>();
    const nlohmann::json& loader = member(header, "loader");
    p.batch_size =
        static_cast<int>(std::clamp<int64_t>(integer_or(member(loader, "batch_size"), 0), 0, 1 << 24));
    p.num_workers =
        static_cast<int>(std::clamp<int64_t>(integer_or(member(loader, "num_workers"), -1), -1, 1 << 16));
    p.pin_memory = member(loader, "pin_memory") == true;
    if (loader.is_object()) {
        // The recording host's cores ride along with the loader's settings: the advisor needs them.
        nlohmann::json settings = loader;
        const int64_t cores = integer_or(member(header, "cpu_count"), 0);
        if (cores > 0 && cores < 1 << 20) settings["host_cpu_count"] = cores;
        p.loader_json = settings.dump();
    }
    size_t at = first_end == std::string_view::npos ? text.size() : first_end + 1;
    while (at < text.size()) {
        const size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        LoaderRecord record;
        const nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
        if (value.is_discarded() || !parse_record(value, record)) {
            ++p.bad_lines;
            continue;
        }
        p.records.push_back(record);
    }
    return p;
}

std::filesystem::path default_loader_dir(const std::filesystem::path& trace) {
    return trace.parent_path() / "pinscope-loader";
}

LoaderFiles read_loader_side_files(const std::filesystem::path& dir) {
    LoaderFiles files;
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) return files;
    std::map<std::string, LoaderRun> runs;
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error))
        if (entry.path().extension() == ".jsonl") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    for (const std::filesystem::path& path : paths) {
        try {
            LoaderProcess process = parse_loader_side_file(read_input_file(path, kLargestSideFile));
            LoaderRun& run = runs[process.run];
            run.id = process.run;
            run.processes.push_back(std::move(process));
        } catch (const std::exception& e) {
            files.problems.push_back(fmt::format("{}: {}", path.string(), e.what()));
        }
    }
    for (auto& [id, run] : runs) {
        std::sort(run.processes.begin(), run.processes.end(),
                  [](const LoaderProcess& a, const LoaderProcess& b) {
                      return a.main != b.main ? a.main : a.worker_id < b.worker_id;
                  });
        files.runs.push_back(std::move(run));
    }
    return files;
}

namespace {

// How a run's monotonic times become the trace's: first through the clocks (the main process's clock
// pair and the trace's wall-clock base), then refined by matching its waits to the trace's waits,
// which time the same calls from inside.
struct Alignment {
    bool ok = false;
    int64_t offset = 0;                                       // trace time = monotonic + offset
    std::map<std::pair<int64_t, int64_t>, int64_t> batch_of;  // (epoch, batch) -> trace batch id
};

Alignment align(ProfilerTraceBuilder& builder, const LoaderProcess& main,
                const std::vector<Interval>& waits) {
    Alignment a;
    std::vector<const LoaderRecord*> side_waits;
    for (const LoaderRecord& r : main.records)
        if (r.kind == LoaderRecord::Kind::wait) side_waits.push_back(&r);
    std::sort(side_waits.begin(), side_waits.end(), [](auto* x, auto* y) { return x->t0 < y->t0; });
    const int64_t wall_zero = builder.wall_ns_at_zero();  // under 2^62 (before 2100)
    if (wall_zero != 0) {
        a.offset = main.wall_minus_monotonic - wall_zero;
        a.ok = true;
    } else if (!waits.empty() && !side_waits.empty()) {
        a.offset = waits.front().start - side_waits.front()->t0;
        a.ok = true;
    }
    if (!a.ok || waits.empty() || side_waits.empty()) return a;
    // Nearest trace wait to each side wait; the median difference corrects the clocks' offset.
    const auto nearest = [&](int64_t t) {
        const auto at = std::lower_bound(waits.begin(), waits.end(), t,
                                         [](const Interval& w, int64_t time) { return w.start < time; });
        size_t i = static_cast<size_t>(at - waits.begin());
        if (i == waits.size() || (i > 0 && t - waits[i - 1].start < waits[i].start - t)) --i;
        return i;
    };
    std::vector<int64_t> deltas;
    for (const LoaderRecord* w : side_waits)
        deltas.push_back(waits[nearest(w->t0 + a.offset)].start - (w->t0 + a.offset));
    std::nth_element(deltas.begin(), deltas.begin() + static_cast<long>(deltas.size() / 2), deltas.end());
    a.offset += deltas[deltas.size() / 2];
    // One side wait per trace wait, the nearest, and only a close one: the wrapper's wait starts a few
    // microseconds before the profiler's annotation inside it, while the next batch's is a step away.
    constexpr int64_t kCloseNs = 2'000'000;
    std::map<size_t, std::pair<int64_t, const LoaderRecord*>> best;  // trace wait -> (|delta|, side wait)
    for (const LoaderRecord* w : side_waits) {
        const size_t k = nearest(w->t0 + a.offset);
        const int64_t delta = std::llabs(waits[k].start - (w->t0 + a.offset));
        if (delta > kCloseNs) continue;
        auto [at, added] = best.try_emplace(k, delta, w);
        if (!added && delta < at->second.first) at->second = {delta, w};
    }
    for (const auto& [k, match] : best)
        a.batch_of[{match.second->epoch, match.second->batch}] = static_cast<int64_t>(k);
    return a;
}

}  // namespace

std::vector<std::string> merge_loader_runs(ProfilerTraceBuilder& builder, const std::vector<LoaderRun>& runs,
                                           int& batch_size, int& merged_runs, std::string& loader_json) {
    std::vector<std::string> problems;
    batch_size = 0;
    merged_runs = 0;
    const std::vector<Interval> waits = builder.train_loop_waits();
    const ProfilerTraceBuilder::ThreadRef train_loop = builder.train_loop_thread();
    for (const LoaderRun& run : runs) {
        const auto main =
            std::find_if(run.processes.begin(), run.processes.end(), [](auto& p) { return p.main; });
        if (main == run.processes.end()) {
            problems.push_back(fmt::format("loader run {}: no main-process file", run.id));
            continue;
        }
        const Alignment alignment = align(builder, *main, waits);
        if (!alignment.ok) {
            problems.push_back(fmt::format("loader run {}: no clock to align it with the trace by", run.id));
            continue;
        }
        // A run that does not overlap the trace belongs to another recording in the same folder.
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const LoaderRecord& r : main->records) {
            first = std::min(first, r.t0 + alignment.offset);
            last = std::max(last, r.t1 + alignment.offset);
        }
        if (first > builder.last_time() || last < builder.first_time()) continue;
        ++merged_runs;
        constexpr TimeNs kMargin = 10 * kNsPerS;
        const TimeNs earliest = builder.first_time() - kMargin, latest = builder.last_time() + kMargin;
        if (batch_size == 0) batch_size = main->batch_size;
        if (loader_json.empty()) loader_json = main->loader_json;
        const auto batch_of = [&](const LoaderRecord& r) -> int64_t {
            const auto at = alignment.batch_of.find({r.epoch, r.batch});
            return at == alignment.batch_of.end() ? kNoBatch : at->second;
        };
        // Workers first: a pin that does not know its batch takes the batch collated last before it.
        std::vector<const LoaderProcess*> order;
        for (const LoaderProcess& process : run.processes)
            if (!process.main) order.push_back(&process);
        order.push_back(&*main);
        std::vector<std::pair<TimeNs, int64_t>> collated;  // (end, batch), sorted once the workers are in
        std::vector<bool> pinned;
        for (const LoaderProcess* process : order) {
            const bool worker = !process->main;
            if (!worker) {
                std::sort(collated.begin(), collated.end());
                pinned.assign(collated.size(), false);
            }
            const int64_t pid = worker ? process->pid : (train_loop.pid ? train_loop.pid : process->pid);
            const int64_t tid = worker ? process->pid : (train_loop.pid ? train_loop.tid : process->pid);
            const int index = std::max(process->worker_id, 0);
            const std::string lane_name =
                worker ? fmt::format("worker {}", process->worker_id) : "MainThread";
            const std::string process_name =
                worker ? fmt::format("DataLoader worker {}", process->worker_id) : "python";
            const LaneRole role = worker ? LaneRole::worker : LaneRole::main;
            // Each batch's build, as pinscope's own fetch spans are: from its first sample's fetch to
            // the end of its collate, holding both.
            std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
                builds;  // (epoch, batch) -> times
            for (const LoaderRecord& r : process->records) {
                if (r.kind != LoaderRecord::Kind::fetch && r.kind != LoaderRecord::Kind::collate) continue;
                if (r.batch < 0) continue;
                auto [at, added] = builds.try_emplace({r.epoch, r.batch}, r.t0, r.t1);
                if (!added)
                    at->second = {std::min(at->second.first, r.t0), std::max(at->second.second, r.t1)};
            }
            for (const auto& [key, times] : builds) {
                LoaderRecord r;
                r.epoch = key.first;
                r.batch = key.second;
                Span span{times.first + alignment.offset, times.second + alignment.offset, batch_of(r)};
                if (span.end < earliest || span.start > latest) continue;
                span.kind = SpanKind::fetch;
                builder.add_host_span(pid, tid, role, index, lane_name, process_name, span,
                                      fmt::format("batch {} of epoch {}", key.second, key.first));
            }
            for (const LoaderRecord& r : process->records) {
                Span span{r.t0 + alignment.offset, r.t1 + alignment.offset, batch_of(r)};
                // Records long before or after the trace (a loader that ran on after the profiler
                // stopped) would stretch its window: only those near it are kept.
                if (span.end < earliest || span.start > latest) continue;
                switch (r.kind) {
                    case LoaderRecord::Kind::fetch:
                        // One sample: pinscope's fetch span is a whole batch's build (added below).
                        span.kind = builder.category(kSampleCategory);
                        builder.add_host_span(
                            pid, tid, role, index, lane_name, process_name, span,
                            r.value >= 0 ? fmt::format("dataset[{}]", r.value) : "next(dataset)");
                        break;
                    case LoaderRecord::Kind::collate:
                        span.kind = builder.category("collate");
                        builder.add_host_span(pid, tid, role, index, lane_name, process_name, span,
                                              "collate");
                        if (span.batch != kNoBatch) collated.push_back({span.end, span.batch});
                        break;
                    case LoaderRecord::Kind::pin: {
                        span.kind = SpanKind::pin;
                        span.memory = HostMemory::pinned;
                        span.bytes = r.value > 0 ? static_cast<uint64_t>(r.value) : 0;
                        const bool inline_pin = main->num_workers == 0;
                        const ProfilerTraceBuilder::ThreadRef pin =
                            inline_pin ? ProfilerTraceBuilder::ThreadRef{pid, tid} : builder.pin_thread(pid);
                        if (span.batch == kNoBatch && !inline_pin) {
                            // Only the workers' batches, sorted when the main process began: a stranger's
                            // main file may collate too, after `pinned` was sized.
                            for (size_t i = 0; i < pinned.size() && collated[i].first <= span.start; ++i)
                                if (!pinned[i]) {
                                    span.batch = collated[i].second;
                                    pinned[i] = true;
                                    break;
                                }
                        }
                        builder.add_host_span(pin.pid, pin.tid, inline_pin ? LaneRole::main : LaneRole::pin,
                                              0, inline_pin ? lane_name : "pin memory thread", process_name,
                                              span, "pin_memory");
                        break;
                    }
                    case LoaderRecord::Kind::wait:
                        if (waits.empty()) {
                            span.kind = SpanKind::wait;
                            builder.add_host_span(pid, tid, LaneRole::main, 0, lane_name, process_name, span,
                                                  "DataLoader __next__");
                        }
                        break;
                    case LoaderRecord::Kind::epoch:
                        break;
                }
            }
        }
    }
    return problems;
}

}  // namespace pinscope
