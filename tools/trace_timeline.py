#!/usr/bin/env python3
"""A run's trace (pinscope run --trace FILE) as a table over time: where a slow run loses its time.

Per bucket: H2D GB/s over the bucket, batches whose kernel ended in it, how the train loop spent it
(waiting for a batch, staging a pageable copy, waiting for the GPU, other = issuing work), how busy
the workers were, and the pinned memory held at its end. Start-up effects (pinned allocation, the
first batches) show as rows that differ from the steady ones below them.

    python3 tools/trace_timeline.py run.trace.json [--bucket 0.5]
"""
import argparse
import collections
import json


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--bucket", type=float, default=0.5, help="seconds per row")
    a = p.parse_args()
    with open(a.trace) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        print("no spans")
        return
    origin = min(e["ts"] for e in spans)
    width = a.bucket * 1e6
    rows = collections.defaultdict(lambda: collections.Counter())
    workers = {key for key, name in threads.items() if name.startswith("worker")}
    pinned = []
    for e in events:
        if e.get("ph") == "C" and e["name"].startswith("pinned"):
            pinned.append((e["ts"], e["args"]["value"]))
    for e in spans:
        end = e["ts"] + e["dur"] - origin
        row = rows[int(end // width)]
        thread = threads.get((e["pid"], e["tid"]), "")
        if e.get("cat") == "gpu":
            if e["name"] == "h2d":
                row["h2d_bytes"] += e["args"].get("bytes", 0)
            if e["name"] == "kernel":
                row["kernels"] += 1
        elif thread == "train loop":
            row["main_" + e["name"]] += e["dur"]
        elif (e["pid"], e["tid"]) in workers:
            row["fetch_us"] += e["dur"]
            row["fetches"] += 1
    print(f"{'t (s)':>6} {'H2D GB/s':>9} {'kernels':>8} {'loop wait':>10} {'stage':>6} {'sync':>6} {'other':>6} "
          f"{'workers busy':>12} {'fetch ms':>9} {'pinned MiB':>11}")
    for index in sorted(rows):
        r = rows[index]
        t0 = index * a.bucket
        busy = {k: r["main_" + k] / width for k in ("wait", "stage", "sync")}
        other = max(0.0, 1 - sum(busy.values()))
        held = [v for ts, v in pinned if ts - origin <= (index + 1) * width]
        print(f"{t0:>6.1f} {r['h2d_bytes'] / a.bucket / 1e9:>9.1f} {r['kernels']:>8} {busy['wait']:>10.0%} "
              f"{busy['stage']:>6.0%} {busy['sync']:>6.0%} {other:>6.0%} "
              f"{r['fetch_us'] / width / max(1, len(workers)):>12.0%} "
              f"{r['fetch_us'] / max(1, r['fetches']) / 1e3:>9.1f} {(held[-1] if held else 0) / 2**20:>11.0f}")


if __name__ == "__main__":
    main()
