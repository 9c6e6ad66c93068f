#include "core/io/kineto/profiler_trace_import.h"

#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/io/kineto/kineto_event.h"
#include "core/io/kineto/loader_side_files.h"
#include "core/io/kineto/profiler_trace_builder.h"
#include "core/io/kineto/trace_bytes.h"
#include "core/io/kineto/trace_json_splitter.h"

namespace pinscope {

namespace {

std::string joined(const std::vector<std::string>& parts) {
    std::string line;
    for (const std::string& part : parts) line += (line.empty() ? "" : "; ") + part;
    return line;
}

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

Capture import_profiler_trace(const std::filesystem::path& path, const std::function<bool(double)>& progress,
                              const ProfilerImportOptions& options) {
    const auto problem = [&](const std::string& what) {
        return CaptureError(fmt::format("{}: {}", path.string(), what));
    };
    TraceBytes bytes(path);
    ProfilerTraceBuilder builder;
    KinetoEventParser parser;
    TraceJsonParts parts;
    parts.top_level_value = [&](std::string_view key, std::string_view json) {
        builder.top_level(key, json);
    };
    parts.events = [&](const EventChunk& chunk) {
        parser.parse(chunk, [&](const KinetoEvent& e) { builder.event(e); });
    };
    parts.keep_going = [&] { return !progress || progress(0.95 * bytes.share_read()); };
    SplitOutcome outcome;
    try {
        outcome = split_trace_json(bytes, parts);
    } catch (const CaptureError& e) {
        throw problem(e.what());
    } catch (const std::bad_alloc&) {
        throw problem("does not fit in memory");
    }
    if (outcome.cancelled) throw problem("opening was cancelled");
    std::vector<std::string> notes;
    const std::string cut = !bytes.problem().empty() ? bytes.problem()
                            : outcome.truncated      ? "the JSON ends early (the file was truncated)"
                                                     : outcome.problem;
    if (!outcome.found_events) {
        if (!cut.empty()) throw problem(cut);
        throw problem("is JSON, but not a PyTorch profiler trace (it has no \"traceEvents\")");
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
    if (std::filesystem::is_directory(dir, error)) {
        LoaderFiles files = read_loader_side_files(dir);
        for (const std::string& p : files.problems) notes.push_back(p);
        for (const std::string& p : merge_loader_runs(builder, files.runs, batch_size, merged))
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
    bool any_gpu = false;
    for (const LaneInfo& lane : capture.store.lanes()) any_gpu = any_gpu || lane.group == LaneGroup::device;
    if (!any_gpu)
        notes.push_back(
            "it has no GPU events (recorded without CUDA activity): copy and kernel figures are empty");
    if (!builder.rank_note().empty()) source += " (" + builder.rank_note() + ")";
    capture.info.source = source;
    capture.info.samples_per_batch = batch_size;
    capture.info.import_note = joined(notes);
    capture.path = path;
    std::error_code size_error;
    capture.file_bytes = std::filesystem::file_size(path, size_error);
    if (progress) progress(1.0);
    return capture;
}

}  // namespace pinscope
