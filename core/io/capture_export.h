#pragma once
// A capture for spreadsheets: the metrics as `metric,value` rows (the keys of `run --json`, nested keys
// joined by dots) and every batch as a row of its stage latencies (batch_table.h), in microseconds
// from the capture's first span. Also the one-line title pictures and exports put on top.
#include <filesystem>
#include <ostream>
#include <string>

#include "core/io/capture.h"
#include "core/io/chrome_trace.h"

namespace pinscope {

void write_batches_csv(std::ostream& out, const TraceStore& store, Interval window);
void write_metrics_csv(std::ostream& out, const nlohmann::json& metrics);

struct CsvFiles {
    std::filesystem::path batches, metrics;
};
// Where the metrics of a batch table go: beside it, run.csv -> run.metrics.csv.
std::filesystem::path metrics_csv_path(const std::filesystem::path& batches_csv);
// Writes the batches and the metrics, each whole or not at all. `window` both 0: the whole capture
// (metrics over the recorded window).
void save_capture_csv(OutputFile& batches, OutputFile& metrics, const Capture& capture, Interval window);
// The same to `path` and metrics_csv_path(path), not checked before.
CsvFiles save_capture_csv(const std::filesystem::path& path, const Capture& capture, Interval window);

// "NVIDIA H100 80GB HBM3 · 4 workers, pin_memory=true, non_blocking, 2 streams · batch 256 x 3x224x224".
std::string capture_title(const Capture& capture);

// What a Perfetto (Chrome trace) export of `window` of a capture carries besides its spans: the device,
// the config and the capture's metrics. `pinscope export` and the app's Export view both use it.
ExportInfo capture_export_info(const Capture& capture, Interval window);

}  // namespace pinscope
