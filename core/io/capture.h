#pragma once
// The native capture file (.pinscope): everything a run leaves behind, to reopen on any machine.
//
// Layout (all fixed-width integers little-endian):
//   file header  "PINSCOPE" | u32 format version | u32 0
//   sections     u32 tag | u32 0 | u64 stored bytes | u64 raw bytes | a zstd frame of `stored bytes`
//                that inflates to `raw bytes` (with zstd's content checksum)
//   Format 3 streams: a run appends its spans as it records them, and the tables that only the end
//   knows come last, so a capture's length is bounded by the disk and not by memory.
//     SPAN  a run of one lane's spans (at most kSpansPerSection), as columns (columns compress far better
//           than rows): the run's first start, then starts as deltas, durations, batch ids as deltas,
//           bytes, kind (the category id), flags (memory, the cut mark), depth, name ids
//     CNTR  samples of one counter series, time deltas and exact doubles; a series may take several
//     STRS  the string table that span names index (entry 0 is "", the name of unnamed spans)
//     CATS  the categories an imported trace brings, ids from kSpanKindCount on (pinscope's own kinds
//           need no entry)
//     FLOW  arrows between spans (Flow): pinscope's own batches need none, their spans carry batch ids
//     META  JSON: the writer's version, the config (null for a trace no pipeline of pinscope's ran),
//           the device and its calibration, the lanes (role, origin, group), the metrics window and
//           metrics, span and sample counts, what was lost while recording
//     INDX  where META and each SPAN section are, with each one's lane, span count and time range: what
//           a reader that wants one time range of a big capture seeks by
//     END.  the last section, empty; its raw-bytes field holds INDX's offset. A file without it was cut
//           short
//   Formats 1 and 2 (still read) start with META, then STRS, SPAN with kind and memory packed in a byte
//   and deltas from META's time_base, CNTR once per series, END with zeros.
//
// Reading checks every length against what is left of the file before allocating, every id against the
// tables it indexes, and every section against its checksum: a truncated, corrupt, foreign or newer
// file is a CaptureError that names the file and what is wrong, never a crash or a half-loaded trace.
// Writing goes to a temporary file beside the target, synced and renamed over it: a crash or Ctrl-C
// leaves the target as it was.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/analysis/metrics.h"
#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/device/gpu_trace_report.h"
#include "core/files/output_file.h"
#include "core/trace/trace_store.h"

namespace pinscope {

// 2: a span the run's end cut short is marked (bit 7 of its kind byte).
// 3: streamed (tables and META last, an index); lanes by origin, role and group; spans with a category
//    and a depth; flows; the config optional. Format 1 and 2 files still open.
// 4: two more of pinscope's own kinds (startup, stopwatch), so an imported category's id starts two
//    later; a format 3 file's category ids are moved up as it is read.
constexpr uint32_t kCaptureFormatVersion = 4;
// How many kinds of pinscope's own formats 1 to 3 knew: their imported categories' ids start here.
constexpr int kKindCountBefore4 = 9;
static_assert(kKindCountBefore4 <= kSpanKindCount);
constexpr const char* kCaptureExtension = ".pinscope";
// Whether `file`'s name says it holds a capture: what `pinscope FILE`, stats and diff open as one, so no
// other format may be written under it (the app records a trace or a capture by it, `run --trace` refuses
// it).
inline bool named_as_capture(const std::filesystem::path& file) {
    return file.extension() == kCaptureExtension;
}

class CaptureError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What a capture says about the run besides its spans.
struct CaptureInfo {
    std::string writer_version;  // the pinscope that wrote it (save_capture fills it in)
    std::string created;         // UTC, ISO 8601 (save_capture fills it in when empty)
    // The pipeline that ran; none for a trace that no pipeline of pinscope's recorded (an import).
    std::optional<PipelineConfig> config;
    DeviceInfo device;
    std::string device_why;
    nlohmann::json calibration = nullptr;  // the simulated GPU's calibration file; null for a real GPU
    MetricsWindow window;                  // where the run's metrics were measured
    nlohmann::json metrics = nullptr;      // the run's metrics as `run --json` prints them
    uint64_t dropped_spans = 0;            // lost by full recorder rings
    uint64_t evicted_spans = 0;            // dropped by the live store's memory bound before saving
    std::optional<GpuTraceReport> gpu_trace;
    // Set on reading when only part of a capture was read (load_capture's `range`): the times kept, and
    // how many spans the whole file holds. `window` is then always set (from the index where the file
    // recorded none): a part's times count from window.start.
    std::optional<Interval> loaded_range;
    uint64_t spans_in_file = 0;
    // Set on reading when the file's config would not pass the command line's validator (validate.h):
    // its first problem, as describe() says it. Such a capture opens (its spans are sound) with a
    // warning; the app will not run its config live, and the advisor will not advise on it.
    std::string config_problem;
    // Where an imported trace came from ("PyTorch profiler trace + loader side files"); "" for pinscope's
    // own runs. Kept in the capture.
    std::string source;
    // Samples per batch where no config says it (an import whose loader side files do); 0: unknown.
    int samples_per_batch = 0;
    // The DataLoader's settings as the loader's side files wrote them (num_workers, pin_memory,
    // prefetch_factor...); null when the import had none. Kept in the capture.
    nlohmann::json loader = nullptr;
    // Set on importing: one line saying what was skipped or could not be read; "" when nothing was.
    std::string import_note;
};

struct Capture {
    CaptureInfo info;
    TraceStore store{TraceLimits{SIZE_MAX, SIZE_MAX}};  // a capture is kept whole
    std::filesystem::path path;
    uint64_t file_bytes = 0;
};

// The metrics of a capture over its recorded window, computed from its spans as the live run did.
Metrics capture_metrics(const Capture& capture);
// What the metrics need of the config: samples per batch (0 when there is no config: samples unknown) and
// how many times slower than real time the run was recorded (1 without one).
int capture_batch_size(const CaptureInfo& info);
double capture_slow_motion(const CaptureInfo& info);

// Writes a capture a piece at a time: spans and counter samples as they come (a run streaming its
// capture, core/io/capture_stream.h), then finish() with what only the end knows. Each call writes
// whole sections to `out`, which the caller owns and keeps open until finish() returns.
class CaptureWriter {
  public:
    explicit CaptureWriter(std::ostream& out);  // writes the file header
    ~CaptureWriter();
    CaptureWriter(const CaptureWriter&) = delete;
    CaptureWriter& operator=(const CaptureWriter&) = delete;

    // One lane's spans, in any order (a reader sorts each lane by start); ids are those of the `tables`
    // given to finish().
    void spans(LaneId lane, std::span<const Span> spans);
    void counters(CounterKind kind, std::span<const CounterSample> samples);
    // The string and category tables, the flows and the lanes of `tables`, META from `info`, the index
    // and END. Nothing may be written after it.
    void finish(const TraceStore& tables, const CaptureInfo& info);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Writes `store` and `info` to `file` (core/files/output_file.h: a temporary, fsync, rename; or a FIFO or
// device as a stream). `progress` is told the share written so far, in [0, 1]. Throws CaptureError naming
// the file; the target is untouched then.
void save_capture(OutputFile& file, const TraceStore& store, const CaptureInfo& info,
                  const std::function<void(double)>& progress = {});
// The same to a path not checked before: also throws OutputPathError for a path that cannot be written.
void save_capture(const std::filesystem::path& path, const TraceStore& store, const CaptureInfo& info,
                  const std::function<void(double)>& progress = {});

// Part of a capture to read, in seconds from the start of its recorded window (CaptureInfo::window).
struct CaptureRange {
    double from_s = 0, to_s = 0;
};

// Reads a capture whole, or with `range` (format 3) only the SPAN sections whose spans reach into it (the
// index says where they are and what they cover) and the counter samples inside it: the file is mapped,
// not read, so what is skipped is never touched and a capture bigger than memory opens a part at a time.
// `progress` is told the share read so far and returns false to cancel (a CaptureError then says so).
// Throws CaptureError naming the file and the problem (a range of a format 1 or 2 file included).
Capture load_capture(const std::filesystem::path& path, const std::function<bool(double)>& progress = {},
                     std::optional<CaptureRange> range = std::nullopt);
// What reading `path` whole would hold in memory, in bytes, from its index (without reading its spans),
// and its recorded window's length: for a viewer to decide whether to read a range instead. Format 1 and
// 2 files, which have no index, answer from their size.
struct CaptureSize {
    uint64_t spans = 0;
    uint64_t memory_bytes = 0;
    TimeNs window = 0;
};
CaptureSize capture_size(const std::filesystem::path& path);
// The range to read of a capture of `size` so that it fits in `budget_bytes`: its first part, as long as
// fits; none when all of it fits (or a format 1 or 2 file, which has no index to read a range by).
std::optional<CaptureRange> range_that_fits(const CaptureSize& size, uint64_t budget_bytes);
// Parses "FROM:TO" (seconds, e.g. "120:150"); throws std::invalid_argument saying what is wrong.
CaptureRange parse_capture_range(const std::string& text);

// The same from memory (the fuzzer's entry point); `name` stands for the file in messages.
Capture load_capture_bytes(const uint8_t* data, size_t size, const std::string& name,
                           std::optional<CaptureRange> range = std::nullopt);

// The container's pieces, for tests and tools that make capture files by hand (damaged ones included):
// the file header with a format version, one section (`tag` is four characters, `raw` its contents
// before compression), and the END section.
namespace capture_format {
std::string file_header(uint32_t version = kCaptureFormatVersion);
std::string section(std::string_view tag, std::string_view raw);
std::string end();
}  // namespace capture_format

// True when the file starts with a capture's magic: what `pinscope FILE` and a dropped file use to tell
// a capture from a config.
bool looks_like_capture(const std::filesystem::path& path);

}  // namespace pinscope
