#!/usr/bin/env python3
"""The link at its limit, on a GPU: issue 24's checks of the transfer-bound workload, in one run.

  sustained H2D   transfer-bound (14 workers, direct pinning, 3 streams, 10 us kernel), float32: bytes
                  copied over the window against the probe's pinned H2D figure (target: at least 95%)
  both ways       the same with results as large as the inputs (96 MiB D2H a batch): H2D + D2H sustained
                  against the probe's both-directions figure (target: at least 92%)
  transfer_dtype  uint8 (and float16) against float32 on the same workload (target: uint8 at least 3x)
  CUPTI cost      float32 with CUPTI against --no-cupti (host spans on either way; target: at most 3%)
  simulated GPU   each setting again on the simulated GPU with the probe's calibration, beside the real

Each setting runs --repeats times, the settings alternating, and the medians are compared.

    python3 tools/link_checks.py --pinscope BIN --probe probe.json [--seconds 8] [--repeats 3] [--out F]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402

WORKLOAD = {"--num-workers": "14", "--pin-memory": None, "--pin-mode": "direct", "--streams": "3",
            "--batch-size": "32", "--sample-shape": "3x512x512", "--kernel-us": "10", "--d2h-bytes": "4096"}
SETTINGS = {  # flags over the workload's
    "float32": {},
    "uint8": {"--transfer-dtype": "uint8"},
    "float16": {"--transfer-dtype": "float16"},
    "float32, no CUPTI": {"--no-cupti": None},
    "both ways (96 MiB results)": {"--d2h-bytes": "100663296"},
}


def run(pinscope, device, extra, seconds, probe):
    args = [pinscope, "run", "--device", device, "--seconds", str(seconds), "--json"]
    for flag, value in {**WORKLOAD, **extra}.items():
        args += [flag] if value is None else [flag, value]
    if device == "sim":
        args += ["--calibration", probe]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pinscope", required=True)
    p.add_argument("--probe", required=True)
    # The transfer-bound workload's own run length. The window starts at the first copy, but the pool's
    # first batches still come unevenly: on an H200 host 3 s runs kept the copy engine 89-98% busy and
    # sustained 46.4-49.9 GB/s, 8 s runs 99.3% and 50.1-52.6 (three each, alternating).
    p.add_argument("--seconds", type=float, default=workloads.BY_NAME["transfer-bound"].seconds)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-sim", action="store_true", help="only the real GPU")
    p.add_argument("--out")
    a = p.parse_args()
    probe = json.load(open(a.probe))
    bw = probe["copy_bandwidth_GBps"]
    pinned_h2d = max(v for k, v in bw.items() if k.startswith("h2d_pinned_"))
    both_ways = bw["bidir_total_GBps"]
    devices = ["cuda"] if a.no_sim else ["cuda", "sim"]
    runs = {(d, s): [] for d in devices for s in SETTINGS}
    for r in range(a.repeats):
        for name, extra in SETTINGS.items():
            for device in devices:
                if device == "sim" and "no CUPTI" in name:
                    continue
                j = run(a.pinscope, device, extra, a.seconds, a.probe)
                runs[(device, name)].append(j)
                print(f"round {r + 1} {device:4} {name:28} {j['samples_per_s']:10.0f} samples/s  "
                      f"H2D {j['h2d_sustained_gbps']:5.1f}  D2H {j['d2h_sustained_gbps']:5.1f} GB/s sustained",
                      flush=True)

    def ratio(x, y):
        return x / y if y else float("nan")

    def med(device, name, key):
        values = [j[key] for j in runs[(device, name)]]
        return statistics.median(values) if values else float("nan")

    lines = []
    h2d = med("cuda", "float32", "h2d_sustained_gbps")
    lines.append(f"sustained H2D, float32: {h2d:.1f} GB/s = {h2d / pinned_h2d:.1%} of the probe's pinned H2D "
                 f"{pinned_h2d:.1f} GB/s (target >= 95%)")
    name = "both ways (96 MiB results)"
    total = med("cuda", name, "h2d_sustained_gbps") + med("cuda", name, "d2h_sustained_gbps")
    lines.append(f"both ways: {total:.1f} GB/s = {total / both_ways:.1%} of the probe's {both_ways:.1f} GB/s "
                 f"(target >= 92%)")
    f32 = med("cuda", "float32", "samples_per_s")
    for dtype in ("uint8", "float16"):
        x = med("cuda", dtype, "samples_per_s")
        lines.append(f"{dtype}: {x:.0f} against float32 {f32:.0f} samples/s = {ratio(x, f32):.2f}x"
                     + (" (target >= 3x)" if dtype == "uint8" else ""))
    no = med("cuda", "float32, no CUPTI", "samples_per_s")
    lines.append(f"CUPTI cost: {f32:.0f} with CUPTI against {no:.0f} without = {ratio(f32, no) - 1:+.1%} (target >= -3%)")
    if not a.no_sim:
        for name in SETTINGS:
            if "no CUPTI" in name:
                continue
            real, sim = med("cuda", name, "samples_per_s"), med("sim", name, "samples_per_s")
            lines.append(f"simulated GPU, {name}: {sim:.0f} against real {real:.0f} samples/s = {ratio(sim, real) - 1:+.1%}")
    print("\n".join(lines))
    if a.out:
        json.dump({"lines": lines, "probe": a.probe,
                   "runs": {f"{d}/{s}": v for (d, s), v in runs.items()}}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
