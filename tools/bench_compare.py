#!/usr/bin/env python3
"""Two pinscope binaries side by side in one run: the engine benchmark and the timeline's frame build.

    tools/bench_compare.py OLD NEW [--rounds 5] [--seconds 2] [--frames 300]

Runs `pinscope bench` on each binary in alternation (ABAB...), so drift of a shared machine falls on
both, and prints the median batches/s per case. With --frames it also runs the desktop app on a
synthetic trace of 1,000,000 spans under xvfb-run (alternating too) and prints the median p50/p99 of
the frame build's CPU time. Nothing is asserted: these are numbers to read side by side."""
import argparse
import json
import re
import statistics
import subprocess


def bench(binary, seconds):
    out = subprocess.run([binary, "bench", "--seconds", str(seconds), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return {c["case"]: c["batches_per_s"] for c in json.loads(out)["bench"]}


def frame_stats(binary, frames):
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", binary, "gui", "--synthetic-spans", "1000000",
           "--frames", str(frames), "--frame-stats"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"p50 ([\d.]+) ms, p99 ([\d.]+) ms, max [\d.]+ ms of CPU time", out)
    return float(m.group(1)), float(m.group(2))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=2)
    p.add_argument("--frames", type=int, default=0, help="also measure the frame build (needs xvfb-run)")
    a = p.parse_args()

    runs = {a.old: [], a.new: []}
    for _ in range(a.rounds):
        for binary in (a.old, a.new):
            runs[binary].append(bench(binary, a.seconds))
    print(f"engine benchmark, median of {a.rounds} alternating runs of {a.seconds} s per case (batches/s)")
    print(f"  {'case':<34} {'old':>10} {'new':>10} {'new/old':>8}")
    for case in runs[a.old][0]:
        old = statistics.median(r[case] for r in runs[a.old])
        new = statistics.median(r[case] for r in runs[a.new])
        print(f"  {case:<34} {old:>10.0f} {new:>10.0f} {new / old:>8.2f}")

    if a.frames:
        frames = {a.old: [], a.new: []}
        for _ in range(a.rounds):
            for binary in (a.old, a.new):
                frames[binary].append(frame_stats(binary, a.frames))
        print(f"frame build, 1,000,000 synthetic spans in view, {a.frames} frames, median of {a.rounds} runs "
              "(ms of GUI-thread CPU time)")
        for name, binary in (("old", a.old), ("new", a.new)):
            p50 = statistics.median(f[0] for f in frames[binary])
            p99 = statistics.median(f[1] for f in frames[binary])
            print(f"  {name:<4} p50 {p50:.2f}  p99 {p99:.2f}")


if __name__ == "__main__":
    main()
