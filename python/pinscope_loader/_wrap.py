"""The wrappers a watched loader is built from.

Everything here that travels to worker processes (the datasets, the collate function, the worker
init function, the tagged indices and batches) is a module-level class without closures, so it
pickles under the spawn and forkserver start methods.

How a record learns its epoch and batch:

- map-style: the batch sampler, in the main process, tags each index with its epoch and batch
  (TaggedIndex, an int); the wrapped dataset reads the tag, passes a plain int to the user's dataset
  and remembers it; the wrapped collate_fn, called right after the fetches of its batch in the same
  process, takes epoch, batch and the sample count from there.
- iterable: nothing is sampled, so each process counts. The epoch comes from the main process (the
  wrapped dataset is stamped before the workers start) plus the re-iterations a persistent worker
  makes; a worker's k-th batch of an epoch is batch k * num_workers + worker_id (the spec's rule).
- the collated batch travels back to the main process inside a TaggedBatch, so the pin-memory thread
  (which sees batches in arrival order, not batch order) and the train loop's __next__ know which
  batch they hold. TaggedBatch.pin_memory is the hook torch documents for custom batch types: torch
  calls it instead of pinning, so pinning is timed without patching torch, and unwatched loaders are
  untouched.
"""

import collections.abc
import operator
import os

import torch
import torch.utils.data
import torch.utils.data._utils.pin_memory as _torch_pin

from . import _sidefile
from ._sidefile import monotonic_ns, num

# ------------------------------------------------------------------------------------------------
# Tags


class TaggedIndex(int):
    """A dataset index that remembers the epoch and batch the sampler made it for."""

    def __new__(cls, value, epoch, batch):
        self = int.__new__(cls, value)
        self.epoch = epoch
        self.batch = batch
        return self

    def __reduce__(self):
        return (TaggedIndex, (int(self), self.epoch, self.batch))

    def __repr__(self):
        return "TaggedIndex(%d, epoch=%s, batch=%s)" % (int(self), self.epoch, self.batch)


class TaggedKey:
    """The same for a key that is not a plain int (a numpy integer, a string, a tuple): the user's
    dataset gets the key object itself back."""

    __slots__ = ("value", "epoch", "batch")

    def __init__(self, value, epoch, batch):
        self.value = value
        self.epoch = epoch
        self.batch = batch

    def __reduce__(self):
        return (TaggedKey, (self.value, self.epoch, self.batch))


def tag(index, epoch, batch):
    if type(index) is int:
        return TaggedIndex(index, epoch, batch)
    return TaggedKey(index, epoch, batch)


def untag(key):
    """(key for the user's dataset, epoch, batch, index for the record); epoch is None if untagged."""
    if type(key) is TaggedIndex:
        plain = int(key)
        return plain, key.epoch, key.batch, plain
    if type(key) is TaggedKey:
        try:
            index = operator.index(key.value)
        except TypeError:
            index = None
        return key.value, key.epoch, key.batch, index
    return key, None, None, None


class TaggedBatch:
    """A collated batch on its way from a worker to the train loop, with its epoch and batch number.

    The watched loader's iterator unwraps it, so the user never sees it.
    """

    __slots__ = ("data", "run", "epoch", "batch")

    def __init__(self, data, run, epoch, batch):
        self.data = data
        self.run = run
        self.epoch = epoch
        self.batch = batch

    def __reduce__(self):
        return (TaggedBatch, (self.data, self.run, self.epoch, self.batch))

    def pin_memory(self, device=None):
        """Called by torch's pin_memory() in the pin-memory thread (or the main thread, num_workers=0).

        torch 1.13 calls it without a device, newer torch passes its own; either way the inner batch
        is pinned by torch's function as it would have been without the tag.
        """
        run = _sidefile.run_info(self.run)
        if device is None and run is not None:
            device = run.pin_device
        t0 = monotonic_ns()
        pinned = pin_inner(self.data, device)
        t1 = monotonic_ns()
        if run is not None:
            _sidefile.side_file(run.name, run.directory).write(
                '["pin",%d,%d,%s,%s,%d]\n' % (t0, t1, num(self.epoch), num(self.batch), tensor_bytes(pinned)))
        return TaggedBatch(pinned, self.run, self.epoch, self.batch)


def pin_inner(data, device):
    """torch's own pinning of one batch (a separate function so tests without CUDA can replace it)."""
    return _torch_pin.pin_memory(data, device)


def tensor_bytes(data, depth=0):
    """Bytes of tensor data in a batch: tensors inside lists, tuples, dicts and plain objects."""
    if isinstance(data, torch.Tensor):
        return data.numel() * data.element_size()
    if depth > 16 or isinstance(data, (str, bytes)):
        return 0
    if isinstance(data, collections.abc.Mapping):
        return sum(tensor_bytes(v, depth + 1) for v in data.values())
    if isinstance(data, (list, tuple, collections.abc.Sequence)):
        return sum(tensor_bytes(v, depth + 1) for v in data)
    fields = getattr(data, "__dict__", None)
    if fields:
        return sum(tensor_bytes(v, depth + 1) for v in fields.values())
    return 0


# ------------------------------------------------------------------------------------------------
# Per-process record state


class _ProcessState:
    """What one process remembers between records of one run.

    Only the thread that fetches and collates touches it (a worker's only thread, or the train loop).
    """

    __slots__ = ("key", "pending", "iter_epoch", "iter_stamp", "iter_k", "num_workers", "worker_id")

    def __init__(self):
        self.key = None  # (epoch, batch) of the last tagged fetch
        self.pending = 0  # fetches since the last collate
        self.iter_epoch = None  # iterable: this process's current epoch
        self.iter_stamp = None  # iterable: the main process's epoch stamp seen at the last __iter__
        self.iter_k = 0  # iterable: batches collated this epoch by this process
        self.num_workers = 0
        self.worker_id = None

    def iterable_batch(self):
        if self.worker_id is None:
            return self.iter_k  # the main process (num_workers=0) makes every batch
        return self.iter_k * self.num_workers + self.worker_id


_states = {}


def state(run):
    s = _states.get(run)
    if s is None:
        s = _states[run] = _ProcessState()
    return s


def _after_fork_in_child():
    global _states
    _states = {}


os.register_at_fork(after_in_child=_after_fork_in_child)


# ------------------------------------------------------------------------------------------------
# Datasets


class _DelegatingDataset:
    """Attribute reads the wrapper does not answer go to the user's dataset (loader.dataset.classes).

    Dunder names never delegate: torch's fetcher asks `hasattr(dataset, "__getitems__")`, and the
    user's __getitems__ must not receive tagged indices behind the wrapper's back.
    """

    def __getattr__(self, name):
        if name.startswith("__") or name == "dataset":
            raise AttributeError(name)
        inner = self.__dict__.get("dataset")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)


class WatchedMapDataset(_DelegatingDataset, torch.utils.data.Dataset):
    """A map-style dataset that records each fetch of a tagged index."""

    def __init__(self, dataset, run, directory):
        self.dataset = dataset
        self.run = run
        self.directory = directory

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, key):
        # The hot path of a worker: once per sample, ~2 us on top of the user's __getitem__.
        if type(key) is TaggedIndex:
            index = int(key)
            t0 = monotonic_ns()
            item = self.dataset[index]
            t1 = monotonic_ns()
            line = '["fetch",%d,%d,%d,%d,%d]\n' % (t0, t1, key.epoch, key.batch, index)
            _note_fetch(self.run, key.epoch, key.batch)
        else:
            key, epoch, batch, index = untag(key)
            if epoch is None:  # not from the loader's sampler (someone indexing loader.dataset): no record
                return self.dataset[key]
            t0 = monotonic_ns()
            item = self.dataset[key]
            t1 = monotonic_ns()
            line = '["fetch",%d,%d,%d,%s,%s]\n' % (t0, t1, epoch, num(batch), num(index))
            _note_fetch(self.run, epoch, batch)
        out = _sidefile._files.get(self.run) or _sidefile.side_file(self.run, self.directory)
        out.write(line)
        return item


class WatchedBatchedMapDataset(WatchedMapDataset):
    """For a dataset whose __getitems__ fetches a batch at once: the loader calls it as before.

    It takes one call for n samples, so each sample's fetch record gets an equal share of the call's
    time, back to back: one record per sample, as the format has it, with the batch's true span.
    """

    def __getitems__(self, keys):
        untagged = [untag(k) for k in keys]
        t0 = monotonic_ns()
        items = self.dataset.__getitems__([u[0] for u in untagged])
        t1 = monotonic_ns()
        n = len(untagged)
        if n and untagged[0][1] is not None:
            out = _sidefile.side_file(self.run, self.directory)
            lines = []
            for i, (_, epoch, batch, index) in enumerate(untagged):
                _note_fetch(self.run, epoch, batch)
                a = t0 + (t1 - t0) * i // n
                b = t0 + (t1 - t0) * (i + 1) // n
                lines.append('["fetch",%d,%d,%d,%s,%s]\n' % (a, b, epoch, num(batch), num(index)))
            out.write("".join(lines))
        return items


def has_batched_getitems(dataset):
    """Whether the loader would fetch `dataset` through a __getitems__ that really batches.

    torch's Subset (2.x) defines __getitems__ that indexes its parent one by one when the parent has
    none; per-sample fetches are then the same thing and keep their own times.
    """
    if not getattr(dataset, "__getitems__", None):
        return False
    subset = torch.utils.data.Subset
    if isinstance(dataset, subset) and getattr(type(dataset), "__getitems__", None) is getattr(
            subset, "__getitems__", None):
        return has_batched_getitems(dataset.dataset)
    return True


def _note_fetch(run, epoch, batch):
    s = _states.get(run) or state(run)
    key = s.key
    if key is None or key[1] != batch or key[0] != epoch:
        # A new batch (or one whose fetch failed before its collate): recount.
        s.key = (epoch, batch)
        s.pending = 0
    s.pending += 1


class WatchedIterableDataset(_DelegatingDataset, torch.utils.data.IterableDataset):
    """An iterable dataset that records each sample's next() as a fetch.

    `epoch_stamp` is set by the main process before each epoch's iterator is made; a worker process
    carries the stamp of the epoch it was started in, and a persistent worker counts its re-iterations
    on top of it.
    """

    def __init__(self, dataset, run, directory):
        self.dataset = dataset
        self.run = run
        self.directory = directory
        self.epoch_stamp = 0

    def __len__(self):
        return len(self.dataset)

    def __iter__(self):
        # Not a generator function: the epoch is counted when torch calls iter(), even for a worker
        # that then gets no batch to make.
        s = state(self.run)
        if s.iter_epoch is None or s.iter_stamp != self.epoch_stamp:
            s.iter_epoch = self.epoch_stamp
        else:
            s.iter_epoch += 1
        s.iter_stamp = self.epoch_stamp
        s.iter_k = 0
        s.pending = 0
        info = torch.utils.data.get_worker_info()
        s.worker_id = None if info is None else info.id
        s.num_workers = 0 if info is None else info.num_workers
        return self._records(iter(self.dataset), s, s.iter_epoch)

    def _records(self, samples, s, epoch):
        out = _sidefile.side_file(self.run, self.directory)
        while True:
            t0 = monotonic_ns()
            try:
                item = next(samples)
            except StopIteration:
                out.flush()  # fetches of a batch drop_last throws away
                return
            t1 = monotonic_ns()
            s.pending += 1
            out.write('["fetch",%d,%d,%d,%d,null]\n' % (t0, t1, epoch, s.iterable_batch()))
            yield item


# ------------------------------------------------------------------------------------------------
# Functions the loader calls in its workers


class WatchedCollate:
    """Times the user's collate_fn and tags its batch; flushes the process's file after each batch."""

    def __init__(self, collate_fn, run, directory, iterable):
        self.collate_fn = collate_fn
        self.run = run
        self.directory = directory
        self.iterable = iterable

    def __call__(self, samples):
        s = state(self.run)
        if self.iterable:
            epoch, batch = s.iter_epoch, s.iterable_batch()
        elif s.key is not None:
            epoch, batch = s.key
        else:
            epoch = batch = None
        n = s.pending
        s.pending = 0
        t0 = monotonic_ns()
        data = self.collate_fn(samples)
        t1 = monotonic_ns()
        if self.iterable:
            s.iter_k += 1
        _sidefile.side_file(self.run, self.directory).write_and_flush(
            '["collate",%d,%d,%s,%s,%d]\n' % (t0, t1, num(epoch), num(batch), n))
        return TaggedBatch(data, self.run, epoch, batch)


class WatchedWorkerInit:
    """Starts a worker with clean record state, then runs the user's worker_init_fn."""

    def __init__(self, worker_init_fn, run):
        self.worker_init_fn = worker_init_fn
        self.run = run

    def __call__(self, worker_id):
        _states.pop(self.run, None)
        if self.worker_init_fn is not None:
            self.worker_init_fn(worker_id)


# ------------------------------------------------------------------------------------------------
# Main process: samplers and the iterator


class _Delegating:
    def __getattr__(self, name):
        if name.startswith("__") or name == "inner":
            raise AttributeError(name)
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)


class TaggingBatchSampler(_Delegating):
    """Wraps the user's batch sampler: same batches, each index tagged with its epoch and batch.

    The epoch is read when torch calls iter(), which it does while making the epoch's iterator.
    """

    def __init__(self, inner, watch):
        self.inner = inner
        self.watch = watch

    def __iter__(self):
        return self._tagged(iter(self.inner), self.watch.epoch)

    @staticmethod
    def _tagged(batches, epoch):
        for b, indices in enumerate(batches):
            yield [tag(i, epoch, b) for i in indices]

    def __len__(self):
        return len(self.inner)


class TaggingSampler(TaggingBatchSampler):
    """The same without auto-batching (batch_size=None): each index is its own batch."""

    @staticmethod
    def _tagged(indices, epoch):
        for b, i in enumerate(indices):
            yield tag(i, epoch, b)


class WatchedIterator(_Delegating):
    """The train loop's iterator: times each __next__ (a wait record) and unwraps the batch."""

    def __init__(self, inner, out, epoch):
        self.inner = inner
        self.out = out
        self.epoch = epoch
        self.yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.inner)

    def __next__(self):
        t0 = monotonic_ns()
        try:
            data = next(self.inner)
        except StopIteration:
            self.out.flush()
            raise
        t1 = monotonic_ns()
        if type(data) is TaggedBatch:
            batch = data.batch
            data = data.data
        else:
            batch = self.yielded
        self.yielded += 1
        self.out.write_and_flush('["wait",%d,%d,%d,%s]\n' % (t0, t1, self.epoch, num(batch)))
        return data

