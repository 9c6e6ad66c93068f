"""Writing side files: one JSON-lines file per process of a watched loader.

The format is docs/loader-side-files.md (format 1). A C++ importer parses these files, so every line
is produced here, in one place, with plain string formatting: a record costs a few microseconds,
never a json.dumps call, because the worker writes one per sample.

Each process keeps its own table of open files (one per watched loader, keyed by the run name) and
opens a file lazily, on its first record, writing the header first. After a fork the child starts
with an empty table (see _after_fork_in_child), so a worker never writes into its parent's file.
"""

import atexit
import json
import os
import platform
import threading
import time

import torch
import torch.utils.data

FORMAT = 1

monotonic_ns = time.monotonic_ns


def num(value):
    """A JSON number, or null for None (epoch, batch and index may be unknown)."""
    return "null" if value is None else "%d" % value


class SideFile:
    """One process's file for one watched loader.

    A lock guards the buffer because in the main process two threads write: the train loop
    (epoch, wait) and torch's pin-memory thread (pin). Uncontended, it costs ~0.1 us.
    """

    __slots__ = ("path", "_file", "_lock")

    def __init__(self, path, header):
        self.path = path
        self._lock = threading.Lock()
        # 64 KiB of buffer: a worker flushes after each batch, so the buffer only has to hold one.
        self._file = open(path, "a", encoding="utf-8", buffering=1 << 16)
        self._file.write(json.dumps(header, separators=(", ", ": ")) + "\n")

    def write(self, line):
        with self._lock:
            self._file.write(line)

    def write_and_flush(self, line):
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def flush(self):
        with self._lock:
            if not self._file.closed:
                self._file.flush()

    def close(self):
        with self._lock:
            if not self._file.closed:
                self._file.close()


class Run:
    """What the process that called watch() knows about one watched loader.

    Only the main process has these: its header carries `loader`, and its pin records need the
    device the loader pins for.
    """

    __slots__ = ("name", "directory", "loader_info", "pin_device")

    def __init__(self, name, directory, loader_info, pin_device):
        self.name = name
        self.directory = directory
        self.loader_info = loader_info
        self.pin_device = pin_device


# Per process. _after_fork_in_child replaces all three in a forked child.
_lock = threading.Lock()
_files = {}  # run name -> SideFile of this process
_runs = {}  # run name -> Run, in the process that called watch()
# A forked child keeps its parent's SideFile objects alive here forever: if they were garbage
# collected, closing them could write whatever the parent had buffered a second time. (The parent
# flushes before every fork, so there should be nothing, but a child must never touch them.)
_inherited = []

_run_counter = 0


def new_run_name():
    """`YYYYmmddTHHMMSS-<main pid>-<n>`, n counting this process's watched loaders from 0."""
    global _run_counter
    with _lock:
        n = _run_counter
        _run_counter += 1
    return "%s-%d-%d" % (time.strftime("%Y%m%dT%H%M%S"), os.getpid(), n)


def register_run(run):
    with _lock:
        _runs[run.name] = run


def run_info(name):
    return _runs.get(name)


def side_file(run_name, directory):
    """This process's file for `run_name`, opened (header first) on the first call."""
    f = _files.get(run_name)
    if f is not None:
        return f
    with _lock:
        f = _files.get(run_name)
        if f is None:
            path = os.path.join(directory, "%s-%d.jsonl" % (run_name, os.getpid()))
            f = SideFile(path, _header(run_name))
            _files[run_name] = f
    return f


def _header(run_name):
    info = torch.utils.data.get_worker_info()
    header = {
        "pinscope_loader": FORMAT,
        "run": run_name,
        "pid": os.getpid(),
        "process": "main" if info is None else "worker",
        "worker_id": None if info is None else info.id,
    }
    # The two clocks read back to back: wall_ns - monotonic_ns converts every record of the run.
    wall = time.time_ns()
    mono = time.monotonic_ns()
    header["clock"] = {"wall_ns": wall, "monotonic_ns": mono}
    run = _runs.get(run_name)
    if info is None and run is not None:
        header["loader"] = run.loader_info
    header["torch"] = str(torch.__version__)
    header["python"] = platform.python_version()
    # The recording host's cores: how many CPU-bound workers can run at once there (the advisor's question).
    header["cpu_count"] = os.cpu_count()
    return header


def flush_all():
    for f in list(_files.values()):
        f.flush()


def _after_fork_in_child():
    global _lock, _files, _runs
    _inherited.append(_files)
    _files = {}
    _runs = {}
    # The parent's lock may have been held by another of its threads at the fork.
    _lock = threading.Lock()


# Flushing before a fork leaves the child no buffered copy of the parent's lines; the DataLoader forks
# its workers from the train loop's thread under the fork start method.
os.register_at_fork(before=flush_all, after_in_child=_after_fork_in_child)
# Worker processes leave through os._exit and flush per batch; this is for the main process's tail
# (pin records written after the last wait, a loop that stopped mid-epoch).
atexit.register(flush_all)
