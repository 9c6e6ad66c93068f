#pragma once
// The side files of python/pinscope_loader (docs/loader-side-files.md): what a DataLoader's worker
// processes, its pin thread and the train loop's waits did, one JSON-lines file per process, read and
// merged into an imported profiler trace so that the real workers appear as lanes with batch ids.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pinscope {

class ProfilerTraceBuilder;

// The category of one sample's fetch (dataset[i]) on a loader's lane; the batch it belongs to is a fetch
// span around it, as pinscope's own are.
inline constexpr std::string_view kSampleCategory = "dataset";

struct LoaderRecord {
    enum class Kind : uint8_t { fetch, collate, pin, wait, epoch };
    Kind kind = Kind::fetch;
    int64_t t0 = 0, t1 = 0;  // time.monotonic_ns()
    int64_t epoch = -1, batch = -1;
    int64_t value = -1;  // fetch: the sample's index; collate: samples; pin: bytes
};

struct LoaderProcess {
    std::string run;
    int64_t pid = 0;
    bool main = false;
    int worker_id = -1;
    int64_t wall_minus_monotonic = 0;      // from the header's clock pair
    int batch_size = 0, num_workers = -1;  // from the main process's "loader"; 0 / -1 when not said
    bool pin_memory = false;
    std::string loader_json;  // the main process's "loader" object as written ("" when none)
    std::vector<LoaderRecord> records;
    uint64_t bad_lines = 0;  // lines that are not records (a process killed mid-write leaves one)
};

// Parses one side file's text. Throws std::runtime_error naming what is wrong when its first line is
// not a side file's header; later lines that do not parse are counted in bad_lines and skipped.
LoaderProcess parse_loader_side_file(std::string_view text);

struct LoaderRun {
    std::string id;
    std::vector<LoaderProcess> processes;  // the main process first, then workers by id
};

struct LoaderFiles {
    std::vector<LoaderRun> runs;
    std::vector<std::string> problems;  // files that are not side files, one line each
};
// Every *.jsonl in `dir` (none when it does not exist), grouped by run.
LoaderFiles read_loader_side_files(const std::filesystem::path& dir);

// Where the side files of `trace` are looked for when no folder is named: pinscope-loader/ beside it.
std::filesystem::path default_loader_dir(const std::filesystem::path& trace);

// Adds the runs that overlap the trace to `builder` (before its finish()): worker lanes with fetch and
// collate spans, the pin thread's pins, fetches on the train loop with num_workers=0. Returns a line
// for each run that could not be placed (no clock to align it by), and sets `batch_size` from the
// first run merged (0 when none says) and `loader_json` from its header.
std::vector<std::string> merge_loader_runs(ProfilerTraceBuilder& builder, const std::vector<LoaderRun>& runs,
                                           int& batch_size, int& merged_runs, std::string& loader_json);

}  // namespace pinscope
