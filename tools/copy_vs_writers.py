#!/usr/bin/env python3
"""Each H2D copy of a trace against how fast the workers were writing while it ran.

The copy engine reads host memory through the memory controllers the workers write through, so a copy
runs slower while they collate. This reads a Chrome Trace JSON that `pinscope run --trace FILE` wrote
(a run on the GPU: its copies' rates come from CUPTI), takes each `fetch` span as its worker writing
the span's bytes evenly over it, and prints the copies' GB/s grouped by the workers' write rate during
each copy, beside the number of workers collating. Compare with the probe's h2d_under_host_writes.

    python3 tools/copy_vs_writers.py TRACE.json [TRACE.json ...]
"""
import json
import sys
from collections import defaultdict


def spans(events, name):
    return [e for e in events if e.get("ph") == "X" and e.get("name") == name]


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def analyse(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    fetches = [(e["ts"], e["ts"] + e["dur"], e["args"].get("bytes", 0)) for e in spans(events, "fetch")]
    copies = [e for e in spans(events, "h2d") if e["args"].get("bytes", 0) >= 1 << 20]
    if not copies:
        print(f"{path}: no H2D copy of 1 MiB or more")
        return
    by_rate, by_writers = defaultdict(list), defaultdict(list)
    total_writers = total_rate = 0.0
    for copy in copies:
        start, end = copy["ts"], copy["ts"] + copy["dur"]
        overlaps = [(max(0.0, min(end, b) - max(start, a)), b - a, size) for a, b, size in fetches]
        writers = sum(o for o, _, _ in overlaps) / (end - start)
        write_gbps = sum(size * o / max(d, 1e-9) for o, d, size in overlaps) / (end - start) * 1e-3  # bytes/us
        total_writers += writers
        total_rate += write_gbps
        by_rate[min(int(write_gbps // 20) * 20, 160)].append(copy["args"]["gbps"])
        by_writers[int(writers + 0.5)].append(copy["args"]["gbps"])
    print(f"{path}: {len(copies)} copies, median {median([c['args']['gbps'] for c in copies]):.1f} GB/s; "
          f"while they ran {total_writers / len(copies):.1f} workers collating on average, "
          f"writing {total_rate / len(copies):.1f} GB/s")
    for low in sorted(by_rate):
        print(f"  workers writing {low:>3}-{low + 20:<3} GB/s: {len(by_rate[low]):>5} copies at "
              f"{median(by_rate[low]):5.1f} GB/s (median)")
    for n in sorted(by_writers):
        print(f"  {n:>2} workers collating: {len(by_writers[n]):>5} copies at {median(by_writers[n]):5.1f} GB/s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for trace_path in sys.argv[1:]:
        analyse(trace_path)
