"""Assertions on a run's side files, shared by the tests."""

import collections

import torch

from _helpers import SideFiles


def same_batches(a, b):
    """Equal nested structure of tensors, lists, tuples and ints."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_batches(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def epochs_of(loader, epochs):
    return [[batch for batch in loader] for _ in range(epochs)]


def sequential_batches(n, batch_size, drop_last=False):
    """The index lists a SequentialSampler batched by batch_size makes."""
    out = [list(range(i, min(i + batch_size, n))) for i in range(0, n, batch_size)]
    if drop_last and out and len(out[-1]) < batch_size:
        out.pop()
    return out


def check_main(files, epochs, batches_per_epoch=None, batch_order=None):
    """epoch records 0..epochs-1, then per epoch one wait per batch in order; times ascending.

    batch_order: the batch numbers of an epoch in the order the loader yields them, where that is not
    0..batches_per_epoch-1.
    """
    epoch_records = [r for r in files.main if r[0] == "epoch"]
    assert [r[2] for r in epoch_records] == list(range(epochs))
    waits = [r for r in files.main if r[0] == "wait"]
    if batch_order is None:
        batch_order = range(batches_per_epoch)
    expected = [(e, b) for e in range(epochs) for b in batch_order]
    assert [(r[3], r[4]) for r in waits] == expected
    # Each wait follows its epoch's record and the one before it.
    last = 0
    for r in files.main:
        if r[0] in ("epoch", "wait"):
            assert r[1] >= last, r
            last = r[2] if r[0] == "wait" else r[1]


def check_fetch_collate(files, expected, num_workers, persistent, iterable=False):
    """expected: {(epoch, batch): [index, ...]} of every batch the loader makes.

    One fetch per sample and one collate per batch, with the right batch numbers and sample counts;
    in every file each collate comes right after the fetches of its batch; files per process as
    the loader's worker processes go.
    """
    if num_workers == 0:
        sources = [files.main]
        assert files.workers == []
    else:
        sources = [records for _, records in files.workers]
        assert not any(r[0] in ("fetch", "collate") for r in files.main)

    fetches = collections.Counter()
    collates = collections.Counter()
    for records in sources:
        pending = []
        for r in records:
            if r[0] == "fetch":
                pending.append(r)
                fetches[(r[3], r[4], r[5])] += 1
            elif r[0] == "collate":
                collates[(r[3], r[4])] += 1
                assert r[5] == len(pending), (r, pending)
                assert all((f[3], f[4]) == (r[3], r[4]) for f in pending), (r, pending)
                pending = []
        assert pending == [], pending  # every fetch was collated (no drop_last leftovers here)

    want_fetches = collections.Counter(
        (e, b, None if iterable else i) for (e, b), indices in expected.items() for i in indices)
    assert fetches == want_fetches
    assert collates == collections.Counter(expected.keys())

    if num_workers > 0:
        ids = sorted(h["worker_id"] for h, _ in files.workers)
        epochs = 1 + max(e for e, _ in expected)
        if persistent:
            assert ids == list(range(num_workers))
        else:
            assert ids == sorted(list(range(num_workers)) * epochs)
            for h, records in files.workers:  # a new process each epoch
                assert len({r[3] for r in records}) == 1
        for h, _ in files.workers:
            assert "loader" not in h


def check_header(files, **loader):
    info = files.main_header["loader"]
    for key, value in loader.items():
        assert info[key] == value, (key, info)
    assert files.main_header["worker_id"] is None
    assert files.main_header["torch"] == str(torch.__version__)


def read(loader):
    return SideFiles(loader.pinscope_dir, loader.pinscope_run)
