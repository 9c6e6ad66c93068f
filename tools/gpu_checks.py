#!/usr/bin/env python3
"""The acceptance checks of the CUDA device, on a GPU, after compare_with_pytorch.py has run:

  sustained H2D   transfer-bound with direct pinning: bytes copied over the run window, against the
                  pinned H2D figure `pinscope probe` measured in the same run (target: at least 90%)
  CUPTI cost      samples/s with CUPTI against --no-cupti, same config, alternating runs (target: <= 3%)
  memory kinds    in a pageable run every H2D span is pageable, in a pinned run pinned (from CUPTI), and
                  every GPU span carries a batch id (read from the exported trace)
  simulation      the simulated GPU with the probe's calibration against the measured samples/s of each
                  workload's best pinned and best pageable setting, the median of 3 runs each, real and
                  simulated alternating (target: within 15%)

    python3 tools/gpu_checks.py --pinscope BIN --probe probe.json --compare compare.json [--out checks.json]
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402

BY_NAME = {w.name: w for w in workloads.WORKLOADS}


def setting_of(report):
    c = report["config"]
    pinning = "pageable" if not c["pin_memory"] else c["pin_mode"]
    return workloads.PinscopeSetting(c["num_workers"], c["prefetch_factor"] or 2, pinning, c["streams"])


def best(results, pinned):
    chosen = [r for r in results if r["config"]["pin_memory"] == pinned]
    return max(chosen, key=lambda r: r["samples_per_s"])


def sustained_h2d(compare, probe):
    runs = next(x for x in compare["all"] if x["workload"] == "transfer-bound")["pinscope"]
    direct = max((r for r in runs if r["config"]["pin_memory"] and r["config"]["pin_mode"] == "direct"),
                 key=lambda r: r["h2d_sustained_gbps"])
    bw = probe["copy_bandwidth_GBps"]
    reference = max(bw["h2d_pinned_64MB"], bw["h2d_pinned_256MB"])
    ratio = direct["h2d_sustained_gbps"] / reference
    return {"check": "sustained H2D (transfer-bound, direct pinning, CUPTI on)",
            "measured": f"{direct['h2d_sustained_gbps']:.1f} GB/s sustained vs probe pinned H2D {reference:.1f} GB/s",
            "value": f"{100 * ratio:.0f}%", "target": ">= 90%", "ok": ratio >= 0.9, "setting": setting_of(direct).label()}


def cupti_cost(binary, compare):
    rows = []
    for entry in compare["best"]:
        w = BY_NAME[entry["workload"]]
        s = setting_of(entry["pinscope"])
        on, off = [], []
        for _ in range(2):  # alternating, so a drift of the machine hits both sides alike
            on.append(workloads.run_pinscope(binary, w, s, cupti=True)["samples_per_s"])
            off.append(workloads.run_pinscope(binary, w, s, cupti=False)["samples_per_s"])
        cost = 1 - (sum(on) / len(on)) / (sum(off) / len(off))
        rows.append({"check": f"CUPTI cost ({w.name}, {s.label()})",
                     "measured": f"{sum(on) / 2:,.0f} with CUPTI vs {sum(off) / 2:,.0f} samples/s without",
                     "value": f"{100 * cost:+.1f}%", "target": "<= 3%", "ok": cost <= 0.03})
    return rows


def memory_kinds(binary):
    w = BY_NAME["transfer-bound"]
    rows = []
    for pinning, expected in (("direct", "pinned"), ("pageable", "pageable")):
        with tempfile.TemporaryDirectory() as folder:
            trace = os.path.join(folder, "run.trace.json")
            report = workloads.run_pinscope(binary, w, workloads.PinscopeSetting(4, 2, pinning), seconds=2, trace=trace)
            with open(trace) as f:
                events = json.load(f)
        events = events["traceEvents"] if isinstance(events, dict) else events
        gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu"]
        h2d = [e for e in gpu if e["name"] == "h2d"]
        marked = sum(e["args"].get("memory") == expected for e in h2d)
        with_batch = sum(e["args"].get("batch", -1) >= 0 for e in gpu)
        ok = len(h2d) > 0 and marked == len(h2d) and with_batch == len(gpu) and "CUPTI" in report["device"]["why"]
        rows.append({"check": f"memory kinds and batch ids ({expected} run, from CUPTI)",
                     "measured": f"{marked}/{len(h2d)} H2D spans {expected}, {with_batch}/{len(gpu)} GPU spans with a batch id",
                     "value": "all" if ok else "NOT all", "target": "all", "ok": ok})
    return rows


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


# One run of a fast workload moves by 15-20% from the next on these hosts (CIFAR-like, ~35,000
# batches/s: every per-batch cost is microseconds), so each side is the median of three, and real and
# simulated runs alternate so a drift of the machine hits both alike.
def simulation(binary, compare, calibration, repeats=3):
    rows = []
    for entry in compare["all"]:
        w = BY_NAME[entry["workload"]]
        for pinned in (True, False):
            s = setting_of(best(entry["pinscope"], pinned))
            real, sim = [], []
            for _ in range(repeats):
                real.append(workloads.run_pinscope(binary, w, s, device="cuda")["samples_per_s"])
                sim.append(workloads.run_pinscope(binary, w, s, device="sim", calibration=calibration)["samples_per_s"])
            error = median(sim) / median(real) - 1
            rows.append({"check": f"simulated GPU ({w.name}, {s.label()})",
                         "measured": f"sim {median(sim):,.0f} vs real {median(real):,.0f} samples/s (medians; "
                                     f"real {min(real):,.0f}-{max(real):,.0f})",
                         "value": f"{100 * error:+.1f}%", "target": "within 15%", "ok": abs(error) <= 0.15})
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pinscope", required=True)
    p.add_argument("--probe", required=True, help="the calibration file `pinscope probe` wrote in this run")
    p.add_argument("--compare", required=True, help="the --out file of compare_with_pytorch.py from this run")
    p.add_argument("--out")
    p.add_argument("--only", choices=["simulation"], help="run one check (the settings still come from --compare)")
    a = p.parse_args()
    with open(a.probe) as f:
        probe = json.load(f)
    with open(a.compare) as f:
        compare = json.load(f)

    if a.only == "simulation":
        rows = simulation(a.pinscope, compare, a.probe)
    else:
        rows = [sustained_h2d(compare, probe)]
        rows += memory_kinds(a.pinscope)
        rows += cupti_cost(a.pinscope, compare)
        rows += simulation(a.pinscope, compare, a.probe)
    print("\nacceptance checks")
    for r in rows:
        print(f"  {'ok ' if r['ok'] else 'NO '} {r['check']:<72} {r['value']:>7} (target {r['target']}): {r['measured']}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
