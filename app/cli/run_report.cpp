#include "app/cli/run_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli/cli_words.h"
#include "core/config/config_json.h"
#include "core/io/metrics_json.h"

namespace pinscope {

nlohmann::json report_json(const RunReport& r) {
    nlohmann::json j = metrics_json(r.metrics);
    j["state"] = std::string(to_string(r.status.state));
    if (!r.status.error.empty()) j["error"] = r.status.error;
    j["device"] = {
        {"kind", r.status.device.kind}, {"name", r.status.device.name}, {"why", r.status.device_why}};
    j["config"] = config_to_json(r.status.config);
    j["wall_seconds"] = ns_to_s(r.status.elapsed);
    j["dropped_spans"] = r.dropped_spans;
    j["evicted_spans"] = r.evicted_spans;
    if (r.gpu_trace)
        j["gpu_trace"] = {{"method", r.gpu_trace->method},   {"cupti", r.gpu_trace->cupti},
                          {"spans", r.gpu_trace->spans},     {"dropped", r.gpu_trace->dropped},
                          {"untimed", r.gpu_trace->untimed}, {"uncorrelated", r.gpu_trace->uncorrelated}};
    return j;
}

void print_report(std::ostream& out, const RunReport& r) {
    const PipelineConfig& c = r.status.config;
    const Metrics& m = r.metrics;
    auto row = [&](std::string_view name, const std::string& value) {
        fmt::print(out, "  {:<22} {}\n", name, value);
    };

    fmt::print(out, "\npinscope run on {}\n", r.status.device.name);  // why: said on stderr as the run began
    fmt::print(out, "config\n");
    row("num_workers", fmt::format("{}", c.num_workers));
    row("prefetch_factor",
        c.num_workers ? fmt::format("{}", c.effective_prefetch_factor()) : "unset (no workers)");
    row("pin_memory", c.pin_memory ? fmt::format("true ({})", to_string(c.pin_mode)) : "false");
    row("non_blocking", c.non_blocking ? "true" : "false");
    row("in_order", c.in_order ? "true" : "false");
    row("batch", fmt::format("{} x {} uint8 -> float32 ({:.1f} MiB)", c.batch_size,
                             c.sample_shape.to_string(), static_cast<double>(c.batch_bytes()) / (1 << 20)));
    row("per sample", fmt::format("decode {} us, io {} us", c.decode_us, c.io_us));
    row("per batch on GPU", fmt::format("kernel {} us, d2h {} bytes", c.kernel_us, c.d2h_bytes));
    row("streams / chunks", fmt::format("{} / {} ({})", c.streams, c.chunks, to_string(c.issue_order)));

    fmt::print(out, "metrics over {:.2f} s from the first batch (wall {:.2f} s)\n", m.seconds,
               ns_to_s(r.status.elapsed));
    row("samples/s", fmt::format("{:.1f}", m.samples_per_s));
    row("batches/s", fmt::format("{:.1f}  ({} batches)", m.batches_per_s, m.batches));
    row("H2D",
        fmt::format("{:.2f} GB/s while copying, {:.2f} GB/s sustained (link peak {:.1f}; {:.0f}% pageable)",
                    m.h2d_gbps, m.h2d_sustained_gbps, r.status.device.h2d_peak_gbps,
                    100 * m.pageable_h2d_fraction));
    row("GPU busy", fmt::format("{:.1f}%", 100 * m.gpu_busy));
    row("copy/compute overlap", fmt::format("{:.1f}% of kernel time", 100 * m.overlap));
    row("data stall", fmt::format("{:.1f}% of wall time", 100 * m.stall));
    row("outstanding max", fmt::format("{:.0f} (cap {})", m.outstanding_max, c.max_outstanding()));
    row("pinned in use max", fmt::format("{:.1f} MiB", m.pinned_bytes_max / (1 << 20)));
    fmt::print(out, "latency p50 / p99 (us)\n");
    for (const StageLatency& l : m.latencies)
        row(span_kind_name(l.kind),
            fmt::format("{:>10.1f} / {:<10.1f} ({} spans)", l.p50_us, l.p99_us, l.count));
    row("batch end to end",
        fmt::format("{:>10.1f} / {:<10.1f}", m.batch_latency.p50_us, m.batch_latency.p99_us));
    if (r.gpu_trace)
        fmt::print(out, "GPU spans: {}; {} recorded, {} dropped, {} untimed, {} without a batch id\n",
                   cli_words(r.gpu_trace->method), r.gpu_trace->spans, r.gpu_trace->dropped,
                   r.gpu_trace->untimed, r.gpu_trace->uncorrelated);
    if (r.dropped_spans || r.evicted_spans)
        fmt::print(out,
                   "note: {} spans dropped (recorder full) and {} evicted (memory bound); metrics cover what "
                   "remains\n",
                   r.dropped_spans, r.evicted_spans);
    for (const std::string& w : r.status.warnings) fmt::print(out, "warning: {}\n", w);
}

}  // namespace pinscope
