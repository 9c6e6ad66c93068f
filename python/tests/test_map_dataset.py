"""Map-style datasets: workers under each start method, persistent workers, the main process alone."""

import os

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler

import pinscope_loader
from _checks import (check_fetch_collate, check_header, check_main, epochs_of, read, same_batches,
                     sequential_batches)
from _helpers import BatchedSquares, Clock, RecordingInit, Squares, user_collate

N = 22
BATCH = 4  # 6 batches, the last of 2 samples


def expected_sequential(epochs, n=N, batch_size=BATCH, drop_last=False):
    batches = sequential_batches(n, batch_size, drop_last)
    return {(e, b): idx for e in range(epochs) for b, idx in enumerate(batches)}


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_workers_under_each_start_method(tmp_path, start_method):
    # The batches don't depend on the workers: the reference loads in-process, which saves starting
    # two more spawned interpreters.
    plain = epochs_of(DataLoader(Squares(N), batch_size=BATCH), 1)
    clock = Clock()
    user = DataLoader(Squares(N), batch_size=BATCH, num_workers=2, multiprocessing_context=start_method,
                      worker_init_fn=RecordingInit(str(tmp_path)))
    loader = pinscope_loader.watch(user, dir=str(tmp_path / "side"))
    watched = epochs_of(loader, 1)
    clock.stop()

    assert same_batches(watched, plain)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 3
    check_header(files, batch_size=BATCH, num_workers=2, pin_memory=False, prefetch_factor=2,
                 persistent_workers=False, drop_last=False, start_method=start_method, dataset="map")
    check_main(files, epochs=1, batches_per_epoch=6)
    check_fetch_collate(files, expected_sequential(1), num_workers=2, persistent=False)
    # The user's worker_init_fn ran in both workers.
    assert sorted(p.split("-")[1] for p in os.listdir(tmp_path) if p.startswith("init-")) == ["0", "1"]


def test_fork_workers_over_two_epochs(tmp_path):
    loader = pinscope_loader.watch(
        DataLoader(Squares(N), batch_size=BATCH, num_workers=2, multiprocessing_context="fork"),
        dir=str(tmp_path))
    clock = Clock()
    epochs_of(loader, 2)
    files = read(loader)
    files.check_clocks(clock.stop())
    assert len(files.files) == 1 + 2 * 2  # new workers each epoch
    check_main(files, epochs=2, batches_per_epoch=6)
    check_fetch_collate(files, expected_sequential(2), num_workers=2, persistent=False)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_persistent_workers_over_three_epochs(tmp_path, start_method):
    plain = epochs_of(DataLoader(Squares(N), batch_size=BATCH), 3)
    user = DataLoader(Squares(N), batch_size=BATCH, num_workers=2, persistent_workers=True,
                      multiprocessing_context=start_method)
    loader = pinscope_loader.watch(user, dir=str(tmp_path))
    clock = Clock()
    watched = epochs_of(loader, 3)
    clock.stop()

    assert same_batches(watched, plain)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 1 + 2  # the same two workers throughout
    check_header(files, persistent_workers=True, start_method=start_method)
    check_main(files, epochs=3, batches_per_epoch=6)
    check_fetch_collate(files, expected_sequential(3), num_workers=2, persistent=True)


def test_main_process_alone_records_everything_in_its_file(tmp_path):
    make = lambda: DataLoader(Squares(N), batch_size=BATCH, collate_fn=user_collate)  # noqa: E731
    plain = epochs_of(make(), 2)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    clock = Clock()
    watched = epochs_of(loader, 2)
    clock.stop()

    assert same_batches(watched, plain)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 1
    check_header(files, num_workers=0, prefetch_factor=None, start_method=None)
    check_main(files, epochs=2, batches_per_epoch=6)
    check_fetch_collate(files, expected_sequential(2), num_workers=0, persistent=False)
    # Each batch's fetches and collate come before the wait that returns it.
    kinds = [r[0] for r in files.main]
    assert kinds[:7] == ["epoch", "fetch", "fetch", "fetch", "fetch", "collate", "wait"]


def test_shuffled_batches_and_records_agree(tmp_path):
    def make():
        return DataLoader(Squares(N), batch_size=BATCH, shuffle=True, num_workers=2,
                          generator=torch.Generator().manual_seed(7), multiprocessing_context="fork")

    plain = epochs_of(make(), 2)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    watched = epochs_of(loader, 2)
    assert same_batches(watched, plain)

    # The batches the sampler made, read back from what the loader yielded.
    expected = {(e, b): batch[1].tolist() for e, batches in enumerate(watched) for b, batch in enumerate(batches)}
    files = read(loader)
    check_main(files, epochs=2, batches_per_epoch=6)
    check_fetch_collate(files, expected, num_workers=2, persistent=False)


def test_without_auto_batching_each_sample_is_a_batch(tmp_path):
    make = lambda: DataLoader(Squares(5), batch_size=None, num_workers=2,  # noqa: E731
                              multiprocessing_context="fork")
    plain = epochs_of(make(), 1)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    watched = epochs_of(loader, 1)
    assert same_batches(watched, plain)
    files = read(loader)
    check_header(files, batch_size=None)
    check_main(files, epochs=1, batches_per_epoch=5)
    check_fetch_collate(files, {(0, b): [b] for b in range(5)}, num_workers=2, persistent=False)


def test_custom_batch_sampler_and_drop_last(tmp_path):
    sampler = BatchSampler(SequentialSampler(range(N)), batch_size=5, drop_last=True)  # 4 batches of 5
    make = lambda: DataLoader(Squares(N), batch_sampler=sampler, num_workers=2,  # noqa: E731
                              multiprocessing_context="fork")
    plain = epochs_of(make(), 1)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    assert len(loader) == 4
    watched = epochs_of(loader, 1)
    assert same_batches(watched, plain)
    files = read(loader)
    check_header(files, batch_size=None, drop_last=False)
    check_main(files, epochs=1, batches_per_epoch=4)
    check_fetch_collate(files, expected_sequential(1, N, 5, drop_last=True), num_workers=2, persistent=False)


def test_batched_getitems_records_one_fetch_per_sample(tmp_path):
    make = lambda: DataLoader(BatchedSquares(N), batch_size=BATCH, num_workers=2,  # noqa: E731
                              multiprocessing_context="fork")
    plain = epochs_of(make(), 1)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    watched = epochs_of(loader, 1)
    assert same_batches(watched, plain)
    files = read(loader)
    check_main(files, epochs=1, batches_per_epoch=6)
    check_fetch_collate(files, expected_sequential(1), num_workers=2, persistent=False)
    # A batch's share of the one call: back to back, in index order.
    for _, records in files.workers:
        fetches = [r for r in records if r[0] == "fetch"]
        for a, b in zip(fetches, fetches[1:]):
            if a[4] == b[4]:
                assert a[2] == b[1] and a[5] < b[5]


def test_loader_keeps_its_face(tmp_path):
    sampler = RandomSampler(range(N), generator=torch.Generator().manual_seed(1))
    user = DataLoader(Squares(N), batch_size=BATCH, sampler=sampler, drop_last=True)
    loader = pinscope_loader.watch(user, dir=str(tmp_path))
    assert isinstance(loader, DataLoader)
    assert len(loader) == len(user) == 5
    assert loader.sampler is sampler  # sampler.set_epoch(...) reaches the user's sampler
    assert loader.batch_size == BATCH and loader.drop_last is True
    assert loader.dataset.n == N  # attributes of the user's dataset read through the wrapper
    assert loader.dataset[3][1] == 3  # indexing it directly works and records nothing
    assert pinscope_loader.watch(loader) is loader
    assert os.listdir(tmp_path) == []  # nothing is written before the first epoch


def test_default_folder_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PINSCOPE_LOADER_DIR", str(tmp_path / "from-env"))
    loader = pinscope_loader.watch(DataLoader(Squares(4), batch_size=2))
    epochs_of(loader, 1)
    assert loader.pinscope_dir == str(tmp_path / "from-env")
    assert os.listdir(tmp_path / "from-env") == ["%s-%d.jsonl" % (loader.pinscope_run, os.getpid())]

    monkeypatch.delenv("PINSCOPE_LOADER_DIR")
    monkeypatch.chdir(tmp_path)
    loader = pinscope_loader.watch(DataLoader(Squares(4), batch_size=2))
    assert loader.pinscope_dir == str(tmp_path / "pinscope-loader")


def test_run_names_count_the_watched_loaders(tmp_path):
    a = pinscope_loader.watch(DataLoader(Squares(4)), dir=str(tmp_path))
    b = pinscope_loader.watch(DataLoader(Squares(4)), dir=str(tmp_path))
    stamp_a, pid_a, n_a = a.pinscope_run.split("-")
    stamp_b, pid_b, n_b = b.pinscope_run.split("-")
    assert len(stamp_a) == 15 and stamp_a[8] == "T"
    assert pid_a == pid_b == str(os.getpid())
    assert int(n_b) == int(n_a) + 1
