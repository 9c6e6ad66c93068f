#include "core/io/kineto/profiler_trace_import.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/profiler_steps.h"
#include "core/io/kineto/kineto_event.h"
#include "core/io/kineto/loader_side_files.h"
#include "core/io/kineto/profiler_trace_builder.h"
#include "core/io/kineto/trace_bytes.h"
#include "core/io/kineto/trace_json_splitter.h"

namespace pinscope {

namespace {

// What the reader thread hands the parsing one: a chunk of events, or a top-level value (key set).
struct Piece {
    std::string key;
    EventChunk chunk;
    double share = 0;  // of the file read when it was handed over
};

// A few pieces in flight between the two threads, and the chunks the parser is done with, whose
// buffers the reader fills again (a 2 MB string allocated afresh each time costs page faults).
class PieceQueue {
  public:
    void push(Piece piece) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return pieces_.size() < kInFlight || draining_; });
        if (draining_) return;
        pieces_.push_back(std::move(piece));
        ready_.notify_one();
    }
    std::optional<Piece> pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !pieces_.empty() || closed_; });
        if (pieces_.empty()) return std::nullopt;
        Piece piece = std::move(pieces_.front());
        pieces_.pop_front();
        room_.notify_one();
        return piece;
    }
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        ready_.notify_all();
    }
    // The consumer gave up: pushes return at once from now on.
    void drain_until_closed() {
        std::lock_guard lock(mutex_);
        draining_ = true;
        pieces_.clear();
        room_.notify_all();
    }
    void give_back(Piece piece) {
        std::lock_guard lock(mutex_);
        if (spare_.size() < kInFlight) spare_.push_back(std::move(piece));
    }
    Piece recycled() {
        std::lock_guard lock(mutex_);
        if (spare_.empty()) return {};
        Piece piece = std::move(spare_.back());
        spare_.pop_back();
        return piece;
    }

  private:
    static constexpr size_t kInFlight = 4;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<Piece> pieces_;
    std::vector<Piece> spare_;
    bool closed_ = false, draining_ = false;
};

}  // namespace

bool looks_like_profiler_trace(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    char head[256] = {};
    in.read(head, sizeof head);
    const std::string_view text(head, static_cast<size_t>(in.gcount()));
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
        static_cast<unsigned char>(text[1]) == 0x8b)
        return true;
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return false;
    if (text.substr(first, 3) == "\xEF\xBB\xBF") return true;  // a byte order mark before the JSON
    return text[first] == '{' || text[first] == '[';
}

std::vector<std::filesystem::path> profiler_traces_in(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> traces;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        // tensorboard_trace_handler's NAME.pt.trace.json[.gz], or any *trace*.json[.gz]
        // (export_chrome_trace's trace.json): a folder's other JSON (configs, calibrations) is not offered.
        const bool json = (name.ends_with(".json") || name.ends_with(".json.gz")) &&
                          name.find("trace") != std::string::npos;
        if (json && entry.is_regular_file(error) && looks_like_profiler_trace(entry.path()))
            traces.push_back(entry.path());
    }
    std::sort(traces.begin(), traces.end());
    return traces;
}

Capture import_profiler_trace(const std::filesystem::path& path, const std::function<bool(double)>& progress,
                              const ProfilerImportOptions& options) {
    const auto problem = [&](const std::string& what) {
        return CaptureError(fmt::format("{}: {}", path.string(), what));
    };
    TraceBytes bytes(path);
    ProfilerTraceBuilder builder;
    KinetoEventParser parser;
    // Two threads: this one parses chunks and builds the trace while a reader inflates and splits the
    // text ahead of it (about a third of the work), a few chunks at most.
    PieceQueue queue;
    std::atomic<bool> stop{false};
    SplitOutcome outcome;
    std::exception_ptr reader_failed;
    std::thread reader([&] {
        TraceJsonParts parts;
        parts.top_level_value = [&](std::string_view key, std::string_view json) {
            Piece piece;
            piece.key = key;
            piece.chunk.text = json;
            queue.push(std::move(piece));
        };
        parts.events = [&](EventChunk& chunk) {
            Piece piece = queue.recycled();
            std::swap(piece.chunk, chunk);
            piece.share = bytes.share_read();
            queue.push(std::move(piece));
        };
        parts.keep_going = [&] { return !stop.load(); };
        try {
            outcome = split_trace_json(bytes, parts);
        } catch (...) {
            reader_failed = std::current_exception();
        }
        queue.close();
    });
    try {
        while (std::optional<Piece> piece = queue.pop()) {
            if (stop.load()) continue;  // draining: the reader stops at its next chunk
            if (!piece->key.empty()) {
                builder.top_level(piece->key, piece->chunk.text);
            } else {
                parser.parse(piece->chunk, [&](const KinetoEvent& e) { builder.event(e); });
                if (progress && !progress(0.95 * piece->share)) stop = true;
                queue.give_back(std::move(*piece));
            }
        }
    } catch (const std::exception& e) {
        // A name table full, memory gone: the reader is stopped before the error leaves.
        stop = true;
        queue.drain_until_closed();
        reader.join();
        if (dynamic_cast<const std::bad_alloc*>(&e)) throw problem("does not fit in memory");
        throw problem(e.what());
    }
    reader.join();
    if (reader_failed) {
        try {
            std::rethrow_exception(reader_failed);
        } catch (const CaptureError& e) {
            // A gzip stream that would not inflate left no text: that, not the missing JSON, is the news.
            throw problem(bytes.problem().empty() ? std::string(e.what()) : bytes.problem());
        } catch (const std::bad_alloc&) {
            throw problem("does not fit in memory");
        }
    }
    if (stop.load()) outcome.cancelled = true;
    if (outcome.cancelled) throw problem("opening was cancelled");
    std::vector<std::string> notes;
    const std::string cut = !bytes.problem().empty() ? bytes.problem()
                            : outcome.truncated      ? "the JSON ends early (the file was truncated)"
                                                     : outcome.problem;
    if (!outcome.found_events) {
        if (!cut.empty()) throw problem(cut);
        throw problem(
            "is not a pinscope capture, nor a PyTorch profiler trace (it is JSON without \"traceEvents\")");
    }
    if (!builder.has_events()) {
        if (!cut.empty()) throw problem(fmt::format("{}, before any event that can be shown", cut));
        throw problem("is a profiler trace with no events pinscope can show (no complete \"X\" events)");
    }
    if (!cut.empty())
        notes.push_back(fmt::format("{}: kept the {} events before the cut", cut, builder.counts().events));
    const EventProblems& bad = parser.problems();
    const uint64_t skipped =
        bad.malformed + bad.missing_field + builder.counts().skipped_times + outcome.non_objects;
    if (skipped > 0)
        notes.push_back(
            fmt::format("skipped {} malformed events ({} not parseable or of wrong types, {} missing "
                        "fields or times)",
                        skipped, bad.malformed + outcome.non_objects,
                        bad.missing_field + builder.counts().skipped_times));

    // The loader's side files: those the caller named, or those beside the trace.
    std::string source = "PyTorch profiler trace";
    const std::filesystem::path dir = options.loader_dir.value_or(default_loader_dir(path));
    std::error_code error;
    if (options.loader_dir && !std::filesystem::is_directory(dir, error))
        throw problem(fmt::format("the loader side-file folder {} does not exist", dir.string()));
    int batch_size = 0, merged = 0;
    std::string loader_json;
    if (std::filesystem::is_directory(dir, error)) {
        LoaderFiles files = read_loader_side_files(dir);
        for (const std::string& p : files.problems) notes.push_back(p);
        for (const std::string& p : merge_loader_runs(builder, files.runs, batch_size, merged, loader_json))
            notes.push_back(p);
        if (merged > 0)
            source += merged == 1 ? " + loader side files" : fmt::format(" + {} loader runs", merged);
    }
    if (progress && !progress(0.97)) throw problem("opening was cancelled");
    Capture capture;
    try {
        capture = builder.finish();
    } catch (const std::bad_alloc&) {
        throw problem("does not fit in memory");
    }
    // Counted by the build, which only finish() completes: lanes past the 65535th.
    if (const uint64_t lost = builder.counts().too_many_lanes; lost > 0)
        notes.push_back(fmt::format("left out {} spans on lanes past the 65,534th", lost));
    bool any_gpu = false;
    for (const LaneInfo& lane : capture.store.lanes()) any_gpu = any_gpu || lane.group == LaneGroup::device;
    if (!any_gpu)
        notes.push_back(
            "it has no GPU events (recorded without CUDA activity): copy and kernel figures are empty");
    if (!builder.rank_note().empty()) source += " (" + builder.rank_note() + ")";
    // The metrics' window: the profiler's steps where it marked them (what a user's steps/s is of), else
    // the whole trace. Warm-up before the first step and the export's tail after the last stay out.
    const ProfilerSteps steps = profiler_steps(capture.store);
    if (!steps.steps.empty()) capture.info.window = {steps.steps.front().start, steps.steps.back().end};
    capture.info.source = source;
    capture.info.samples_per_batch = batch_size;
    if (!loader_json.empty()) capture.info.loader = nlohmann::json::parse(loader_json, nullptr, false);
    if (capture.info.loader.is_discarded()) capture.info.loader = nullptr;
    capture.info.import_note = fmt::format("{}", fmt::join(notes, "; "));
    capture.path = path;
    std::error_code size_error;
    capture.file_bytes = std::filesystem::file_size(path, size_error);
    if (progress) progress(1.0);
    return capture;
}

}  // namespace pinscope
