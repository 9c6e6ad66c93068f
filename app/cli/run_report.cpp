#include "app/cli/run_report.h"

#include <functional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli/cli_words.h"
#include "core/config/config_json.h"
#include "core/io/metrics_json.h"
#include "core/units/units.h"

namespace pinscope {

nlohmann::json report_json(const RunReport& r) {
    nlohmann::json j = metrics_json(r.metrics);
    j["state"] = std::string(to_string(r.status.state));
    if (!r.status.error.empty()) j["error"] = r.status.error;
    j["device"] = {
        {"kind", r.status.device.kind}, {"name", r.status.device.name}, {"why", r.status.device_why}};
    j["config"] =
        r.capture && !r.capture->has_config ? nlohmann::json(nullptr) : config_to_json(r.status.config);
    j["wall_seconds"] = ns_to_s(r.status.elapsed);
    j["dropped_spans"] = r.dropped_spans;
    j["evicted_spans"] = r.evicted_spans;
    if (r.capture)
        j["capture"] = {{"file", r.capture->file},
                        {"created", r.capture->created},
                        {"writer_version", r.capture->writer_version},
                        {"spans", r.capture->spans},
                        {"file_bytes", r.capture->file_bytes}};
    if (r.capture && !r.capture->source.empty()) {
        const ProfilerSteps& steps = r.capture->steps;
        j["capture"]["source"] = r.capture->source;
        j["capture"]["import_note"] = r.capture->import_note;
        j["capture"]["samples_per_batch"] = r.capture->samples_per_batch;
        j["steps"] = {{"count", steps.steps.size()},
                      {"steps_per_s", steps.steps_per_s},
                      {"mean_step_ms", steps.mean_step_ms},
                      {"data_wait_share", steps.data_wait_share}};
    }
    if (r.capture && r.capture->range_s)
        j["capture"]["range"] = {{"from_s", r.capture->range_s->first},
                                 {"to_s", r.capture->range_s->second},
                                 {"spans_in_file", r.capture->spans_in_file}};
    if (r.status.dataset.decoded || r.status.dataset.skipped)
        j["images"] = {{"decoded", r.status.dataset.decoded},
                       {"skipped", r.status.dataset.skipped},
                       {"decode_p50_us", r.status.dataset.decode_p50_us},
                       {"decode_p99_us", r.status.dataset.decode_p99_us}};
    if (r.gpu_trace)
        j["gpu_trace"] = {{"method", r.gpu_trace->method},   {"cupti", r.gpu_trace->cupti},
                          {"spans", r.gpu_trace->spans},     {"dropped", r.gpu_trace->dropped},
                          {"untimed", r.gpu_trace->untimed}, {"uncorrelated", r.gpu_trace->uncorrelated}};
    return j;
}

namespace {

using Row = std::function<void(std::string_view, const std::string&)>;

void print_config(const PipelineConfig& c, const Row& row) {
    row("num_workers", fmt::format("{}", c.num_workers));
    row("prefetch_factor",
        c.num_workers ? fmt::format("{}", c.effective_prefetch_factor()) : "unset (no workers)");
    row("pin_memory", c.pin_memory ? fmt::format("true ({})", to_string(c.pin_mode)) : "false");
    row("non_blocking", c.non_blocking ? "true" : "false");
    row("in_order", c.in_order ? "true" : "false");
    if (c.reads_images()) row("dataset", printable(c.dataset));
    // What crosses the link: float32 (or half) made on the host, or uint8 normalised on the GPU.
    row("batch", fmt::format("{} x {} {} -> {} ({}){}", c.batch_size, c.sample_shape.to_string(),
                             c.reads_images() ? "images" : "uint8", to_string(c.transfer_dtype),
                             format_bytes(static_cast<double>(c.batch_bytes())),
                             c.normalizes_on_gpu() ? ", float32 made on the GPU" : ""));
    row("per sample", fmt::format("decode {} us, io {} us", c.decode_us, c.io_us));
    const std::string kernel = c.kernel_us_per_sample > 0
                                   ? fmt::format("kernel {} us ({} + {} per sample)", c.batch_kernel_us(),
                                                 c.kernel_us, c.kernel_us_per_sample)
                                   : fmt::format("kernel {} us", c.kernel_us);
    row("per batch on GPU",
        fmt::format("{}, d2h {}{}", kernel, format_bytes(static_cast<double>(c.d2h_bytes)),
                    c.data_on_gpu ? " (data_on_gpu: no loading, no H2D)" : ""));
    row("streams / chunks", fmt::format("{} / {} ({})", c.streams, c.chunks, to_string(c.issue_order)));
}

void print_metrics(const Metrics& m, const RunReport& r, const Row& row) {
    row("samples/s", fmt::format("{:.1f}", m.samples_per_s));
    row("batches/s", fmt::format("{:.1f}  ({} batches)", m.batches_per_s, m.batches));
    row("H2D", fmt::format("{} while copying, {} sustained ({}; {} pageable)", format_gbps(m.h2d_gbps),
                           format_gbps(m.h2d_sustained_gbps), link_peak_label(r.status.device.h2d_peak_gbps),
                           format_share(m.pageable_h2d_fraction)));
    row("compute busy",
        fmt::format("{} (kernels running: what nvidia-smi calls GPU utilization)", format_share(m.gpu_busy)));
    row("copy engines busy", fmt::format("{} (H2D {}, D2H {})", format_share(m.copy_busy),
                                         format_share(m.h2d_busy), format_share(m.d2h_busy)));
    row("copy/compute overlap", fmt::format("{} of kernel time", format_share(m.overlap)));
    row("GPU idle, by cause",
        fmt::format(
            "{}: waiting for the loader {}, staging pageable copies {}, waiting for copies (link busy) {}, "
            "synchronous waits {}, other {}",
            format_share(m.gpu_idle), format_share(m.idle.loader), format_share(m.idle.staging),
            format_share(m.idle.copies), format_share(m.idle.sync), format_share(m.idle.other)));
    if (r.capture && !r.capture->has_config) return;  // the loader's queue is not in a profiler's trace
    row("outstanding max",
        fmt::format("{:.0f} (cap {})", m.outstanding_max, r.status.config.max_outstanding()));
    row("pinned in use max", format_bytes(m.pinned_bytes_max));
}

// A trace pinscope did not record: its steps, the data the train loop waited for, the copies by memory.
void print_trace_figures(const Metrics& m, const CaptureSource& c, const Row& row) {
    const ProfilerSteps& s = c.steps;
    if (!s.steps.empty()) {
        row("profiler steps", fmt::format("{} ({:.2f} steps/s, {:.2f} ms each on average)", s.steps.size(),
                                          s.steps_per_s, s.mean_step_ms));
        row("waiting for data",
            fmt::format("{} of the steps' time (the train loop in the DataLoader's next())",
                        format_share(s.data_wait_share)));
    } else {
        row("waiting for data", fmt::format("{} of the trace's time", format_share(m.data_wait)));
    }
    row("batch size", c.samples_per_batch > 0
                          ? fmt::format("{} (from the loader's side files)", c.samples_per_batch)
                          : std::string("unknown: samples/s needs pinscope_loader's side files"));
    row("H2D pageable", fmt::format("{} at {} while copying", format_bytes(double(m.h2d_pageable_bytes)),
                                    format_gbps(m.h2d_pageable_gbps)));
    row("H2D pinned", fmt::format("{} at {} while copying", format_bytes(double(m.h2d_pinned_bytes)),
                                  format_gbps(m.h2d_pinned_gbps)));
}

}  // namespace

void print_report(std::ostream& out, const RunReport& r) {
    const Metrics& m = r.metrics;
    const Row row = [&](std::string_view name, const std::string& value) {
        fmt::print(out, "  {:<22} {}\n", name, value);
    };
    const bool imported = r.capture && !r.capture->source.empty();
    if (imported)
        fmt::print(out, "\ntrace {}: {}{}; {} spans, {}\n", printable(r.capture->file), r.capture->source,
                   r.status.device.name.empty() ? "" : " on " + printable(r.status.device.name),
                   format_count(double(r.capture->spans)), format_bytes(double(r.capture->file_bytes)));
    else if (r.capture)
        fmt::print(out, "\ncapture {}: recorded {} on {} by pinscope {}; {} spans, {}\n", r.capture->file,
                   r.capture->created, r.status.device.name, r.capture->writer_version,
                   format_count(double(r.capture->spans)), format_bytes(double(r.capture->file_bytes)));
    if (r.capture && r.capture->range_s)
        fmt::print(
            out,
            "part read: {:.3f} s to {:.3f} s from its start ({} of its {} spans); the metrics are of it\n",
            r.capture->range_s->first, r.capture->range_s->second, format_count(double(r.capture->spans)),
            format_count(double(r.capture->spans_in_file)));
    if (!r.capture)
        fmt::print(out, "\npinscope run on {}\n",
                   r.status.device.name);  // why: said on stderr as the run began
    if (imported) {
        // The trace's own figures first: what its user came to ask.
    } else if (r.capture && !r.capture->has_config) {
        fmt::print(out, "config: none (no pipeline of pinscope's ran this trace)\n");
    } else {
        fmt::print(out, "config\n");
        print_config(r.status.config, row);
    }
    if (imported) {
        if (r.capture->steps.steps.empty())
            fmt::print(out, "metrics over the whole trace, {:.3f} s\n", m.seconds);
        else
            fmt::print(out, "metrics over its {} profiler steps, {:.3f} s\n", r.capture->steps.steps.size(),
                       m.seconds);
        print_trace_figures(m, *r.capture, row);
    } else {
        fmt::print(out, "metrics over {:.2f} s from the first batch ({} {:.2f} s)\n", m.seconds,
                   r.capture ? "captured" : "wall", ns_to_s(r.status.elapsed));
    }
    // A naive benchmark is its stopwatch: what it reads comes first, and what it holds.
    if (r.status.config.naive_benchmark)
        row("naive stopwatch",
            fmt::format("{} around one .to(\"cuda\") of {} {}, no warm-up, no synchronisation",
                        format_duration(static_cast<TimeNs>(m.stopwatch_s * 1e9)),
                        format_bytes(static_cast<double>(r.status.config.batch_bytes())),
                        !r.status.config.spawned_child
                            ? (r.status.config.pin_memory ? "pinned memory, in a fresh process"
                                                          : "pageable memory, in a fresh process")
                        : r.status.config.pin_memory
                            ? "pinned in the parent, copied in a spawned child (unpinned there)"
                            : "made in the parent, copied in a spawned child"));
    if (m.startup_s > 0)
        row("start-up", fmt::format("{} (the CUDA context, fresh pinned and device allocations: the "
                                    "timeline's startup spans)",
                                    format_duration(static_cast<TimeNs>(m.startup_s * 1e9))));
    print_metrics(m, r, row);
    fmt::print(out, "latency p50 / p99 (us)\n");
    for (const StageLatency& l : m.latencies)
        row(span_kind_name(l.kind),
            fmt::format("{:>10.1f} / {:<10.1f} ({} spans)", l.p50_us, l.p99_us, l.count));
    row("batch end to end",
        fmt::format("{:>10.1f} / {:<10.1f}", m.batch_latency.p50_us, m.batch_latency.p99_us));
    const DatasetReport& images = r.status.dataset;
    if (images.decoded || images.skipped)
        row("decode per sample",
            fmt::format(
                "{:>10.1f} / {:<10.1f} ({} images read, decoded and cropped {})", images.decode_p50_us,
                images.decode_p99_us, images.decoded,
                r.status.config.num_workers > 0 ? "on the workers" : "inline, on the train loop's thread"));
    if (r.gpu_trace)
        fmt::print(out, "GPU spans: {}; {} recorded, {} dropped, {} untimed, {} without a batch id\n",
                   cli_words(r.gpu_trace->method), r.gpu_trace->spans, r.gpu_trace->dropped,
                   r.gpu_trace->untimed, r.gpu_trace->uncorrelated);
    if (r.dropped_spans || r.evicted_spans)
        fmt::print(out,
                   "note: {} spans dropped (recorder full) and {} evicted (memory bound); metrics cover what "
                   "remains\n",
                   r.dropped_spans, r.evicted_spans);
    for (const std::string& w : r.status.warnings) fmt::print(out, "warning: {}\n", cli_words(w));
    // An import's note went to stderr as the file opened (capture_input.cpp); --json carries it too.
    if (images.skipped)
        fmt::print(out, "warning: {} image files could not be used and were skipped; the first: {}\n",
                   images.skipped, printable(images.first_skip));
}

}  // namespace pinscope
