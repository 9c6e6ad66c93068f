#!/usr/bin/env python3
"""Records a PyTorch profiler trace and its loader side files, for pinscope's test fixtures.

    python3 python/record_fixture.py --kind input --workers 2 --pin 1 --out fixtures/input-w2.json.gz
    python3 python/record_fixture.py --kind gpu --workers 4 --pin 0 --out fixtures/gpu-w4.json

--kind input: each sample costs real CPU (--sample-ms of it, default 2 ms) and the model is tiny, so
    the train loop waits for data: an input-bound run.
--kind gpu: the same loading, lighter, and a step of big matrix products that clearly outlasts it: a
    GPU-bound run, whose waits should be short.

The trace goes to --out (gzip-compressed when it ends in .gz), the side files into pinscope-loader/
beside it. With CUDA: profiler activities CPU and CUDA, batches copied with .to("cuda",
non_blocking=True) when pinned, plainly when not. Without CUDA it still runs (CPU activity only, no
copies, small products), for a smoke test.
"""

import argparse
import gzip
import os
import shutil
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pinscope_loader  # noqa: E402


class Images(Dataset):
    """3x64x64 float samples that cost `cost_s` of CPU each, on any machine.

    The CPU goes into a plain Python loop, not into torch ops: with num_workers=0 the profiler records
    every torch op of a sample, and a decode made of torch ops would swell the trace past fixture size.
    A sample is a view of one of 16 made-up images: a single op.
    """

    def __init__(self, n, cost_s):
        self.n = n
        self.cost_s = cost_s
        g = torch.Generator().manual_seed(0)
        self.bank = torch.rand(16, 3, 64, 64, generator=g).sub_(0.5).mul_(4.0)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        end = time.thread_time() + self.cost_s
        x = 0
        while time.thread_time() < end:
            for k in range(200):  # stands for decoding and augmenting
                x = (x * 31 + k) & 0xFFFF
        return self.bank[i % 16], i % 10


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, stride=2)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.head(x.mean(dim=(2, 3)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", choices=("input", "gpu"), required=True)
    p.add_argument("--workers", type=int, default=2, help="num_workers (default 2)")
    p.add_argument("--pin", type=int, choices=(0, 1), default=1, help="pin_memory (default 1)")
    p.add_argument("--steps", type=int, default=12,
                   help="profiled train steps, after one warm-up step (default 12)")
    p.add_argument("--skip", type=int, default=12,
                   help="steps before profiling starts, past the prefetched batches (default 12)")
    p.add_argument("--batch", type=int, default=32, help="batch size (default 32)")
    p.add_argument("--sample-ms", type=float, default=None,
                   help="CPU per sample, ms (default 2 for --kind input, 0.5 for --kind gpu)")
    p.add_argument("--matmuls", type=int, default=5,
                   help="--kind gpu: 16384x16384 bf16 products per step (default 5, ~60 ms on an H100); "
                        "few and big, since every product is a handful of trace events")
    p.add_argument("--out", required=True, help="trace path (.json or .json.gz)")
    args = p.parse_args()

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    sample_ms = args.sample_ms if args.sample_ms is not None else (2.0 if args.kind == "input" else 0.5)
    out = os.path.abspath(args.out)
    side_dir = os.path.join(os.path.dirname(out), "pinscope-loader")
    os.makedirs(side_dir, exist_ok=True)

    # One warm-up step (worker start-up, the profiler's own warm-up) and `steps` recorded ones, and
    # no more batches than that: the epoch ends by itself, so every side file is complete.
    dataset = Images((args.skip + 1 + args.steps) * args.batch, sample_ms / 1000)
    loader = DataLoader(dataset, batch_size=args.batch, num_workers=args.workers, pin_memory=bool(args.pin),
                        persistent_workers=False)
    loader = pinscope_loader.watch(loader, dir=side_dir)

    torch.manual_seed(0)
    model = TinyModel().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    if args.kind == "gpu":
        size, dtype = (16384, torch.bfloat16) if cuda else (256, torch.float32)
        heavy = torch.randn(size, size, device=device, dtype=dtype)

    activities = [torch.profiler.ProfilerActivity.CPU]
    if cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    non_blocking = bool(args.pin)

    def save(prof):
        if out.endswith(".gz"):
            raw = out[:-3]
            prof.export_chrome_trace(raw)
            with open(raw, "rb") as src, gzip.open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(raw)
        else:
            prof.export_chrome_trace(out)

    # A schedule is what makes prof.step() mark ProfilerStep#N in the trace.
    # The first steps are skipped: the workers' prefetched batches make them faster than the loader's
    # steady state, which is what a replay is compared with.
    schedule = torch.profiler.schedule(wait=args.skip, warmup=1, active=args.steps, repeat=1)
    with torch.profiler.profile(activities=activities, schedule=schedule, on_trace_ready=save) as prof:
        for x, y in loader:
            if cuda:
                x = x.to("cuda", non_blocking=non_blocking)
                y = y.to("cuda", non_blocking=non_blocking)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if args.kind == "gpu":
                h = heavy
                for _ in range(args.matmuls if cuda else 4):
                    h = heavy @ h
                loss = loss + h[0, 0].float() * 0
            loss.item()  # the step ends when its GPU work does, as a real loop's logging would make it
            prof.step()
        if cuda:
            torch.cuda.synchronize()

    files = sorted(f for f in os.listdir(side_dir) if f.startswith(loader.pinscope_run))
    print("trace: %s (%d bytes)" % (out, os.path.getsize(out)))
    print("side files (run %s) in %s:" % (loader.pinscope_run, side_dir))
    for f in files:
        print("  %s (%d bytes)" % (f, os.path.getsize(os.path.join(side_dir, f))))
    print("torch %s, %s, kind %s, %d workers, pin %d, %d steps of %d, %.2f ms/sample"
          % (torch.__version__, torch.cuda.get_device_name() if cuda else "CPU only", args.kind,
             args.workers, args.pin, args.steps, args.batch, sample_ms))


if __name__ == "__main__":
    main()
