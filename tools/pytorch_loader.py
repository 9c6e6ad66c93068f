#!/usr/bin/env python3
"""PyTorch's DataLoader on exactly the workload `pinscope run` drives, to compare the two side by side.

The workload, as pinscope's SyntheticImageDataset and TrainLoop do it:
  - sample i is a uint8 image of shape CxHxW read from a window of an 8 MiB pool of random bytes at
    offset (i * 7919 * 64) mod (pool - elements), converted to normalised float32 as torchvision's
    ToTensor + Normalize do: (x / 255 - mean) / std with ImageNet's channel statistics;
  - io_us per sample is waiting (a sleep), decode_us per sample is CPU work (a spin);
  - the batch is copied to the GPU (pin_memory, non_blocking as set), a kernel keeps the GPU busy for
    kernel_us (torch.cuda._sleep, calibrated with CUDA events) after reading the whole batch, and
    d2h_bytes of result are copied back.
Throughput is measured in steady state: from `warmup` seconds after the first batch, over `seconds`,
with the GPU synchronised at both ends.

As a module: run(Workload, Setting) -> dict. As a script: one setting, one JSON line on stdout.
"""
import argparse
import dataclasses
import json
import time

import torch
from torch.utils.data import DataLoader, Dataset

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
POOL_BYTES = 8 << 20


@dataclasses.dataclass
class Workload:
    shape: tuple = (3, 224, 224)
    batch_size: int = 64
    decode_us: float = 0.0
    io_us: float = 0.0
    kernel_us: float = 1000.0
    d2h_bytes: int = 4096


@dataclasses.dataclass
class Setting:
    num_workers: int = 2
    prefetch_factor: int = 2
    pin_memory: bool = True
    non_blocking: bool = True

    def label(self):
        pin = "pinned" if self.pin_memory else "pageable"
        pf = f" pf={self.prefetch_factor}" if self.num_workers else ""
        nb = " non_blocking" if self.non_blocking else ""
        return f"workers={self.num_workers}{pf} {pin}{nb}"


class SyntheticImages(Dataset):
    def __init__(self, w: Workload, seed: int = 0):
        generator = torch.Generator().manual_seed(seed)
        self.elements = 1
        for d in w.shape:
            self.elements *= d
        size = max(POOL_BYTES, self.elements + 4096)
        self.pool = torch.randint(0, 256, (size,), dtype=torch.uint8, generator=generator)
        self.shape = w.shape
        self.decode_ns = int(w.decode_us * 1000)
        self.io_s = w.io_us * 1e-6
        channels = w.shape[0] if len(w.shape) == 3 else 1
        self.mean = torch.tensor([MEAN[c % 3] for c in range(channels)]).view(-1, 1, 1)
        self.std = torch.tensor([STD[c % 3] for c in range(channels)]).view(-1, 1, 1)

    def __len__(self):
        return 1 << 40

    def __getitem__(self, index):
        if self.io_s:
            time.sleep(self.io_s)
        if self.decode_ns:
            end = time.perf_counter_ns() + self.decode_ns
            while time.perf_counter_ns() < end:
                pass
        span = self.pool.numel() - self.elements
        start = (index * 7919 * 64) % span if span > 0 else 0
        x = self.pool[start:start + self.elements].view(self.shape)
        x = x.to(torch.float32).div_(255.0)  # ToTensor
        if x.dim() == 3:
            x = x.sub_(self.mean).div_(self.std)  # Normalize
        return x


def sleep_cycles_per_us():
    """Calibrates torch.cuda._sleep (a spin on the SM clock) with CUDA events, as pinscope's kernel is."""
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    cycles = 2_000_000
    torch.cuda._sleep(cycles)
    samples = []
    for _ in range(5):
        begin.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        samples.append(begin.elapsed_time(end) * 1000.0)
    return cycles / sorted(samples)[2]


_CYCLES_PER_US = None


def run(w: Workload, s: Setting, seconds: float = 3.0, warmup: float = 1.0):
    global _CYCLES_PER_US
    device = torch.device("cuda")
    if _CYCLES_PER_US is None:
        _CYCLES_PER_US = sleep_cycles_per_us()
    cycles = int(w.kernel_us * _CYCLES_PER_US)
    d2h_floats = max(1, w.d2h_bytes // 4)
    kwargs = dict(batch_size=w.batch_size, num_workers=s.num_workers, pin_memory=s.pin_memory, shuffle=False)
    if s.num_workers:
        kwargs["prefetch_factor"] = s.prefetch_factor
    loader = DataLoader(SyntheticImages(w), **kwargs)
    started = None
    first = None
    measured = 0
    results = []
    for i, batch in enumerate(loader):
        now = time.perf_counter()
        if first is None:
            first = now
        # Steady state: measured from `warmup` seconds after the first batch, once workers are all up.
        if started is None and now - first >= warmup:
            torch.cuda.synchronize()
            started = time.perf_counter()
        x = batch.to(device, non_blocking=s.non_blocking)
        if cycles:
            torch.cuda._sleep(cycles)
        checksum = x.sum()  # the kernel reads the whole batch
        result = x.view(-1)[:d2h_floats] + checksum
        results.append(result.to("cpu", non_blocking=s.non_blocking))
        if len(results) > 8:
            results.pop(0)
        if started is not None:
            measured += 1
            if time.perf_counter() - started >= seconds:
                break
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    del loader  # shuts the workers down before the next setting starts its own
    return {"setting": s.label(), "samples_per_s": measured * w.batch_size / elapsed, "batches": measured,
            "seconds": elapsed, **dataclasses.asdict(s)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sample-shape", default="3x224x224")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--decode-us", type=float, default=0)
    p.add_argument("--io-us", type=float, default=0)
    p.add_argument("--kernel-us", type=float, default=1000)
    p.add_argument("--d2h-bytes", type=int, default=4096)
    p.add_argument("--num-workers", type=int, default=2)
    p.add_argument("--prefetch-factor", type=int, default=2)
    p.add_argument("--pin-memory", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--non-blocking", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--seconds", type=float, default=3)
    a = p.parse_args()
    w = Workload(tuple(int(d) for d in a.sample_shape.split("x")), a.batch_size, a.decode_us, a.io_us, a.kernel_us,
                 a.d2h_bytes)
    s = Setting(a.num_workers, a.prefetch_factor, a.pin_memory, a.non_blocking)
    print(json.dumps(run(w, s, a.seconds)))


if __name__ == "__main__":
    main()
