#!/usr/bin/env python3
"""pinscope against PyTorch's DataLoader on the same workloads, on this machine, in one run.

For each workload (tools/workloads.py) both sides search a small grid of their own settings and report
their best samples/s; the table shows both, the ratio and the target. Needs a CUDA GPU and PyTorch.

    python3 tools/compare_with_pytorch.py --pinscope build/app/pinscope [--out results.json]
"""
import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402


def pytorch_grid():
    from pytorch_loader import Setting
    most = max(2, workloads.cores() - 1)
    grid = [Setting(0, 2, False, False), Setting(0, 2, True, True)]
    for w in sorted({4, 8, most}):
        grid += [Setting(w, 2, False, False), Setting(w, 2, True, True)]
    grid += [Setting(8, 4, False, False), Setting(8, 4, True, True)]
    return grid


def run_pytorch_side(w, seconds, log):
    import pytorch_loader
    spec = pytorch_loader.Workload(tuple(int(d) for d in w.shape.split("x")), w.batch_size, w.decode_us, w.io_us,
                                   w.kernel_us, w.d2h_bytes)
    results = []
    for s in pytorch_grid():
        r = pytorch_loader.run(spec, s, seconds=seconds)
        log(f"  pytorch  {w.name:<15} {r['setting']:<36} {r['samples_per_s']:>12,.0f} samples/s")
        results.append(r)
    return results


def run_pinscope_side(binary, w, log):
    results = []
    for s in workloads.pinscope_grid():
        r = workloads.run_pinscope(binary, w, s)
        r["setting"] = s.label()
        log(f"  pinscope {w.name:<15} {s.label():<36} {r['samples_per_s']:>12,.0f} samples/s"
            f"  H2D {r['h2d_sustained_gbps']:.1f} GB/s sustained")
        results.append(r)
    return results


def table(rows):
    lines = [f"{'workload':<15} {'pinscope best':>15}  {'setting':<36} {'PyTorch best':>13}  {'setting':<34} "
             f"{'ratio':>7} {'target':>7}"]
    for row in rows:
        p, t = row["pinscope"], row["pytorch"]
        ratio = p["samples_per_s"] / t["samples_per_s"]
        lines.append(f"{row['workload']:<15} {p['samples_per_s']:>15,.0f}  {p['setting']:<36} {t['samples_per_s']:>13,.0f}"
                     f"  {t['setting']:<34} {ratio:>6.1f}x {row['target']:>6.0f}x")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pinscope", required=True, help="the pinscope binary")
    p.add_argument("--pytorch-seconds", type=float, default=2.0, help="measured seconds per PyTorch setting")
    p.add_argument("--workloads", default=",".join(w.name for w in workloads.WORKLOADS))
    p.add_argument("--out", help="write every result as JSON here")
    a = p.parse_args()

    import torch
    log = lambda line: print(line, flush=True)  # noqa: E731
    chosen = [w for w in workloads.WORKLOADS if w.name in a.workloads.split(",")]
    rows, everything = [], []
    for w in chosen:
        mine = run_pinscope_side(a.pinscope, w, log)
        theirs = run_pytorch_side(w, a.pytorch_seconds, log)
        best_mine = max(mine, key=lambda r: r["samples_per_s"])
        best_theirs = max(theirs, key=lambda r: r["samples_per_s"])
        rows.append({"workload": w.name, "target": w.target, "pinscope": best_mine, "pytorch": best_theirs})
        everything.append({"workload": w.name, "pinscope": mine, "pytorch": theirs})

    header = (f"{datetime.date.today()}, {torch.cuda.get_device_name(0)}, {workloads.cores()} host cores, "
              f"torch {torch.__version__}")
    print(f"\npinscope vs PyTorch DataLoader: {header}")
    print(table(rows))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"header": header, "best": rows, "all": everything}, f, indent=1)


if __name__ == "__main__":
    main()
