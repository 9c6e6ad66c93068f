"""Datasets the tests load (module level, so spawn and forkserver workers can unpickle them) and a
reader for the side files they write."""

import glob
import json
import os
import re
import time

import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

SAMPLE_SHAPE = (3, 4)  # 12 float32 values: 48 tensor bytes per sample


def sample(i):
    return torch.full(SAMPLE_SHAPE, float(i))


class Squares(Dataset):
    """sample(i) and i for i < n."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if type(i) is not int:  # the watched loader must hand the user's dataset plain ints
            raise TypeError("index of type %s" % type(i).__name__)
        return sample(i), i


class BatchedSquares(Squares):
    """The same with a __getitems__ that fetches a whole batch in one call."""

    def __getitems__(self, indices):
        return [(sample(i), i) for i in indices]


class Sharded(IterableDataset):
    """Yields (sample(i), i) for i < n, item i going to worker i % num_workers."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield sample(i), i


class Uneven(IterableDataset):
    """Worker w yields sizes[w] items (worker 0 first, the others after it), so workers run dry at
    different times. In the main process it yields them all."""

    def __init__(self, sizes):
        self.sizes = sizes

    def __iter__(self):
        info = get_worker_info()
        ids = range(len(self.sizes)) if info is None else [info.id]
        for w in ids:
            start = sum(self.sizes[:w])
            for i in range(start, start + self.sizes[w]):
                yield sample(i), i


def user_collate(batch):
    """A collate_fn of the user's: stacks the samples, lists the indices."""
    return torch.stack([s for s, _ in batch]), [i for _, i in batch]


class RecordingInit:
    """A worker_init_fn of the user's; it must still run."""

    def __init__(self, path):
        self.path = path

    def __call__(self, worker_id):
        with open(os.path.join(self.path, "init-%d-%d" % (worker_id, os.getpid())), "w") as f:
            f.write("ran")


class Clock:
    """Both clocks before and after a test's loading, to bracket every time in its side files."""

    def __init__(self):
        self.mono0 = time.monotonic_ns()
        self.wall0 = time.time_ns()

    def stop(self):
        self.mono1 = time.monotonic_ns()
        self.wall1 = time.time_ns()
        return self


class SideFiles:
    """The files of one run: header and records of each, checked against the format as it is read."""

    def __init__(self, directory, run):
        self.files = []
        for path in sorted(glob.glob(os.path.join(directory, run + "-*.jsonl"))):
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            header = json.loads(lines[0])
            records = [json.loads(line) for line in lines[1:]]
            pid = int(re.search(r"-(\d+)\.jsonl$", path).group(1))
            assert header["pinscope_loader"] == 1
            assert header["run"] == run
            assert header["pid"] == pid
            for record in records:
                assert isinstance(record, list), record
            self.files.append((path, header, records))
        mains = [f for f in self.files if f[1]["process"] == "main"]
        assert len(mains) == 1, [f[0] for f in self.files]
        self.main_header, self.main = mains[0][1], mains[0][2]
        self.workers = [(h, r) for _, h, r in self.files if h["process"] == "worker"]

    def all(self, kind):
        return [r for _, _, records in self.files for r in records if r[0] == kind]

    def check_clocks(self, clock):
        """Headers read their clocks inside the test's window; records lie inside it, t0 <= t1."""
        for _, header, records in self.files:
            c = header["clock"]
            assert clock.mono0 <= c["monotonic_ns"] <= clock.mono1
            assert clock.wall0 <= c["wall_ns"] <= clock.wall1
            for r in records:
                times = r[1:2] if r[0] == "epoch" else r[1:3]
                for t in times:
                    assert clock.mono0 <= t <= clock.mono1, r
                if r[0] != "epoch":
                    assert r[1] <= r[2], r
