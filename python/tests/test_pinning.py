"""Pin records: from the pin-memory thread (workers) or the train loop's thread (no workers).

torch pins only where CUDA is. Without it, torch 1.13 skips pinning altogether, so these tests fake a
CUDA device to torch's DataLoader (is_available, current_device, set_device) and replace the copy
itself by the identity; everything else, torch's pin loop and its call of the batch's pin_memory(),
runs for real. With CUDA they pin for real.
"""

import inspect

import pytest
import torch
import torch.utils.data._utils.pin_memory as torch_pin
from torch.utils.data import DataLoader

import pinscope_loader
from pinscope_loader import _sidefile, _wrap
from _checks import check_main, epochs_of, read, same_batches
from _helpers import Squares, SAMPLE_SHAPE

N = 22
BATCH = 4


def batch_bytes(size):
    """A default-collated batch of (sample, index): float32 samples and an int64 index tensor."""
    per_sample = torch.Size(SAMPLE_SHAPE).numel() * 4 + 8
    return size * per_sample


@pytest.fixture
def pinning(monkeypatch):
    if torch.cuda.is_available():
        yield "cuda"
        return
    decides = inspect.getsource(torch.utils.data.dataloader._BaseDataLoaderIter.__init__)
    if "torch.cuda.is_available()" not in decides:
        pytest.skip("no CUDA device, and this torch decides whether to pin otherwise than torch 1.13, "
                    "so the test cannot fake one")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: None)
    monkeypatch.setattr(_wrap, "pin_inner", lambda data, device: data)
    yield "fake"


def test_torch_pin_function_calls_the_tagged_batch(tmp_path, pinning):
    loader = pinscope_loader.watch(DataLoader(Squares(4), batch_size=2), dir=str(tmp_path))
    data = [torch.zeros(2, 3, 4), torch.arange(2)]
    tagged = _wrap.TaggedBatch(data, loader.pinscope_run, 5, 7)

    out = torch_pin.pin_memory(tagged)  # what the pin loop and the single-process iterator call

    assert type(out) is _wrap.TaggedBatch and (out.epoch, out.batch) == (5, 7)
    assert same_batches(out.data, data)
    if pinning == "cuda":
        assert all(t.is_pinned() for t in out.data)
    _sidefile.flush_all()
    pins = [r for r in read(loader).main if r[0] == "pin"]
    assert len(pins) == 1
    _, t0, t1, epoch, batch, nbytes = pins[0]
    assert t0 <= t1 and (epoch, batch) == (5, 7) and nbytes == 2 * 3 * 4 * 4 + 2 * 8


@pytest.mark.parametrize("num_workers", [0, 2])
def test_a_pinned_loader_records_one_pin_per_batch(tmp_path, pinning, num_workers):
    pin_function = torch_pin.pin_memory
    # Pinning changes where a batch lies, not what it holds (and a faked device can't pin tensors).
    plain = epochs_of(DataLoader(Squares(N), batch_size=BATCH), 2)
    kwargs = dict(multiprocessing_context="fork") if num_workers else {}
    user = DataLoader(Squares(N), batch_size=BATCH, num_workers=num_workers, pin_memory=True, **kwargs)
    loader = pinscope_loader.watch(user, dir=str(tmp_path))
    watched = epochs_of(loader, 2)
    assert same_batches(watched, plain)
    assert torch_pin.pin_memory is pin_function  # nothing of torch's is patched

    files = read(loader)
    check_main(files, epochs=2, batches_per_epoch=6)
    pins = [r for r in files.main if r[0] == "pin"]
    # One per batch; the pin thread takes batches as workers finish them, so order is not asserted.
    assert sorted((r[3], r[4]) for r in pins) == [(e, b) for e in range(2) for b in range(6)]
    for r in pins:
        assert r[1] <= r[2]
        assert r[5] == batch_bytes(2 if r[4] == 5 else BATCH)
    # A batch is pinned before the train loop gets it.
    seen = set()
    for r in files.main:
        if r[0] == "pin":
            seen.add((r[3], r[4]))
        elif r[0] == "wait":
            assert (r[3], r[4]) in seen
    if pinning == "cuda":
        assert all(t.is_pinned() for batches in watched for batch in batches for t in batch)
    assert not any(r[0] == "pin" for _, records in files.workers for r in records)
