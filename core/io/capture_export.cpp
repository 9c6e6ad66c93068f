#include "core/io/capture_export.h"

#include <iterator>

#include <fmt/format.h>

#include "core/analysis/batch_table.h"
#include "core/config/config_json.h"
#include "core/files/output_file.h"
#include "core/io/event_stream.h"
#include "core/io/metrics_json.h"

namespace pinscope {
namespace {

void flatten(const nlohmann::json& j, const std::string& prefix, std::ostream& out) {
    if (j.is_object()) {
        for (const auto& [key, value] : j.items())
            flatten(value, prefix.empty() ? key : prefix + "." + key, out);
        return;
    }
    out << prefix << ',' << j.dump() << '\n';
}

}  // namespace

void write_batches_csv(std::ostream& out, const TraceStore& store, Interval window) {
    const TimeNs base = store.first_time();
    fmt::memory_buffer text;
    auto at = std::back_inserter(text);
    fmt::format_to(at, "batch,start_us,end_us,latency_us");
    for (std::string_view kind : kSpanKindNames) fmt::format_to(at, ",{}_us", kind);
    fmt::format_to(at, ",h2d_bytes,h2d_memory\n");
    for (const BatchRow& row : batch_rows(store, window)) {
        fmt::format_to(at, "{},{},{},{}", row.batch, Micros{row.first_start - base},
                       Micros{row.last_end - base}, Micros{row.last_end - row.first_start});
        for (int kind = 0; kind < kSpanKindCount; ++kind)
            fmt::format_to(at, ",{}", row.spans[kind] ? fmt::format("{}", Micros{row.stage_ns[kind]}) : "");
        fmt::format_to(at, ",{},{}\n", row.h2d_bytes, host_memory_name(row.h2d_memory));
        if (text.size() > (1 << 16)) {
            out.write(text.data(), static_cast<std::streamsize>(text.size()));
            text.clear();
        }
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void write_metrics_csv(std::ostream& out, const nlohmann::json& metrics) {
    out << "metric,value\n";
    flatten(metrics, "", out);
}

std::filesystem::path metrics_csv_path(const std::filesystem::path& batches_csv) {
    std::filesystem::path metrics = batches_csv;
    return metrics.replace_extension(".metrics.csv");
}

void save_capture_csv(OutputFile& batches, OutputFile& metrics_file, const Capture& capture,
                      Interval window) {
    const bool whole = window.start == 0 && window.end == 0;
    const Metrics metrics =
        whole ? capture_metrics(capture)
              : compute_metrics(capture.store, capture_batch_size(capture.info),
                                MetricsWindow{window.start, window.end}, capture_slow_motion(capture.info));
    batches.write([&](std::ostream& out) { write_batches_csv(out, capture.store, window); });
    metrics_file.write([&](std::ostream& out) { write_metrics_csv(out, metrics_json(metrics)); });
}

CsvFiles save_capture_csv(const std::filesystem::path& path, const Capture& capture, Interval window) {
    const CsvFiles files{path, metrics_csv_path(path)};
    OutputFile batches(files.batches, "the batch table"), metrics(files.metrics, "the metrics");
    save_capture_csv(batches, metrics, capture, window);
    return files;
}

std::string capture_title(const Capture& capture) {
    if (!capture.info.config) {  // a trace no pipeline of pinscope's ran: say whose and how big
        const std::string file = capture.path.empty() ? "trace" : capture.path.filename().string();
        return fmt::format("{} \xC2\xB7 {} lanes \xC2\xB7 {} spans", file, capture.store.lanes().size(),
                           capture.store.span_count());
    }
    const PipelineConfig& c = *capture.info.config;
    std::string loader = c.num_workers ? fmt::format("{} workers", c.num_workers) : "no workers";
    loader += c.pin_memory ? ", pin_memory=true" : ", pin_memory=false";
    if (c.non_blocking) loader += ", non_blocking";
    loader += fmt::format(", {} stream{}", c.streams, c.streams == 1 ? "" : "s");
    return fmt::format("{} \xC2\xB7 {} \xC2\xB7 batch {} x {}", capture.info.device.name, loader,
                       c.batch_size, c.sample_shape.to_string());
}

ExportInfo capture_export_info(const Capture& capture, Interval window) {
    return {capture.info.device.name,
            "pinscope",
            capture.info.config ? config_to_json(*capture.info.config) : nlohmann::json(nullptr),
            metrics_json(capture_metrics(capture)),
            window.start,
            window.end};
}

}  // namespace pinscope
