#!/usr/bin/env python3
"""Where the simulated GPU and the real one part: one workload and setting, run on both, alternating,
with the per-stage latencies side by side (medians over the repeats).

    python3 tools/sim_vs_real.py --pinscope BIN --probe probe.json --workload cifar-like \
        --workers 14 --prefetch 2 --pinning pageable [--streams 3] [--repeats 3] [--seconds 3]

Use it when gpu_checks.py's simulation check misses: the stage whose time differs most is where the
model is wrong (or where this host differs from the one the model was fitted on).
"""
import argparse
import collections
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402

STAGES = ["fetch", "pin", "wait", "stage", "h2d", "kernel", "d2h", "batch"]
FIGURES = [("samples/s", "samples_per_s", 1), ("H2D GB/s per copy", "h2d_gbps", 1),
           ("H2D GB/s sustained", "h2d_sustained_gbps", 1), ("GPU busy", "gpu_busy", 1), ("stall", "stall", 1)]


def median_of(reports, pick):
    values = [v for v in (pick(r) for r in reports) if v is not None]
    return statistics.median(values) if values else None


def stage_p50(stage):
    return lambda r: r["latency"].get(stage, {}).get("p50_us")


def stage_count_per_batch(stage):
    return lambda r: r["latency"].get(stage, {}).get("count", 0) / max(1, r["batches"])


def cell(value, digits=1):
    return "-" if value is None else f"{value:,.{digits}f}"


def lane_group(thread):
    for word, group in (("worker", "workers"), ("H2D", "GPU H2D"), ("D2H", "GPU D2H"), ("kernel", "GPU kernel"),
                        ("compute", "GPU kernel")):
        if word in thread:
            return group
    return thread


def span_means(trace_file):
    """Mean duration (us) and count per batch of each (lane group, span name, bytes) in a Chrome trace."""
    with open(trace_file) as f:
        events = json.load(f)["traceEvents"]
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = collections.defaultdict(list)
    batches = set()
    for e in events:
        if e.get("ph") != "X":
            continue
        args = e.get("args", {})
        if "batch" in args:
            batches.add(args["batch"])
        key = (lane_group(threads.get((e["pid"], e["tid"]), "?")), e["name"], args.get("bytes", 0))
        spans[key].append(e["dur"])
    n = max(1, len(batches))
    return {k: (statistics.mean(v), len(v) / n) for k, v in spans.items()}


def print_breakdown(binary, w, s, probe, seconds, real_device):
    with tempfile.TemporaryDirectory() as tmp:
        means = {}
        for side, device in (("real", real_device), ("sim", "sim")):
            path = os.path.join(tmp, f"{side}.json")
            workloads.run_pinscope(binary, w, s, device=device, seconds=seconds, trace=path,
                                   calibration=probe if side == "sim" else None)
            means[side] = span_means(path)
    print(f"  spans of one {seconds} s traced run each: mean us (spans per batch)")
    print(f"  {'lane':<12} {'span':<8} {'bytes':>10} {'real':>18} {'sim':>18}")
    for key in sorted(set(means["real"]) | set(means["sim"])):
        cells = []
        for side in ("real", "sim"):
            m = means[side].get(key)
            cells.append(f"{m[0]:10.1f} ({m[1]:4.2f})" if m else "-")
        print(f"  {key[0]:<12} {key[1]:<8} {key[2]:>10} {cells[0]:>18} {cells[1]:>18}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pinscope", required=True)
    p.add_argument("--probe", required=True, help="the calibration file `pinscope probe` wrote on this machine")
    p.add_argument("--workload", required=True, choices=sorted(workloads.BY_NAME))
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--prefetch", type=int, default=2)
    p.add_argument("--pinning", choices=["direct", "thread", "pageable"], default="direct")
    p.add_argument("--streams", type=int, default=3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--breakdown", type=float, default=0, metavar="SECONDS",
                   help="also trace one run of SECONDS on each side and compare the spans lane by lane")
    p.add_argument("--real-device", default="cuda", help=argparse.SUPPRESS)  # "sim" to try the script without a GPU
    a = p.parse_args()

    w = workloads.BY_NAME[a.workload]
    s = workloads.PinscopeSetting(a.workers, a.prefetch, a.pinning, a.streams)
    real, sim = [], []
    for _ in range(a.repeats):
        real.append(workloads.run_pinscope(a.pinscope, w, s, device=a.real_device, seconds=a.seconds))
        sim.append(workloads.run_pinscope(a.pinscope, w, s, device="sim", seconds=a.seconds, calibration=a.probe))

    print(f"{w.name}, {s.label()}: medians of {a.repeats} runs each, alternating")
    print(f"  {'':<22} {'real':>12} {'sim':>12} {'sim/real':>9}")
    for label, key, _ in FIGURES:
        r, m = median_of(real, lambda x: x[key]), median_of(sim, lambda x: x[key])
        ratio = f"{m / r:8.2f}x" if r else "-"
        print(f"  {label:<22} {cell(r, 3 if r and r < 10 else 1):>12} {cell(m, 3 if m and m < 10 else 1):>12} {ratio:>9}")
    print(f"  {'stage p50 (us)':<22} {'real':>12} {'sim':>12} {'sim/real':>9}   spans per batch real / sim")
    for stage in STAGES:
        r, m = median_of(real, stage_p50(stage)), median_of(sim, stage_p50(stage))
        if r is None and m is None:
            continue
        ratio = f"{m / r:8.2f}x" if r and m is not None else "-"
        per_r, per_m = median_of(real, stage_count_per_batch(stage)), median_of(sim, stage_count_per_batch(stage))
        print(f"  {stage:<22} {cell(r):>12} {cell(m):>12} {ratio:>9}   {per_r:.2f} / {per_m:.2f}")
    if a.breakdown > 0:
        print_breakdown(a.pinscope, w, s, a.probe, a.breakdown, a.real_device)


if __name__ == "__main__":
    main()

