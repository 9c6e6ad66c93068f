"""The workloads pinscope is measured on, the settings each side searches, and how to run pinscope.

Shared by compare_with_pytorch.py (pinscope against PyTorch's DataLoader) and gpu_checks.py (the
acceptance checks of the CUDA device). Needs no PyTorch.
"""
import dataclasses
import json
import os
import subprocess


@dataclasses.dataclass(frozen=True)
class WorkloadSpec:
    name: str
    shape: str
    batch_size: int
    decode_us: float
    kernel_us: float
    target: float  # how many times PyTorch's best pinscope's best should reach
    seconds: float  # per pinscope run: long enough that start-up (first pinned allocations) is amortised
    d2h_bytes: int = 4096
    io_us: float = 0.0


WORKLOADS = [
    WorkloadSpec("cifar-like", "3x32x32", 64, decode_us=0, kernel_us=10, target=10, seconds=3),
    WorkloadSpec("imagenet-like", "3x224x224", 64, decode_us=200, kernel_us=1000, target=5, seconds=4),
    WorkloadSpec("transfer-bound", "3x512x512", 32, decode_us=0, kernel_us=10, target=10, seconds=8),
]
BY_NAME = {w.name: w for w in WORKLOADS}


def cores():
    return os.cpu_count() or 4


def most_workers():
    """The most workers a setting uses: the cores less two (the train loop spins on the GPU, CUPTI has a
    thread), at least two."""
    return max(2, cores() - 2)


@dataclasses.dataclass(frozen=True)
class PinscopeSetting:
    num_workers: int
    prefetch_factor: int = 4
    pinning: str = "direct"  # direct | thread | pageable
    streams: int = 2

    def label(self):
        pf = f" pf={self.prefetch_factor}" if self.num_workers > 0 else ""
        return f"workers={self.num_workers}{pf} {self.pinning} streams={self.streams}"

    def flags(self):
        f = ["--num-workers", str(self.num_workers), "--streams", str(self.streams)]
        if self.num_workers > 0:  # PyTorch refuses a prefetch_factor without workers
            f += ["--prefetch-factor", str(self.prefetch_factor)]
        if self.pinning == "pageable":
            f += ["--no-pin-memory", "--no-non-blocking"]
        else:
            f += ["--pin-memory", "--pin-mode", self.pinning, "--non-blocking"]
        return f


def pinscope_grid():
    """Workers up to the cores less two (the train loop spins on the GPU, CUPTI has a thread)."""
    most = most_workers()
    grid = [PinscopeSetting(w, 2, "direct", 3) for w in sorted({min(4, most), min(8, most), most})]
    grid.append(PinscopeSetting(min(8, most), 4, "direct", 3))
    grid.append(PinscopeSetting(min(8, most), 2, "thread", 3))
    grid += [PinscopeSetting(w, 2, "pageable", 3) for w in sorted({min(8, most), most})]
    return grid


def pinscope_command(binary, w: WorkloadSpec, s: PinscopeSetting, device="cuda", seconds=None, cupti=True,
                     calibration=None, trace=None):
    cmd = [binary, "run", "--json", "--device", device, "--sample-shape", w.shape, "--batch-size", str(w.batch_size),
           "--decode-us", str(w.decode_us), "--io-us", str(w.io_us), "--kernel-us", str(w.kernel_us),
           "--d2h-bytes", str(w.d2h_bytes), "--seconds", str(seconds or w.seconds)] + s.flags()
    cmd.append("--cupti" if cupti else "--no-cupti")
    if calibration:
        cmd += ["--calibration", calibration]
    if trace:
        cmd += ["--trace", trace]
    return cmd


def run_pinscope(binary, w, s, **kwargs):
    """Runs pinscope once; returns its JSON report with the command and its stderr added."""
    cmd = pinscope_command(binary, w, s, **kwargs)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    report = json.loads(done.stdout)
    report["command"] = " ".join(cmd)
    report["stderr"] = done.stderr.strip()
    return report
