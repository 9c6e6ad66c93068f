#!/usr/bin/env python3
"""pinscope binaries side by side in one run: the engine benchmark and the timeline's frame build.

    tools/bench_compare.py OLD NEW [MORE...] [--rounds 5] [--seconds 2] [--frames 300] [--spread]

Runs `pinscope bench` on each binary in alternation (ABAB...), so drift of a shared machine falls on
all, and prints the median batches/s per case, and each binary's ratio to the first. With --spread it
prints every run's figure too: on a busy or many-core host single runs of one binary spread by 10-20%,
and a ratio of medians means little where the runs overlap widely. With --frames it also runs the
desktop app on a synthetic trace of 1,000,000 spans under xvfb-run (alternating too) and prints the
median p50/p99 of the frame build's CPU time. Nothing is asserted: these are numbers to read side by side.

A binary may be a script that sets the environment and execs pinscope, to compare settings of one build."""
import argparse
import json
import re
import statistics
import subprocess


def bench(binary, seconds):
    """Batches/s per case, and the spans each case dropped (None from binaries that do not say)."""
    out = subprocess.run([binary, "bench", "--seconds", str(seconds), "--json"], check=True,
                         capture_output=True, text=True).stdout
    cases = json.loads(out)["bench"]
    return ({c["case"]: c["batches_per_s"] for c in cases}, {c["case"]: c.get("dropped_spans") for c in cases})


def frame_stats(binary, frames):
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", binary, "gui", "--synthetic-spans", "1000000",
           "--frames", str(frames), "--frame-stats"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"p50 ([\d.]+) ms, p99 ([\d.]+) ms, max [\d.]+ ms of CPU time", out)
    return float(m.group(1)), float(m.group(2))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binaries", nargs="+", help="the first is the baseline the others are divided by")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=2)
    p.add_argument("--frames", type=int, default=0, help="also measure the frame build (needs xvfb-run)")
    p.add_argument("--spread", action="store_true", help="also print every run's figure, sorted, per case")
    a = p.parse_args()
    if len(a.binaries) < 2 or len(set(a.binaries)) != len(a.binaries):
        p.error("give at least two different binaries (copy one to compare it with itself)")
    names = ["old", "new"] if len(a.binaries) == 2 else [f"#{i}" for i in range(len(a.binaries))]
    for name, binary in zip(names, a.binaries):
        print(f"{name:>4}: {binary}")

    runs = {b: [] for b in a.binaries}
    drops = {b: [] for b in a.binaries}
    for _ in range(a.rounds):
        for binary in a.binaries:
            rates, dropped = bench(binary, a.seconds)
            runs[binary].append(rates)
            drops[binary].append(dropped)
    print(f"engine benchmark, median of {a.rounds} alternating runs of {a.seconds} s per case (batches/s)")
    print(f"  {'case':<34} " + " ".join(f"{n:>9}" for n in names) + "  " +
          " ".join(f"{n + '/' + names[0]:>9}" for n in names[1:]))
    for case in runs[a.binaries[0]][0]:
        medians = [statistics.median(r[case] for r in runs[b]) for b in a.binaries]
        print(f"  {case:<34} " + " ".join(f"{m:>9.0f}" for m in medians) + "  " +
              " ".join(f"{m / medians[0]:>9.2f}" for m in medians[1:]))
        for name, binary in zip(names, a.binaries):
            if a.spread:
                runs_sorted = sorted(round(r[case] / 1000) for r in runs[binary])
                print(f"      {name} runs (thousands): {' '.join(map(str, runs_sorted))}")
            dropped = [d[case] for d in drops[binary] if d[case] is not None]
            if any(dropped):  # a case that drops spans records less, which makes it cheaper
                print(f"      {name} dropped spans in {sum(1 for d in dropped if d)} of {len(dropped)} runs "
                      f"(most {max(dropped)})")

    if a.frames:
        frames = {b: [] for b in a.binaries}
        for _ in range(a.rounds):
            for binary in a.binaries:
                frames[binary].append(frame_stats(binary, a.frames))
        print(f"frame build, 1,000,000 synthetic spans in view, {a.frames} frames, median of {a.rounds} runs "
              "(ms of GUI-thread CPU time)")
        for name, binary in zip(names, a.binaries):
            p50 = statistics.median(f[0] for f in frames[binary])
            p99 = statistics.median(f[1] for f in frames[binary])
            print(f"  {name:<4} p50 {p50:.2f}  p99 {p99:.2f}")
            if a.spread:
                print(f"      p50 runs: {' '.join(f'{f[0]:.2f}' for f in sorted(frames[binary]))}")


if __name__ == "__main__":
    main()
