#!/usr/bin/env python3
"""What pinscope_loader.watch() costs a loader: samples/s with and without it.

The dataset burns a set amount of CPU per sample (default 0.5 ms, a light decode-and-augment) and
returns a 3x64x64 float tensor. Runs alternate, plain and watched, in pairs whose order alternates
too, so drift of the machine (other load, frequency) hits both alike; each run is one epoch of a fresh loader, timed from its first batch
to its last so worker start-up, which watch() does not touch, stays out. Prints every run, both
medians and the relative cost.

    /usr/bin/python3 python/bench_overhead.py                      # 2 workers, 5 pairs
    python3 python/bench_overhead.py --workers 8 --pin 1 --samples 16384 --batch 64
"""

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pinscope_loader  # noqa: E402


class CpuCostlyDataset(Dataset):
    """Each sample costs `cost_s` of this thread's CPU time: real tensor work, then a spin to the mark
    (so the cost is the same on a fast and a slow machine)."""

    def __init__(self, n, cost_s):
        self.n = n
        self.cost_s = cost_s

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        end = time.thread_time() + self.cost_s
        g = torch.Generator().manual_seed(i)
        x = torch.rand(3, 64, 64, generator=g)
        while time.thread_time() < end:
            x = (x * 0.5 + 0.25).clamp_(0, 1)
        return x, i


def cpu_seconds():
    """CPU time of this process and of its reaped children (the epoch's workers, joined at its end)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def one_epoch(args, watched, side_dir):
    """(samples/s from the first batch on, CPU microseconds per sample of all the loader's processes)"""
    context = args.start_method if args.workers > 0 and args.start_method != "default" else None
    loader = DataLoader(CpuCostlyDataset(args.samples, args.cost_ms / 1000), batch_size=args.batch,
                        num_workers=args.workers, pin_memory=bool(args.pin), multiprocessing_context=context)
    if watched:
        loader = pinscope_loader.watch(loader, dir=side_dir)
    cpu0 = cpu_seconds()
    start = None
    samples = 0
    for x, _ in loader:
        if start is None:
            start = time.perf_counter()  # from the first batch: worker start-up is not measured
        else:
            samples += len(x)
    rate = samples / (time.perf_counter() - start)
    del loader  # ends persistent workers too, so their CPU time is counted
    return rate, (cpu_seconds() - cpu0) / args.samples * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", type=int, default=2, help="num_workers (default 2)")
    p.add_argument("--batch", type=int, default=32, help="batch size (default 32)")
    p.add_argument("--cost-ms", type=float, default=0.5, help="CPU per sample, ms (default 0.5)")
    p.add_argument("--samples", type=int, default=4096, help="samples per epoch (default 4096)")
    p.add_argument("--pairs", type=int, default=5, help="plain/watched run pairs (default 5)")
    p.add_argument("--pin", type=int, choices=(0, 1), default=0, help="pin_memory (default 0)")
    p.add_argument("--start-method", default="default", choices=("default", "fork", "spawn", "forkserver"))
    p.add_argument("--dir", help="keep the side files here (default: a temporary folder, removed)")
    args = p.parse_args()

    side_dir = args.dir or tempfile.mkdtemp(prefix="pinscope-bench-")
    print("torch %s, %d workers, batch %d, %.2f ms/sample, %d samples/epoch, pin_memory=%d, %s start"
          % (torch.__version__, args.workers, args.batch, args.cost_ms, args.samples, args.pin, args.start_method))
    plain, watched = [], []
    try:
        for i in range(args.pairs):
            # Plain first in even pairs, watched first in odd ones: whatever the second run of a
            # pair gains or loses (a warmer page cache, a hotter CPU) falls on both alike.
            if i % 2 == 0:
                plain.append(one_epoch(args, False, side_dir))
                watched.append(one_epoch(args, True, side_dir))
            else:
                watched.append(one_epoch(args, True, side_dir))
                plain.append(one_epoch(args, False, side_dir))
            print("pair %d: plain %8.1f samples/s %7.1f us CPU/sample   watched %8.1f samples/s %7.1f us CPU/sample"
                  % (i + 1, plain[-1][0], plain[-1][1], watched[-1][0], watched[-1][1]))
    finally:
        if not args.dir:
            shutil.rmtree(side_dir, ignore_errors=True)
    a, b = statistics.median(r for r, _ in plain), statistics.median(r for r, _ in watched)
    ca, cb = statistics.median(c for _, c in plain), statistics.median(c for _, c in watched)
    print("median: plain %.1f samples/s, watched %.1f samples/s, cost of watch(): %+.2f%% samples/s"
          % (a, b, 100 * (a - b) / a))
    # CPU per sample, all processes together, hardly moves with other load on the machine: where the
    # cores are shared (a build beside the benchmark), it is the steadier measure of the same cost.
    print("median CPU per sample: plain %.1f us, watched %.1f us, cost of watch(): %+.2f%% CPU"
          % (ca, cb, 100 * (cb - ca) / ca))


if __name__ == "__main__":
    main()
