"""Iterable datasets: batches numbered k * num_workers + worker_id, epochs counted in the workers."""

import pytest
from torch.utils.data import DataLoader

import pinscope_loader
from _checks import check_fetch_collate, check_header, check_main, epochs_of, read, same_batches
from _helpers import Clock, Sharded, Uneven

BATCH = 4


def expected_sharded(n, num_workers, epochs):
    """Worker w's k-th batch of an epoch is batch k * num_workers + w."""
    out = {}
    for w in range(num_workers):
        mine = list(range(w, n, num_workers))
        for k in range(0, (len(mine) + BATCH - 1) // BATCH):
            for e in range(epochs):
                out[(e, k * num_workers + w)] = mine[k * BATCH:(k + 1) * BATCH]
    return out


def test_sharded_over_two_workers_and_two_epochs(tmp_path):
    n = 22  # worker 0: 11 even items, batches 0, 2, 4; worker 1: 11 odd, batches 1, 3, 5
    plain = epochs_of(DataLoader(Sharded(n), batch_size=BATCH, num_workers=2,
                                 multiprocessing_context="fork"), 2)
    loader = pinscope_loader.watch(
        DataLoader(Sharded(n), batch_size=BATCH, num_workers=2, multiprocessing_context="fork"),
        dir=str(tmp_path))
    assert len(loader) == 6
    clock = Clock()
    watched = epochs_of(loader, 2)
    clock.stop()

    assert same_batches(watched, plain)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 1 + 2 * 2
    check_header(files, dataset="iterable", batch_size=BATCH, num_workers=2)
    check_main(files, epochs=2, batches_per_epoch=6)
    expected = expected_sharded(n, 2, 2)
    check_fetch_collate(files, expected, num_workers=2, persistent=False, iterable=True)
    # The batch numbers name the batches the train loop got.
    for e, batches in enumerate(watched):
        for b, batch in enumerate(batches):
            assert batch[1].tolist() == expected[(e, b)]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_persistent_workers_count_their_epochs(tmp_path, start_method):
    n = 16
    loader = pinscope_loader.watch(
        DataLoader(Sharded(n), batch_size=BATCH, num_workers=2, persistent_workers=True,
                   multiprocessing_context=start_method),
        dir=str(tmp_path))
    clock = Clock()
    watched = epochs_of(loader, 3)
    clock.stop()

    # Two workers interleave the shards the same way each epoch, whatever the start method.
    plain = epochs_of(DataLoader(Sharded(n), batch_size=BATCH, num_workers=2, multiprocessing_context="fork"), 1)
    assert same_batches(watched, plain * 3)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 1 + 2
    check_main(files, epochs=3, batches_per_epoch=4)
    check_fetch_collate(files, expected_sharded(n, 2, 3), num_workers=2, persistent=True, iterable=True)


def test_a_worker_running_dry_leaves_gaps_in_the_numbers(tmp_path):
    # Worker 0 makes 3 batches (0, 2, 4), worker 1 one (1). PyTorch hands them over as 0, 1, 2, then
    # asks worker 1 again, finds it dry and takes worker 0's third: batch 4.
    sizes = [12, 4]
    make = lambda: DataLoader(Uneven(sizes), batch_size=BATCH, num_workers=2,  # noqa: E731
                              multiprocessing_context="fork")
    plain = epochs_of(make(), 1)
    loader = pinscope_loader.watch(make(), dir=str(tmp_path))
    watched = epochs_of(loader, 1)
    assert same_batches(watched, plain)

    files = read(loader)
    check_main(files, epochs=1, batch_order=[0, 1, 2, 4])
    expected = {(0, 0): [0, 1, 2, 3], (0, 2): [4, 5, 6, 7], (0, 4): [8, 9, 10, 11], (0, 1): [12, 13, 14, 15]}
    check_fetch_collate(files, expected, num_workers=2, persistent=False, iterable=True)


def test_main_process_alone_numbers_batches_from_zero(tmp_path):
    n = 10
    plain = epochs_of(DataLoader(Sharded(n), batch_size=BATCH), 2)
    loader = pinscope_loader.watch(DataLoader(Sharded(n), batch_size=BATCH), dir=str(tmp_path))
    clock = Clock()
    watched = epochs_of(loader, 2)
    clock.stop()

    assert same_batches(watched, plain)
    files = read(loader)
    files.check_clocks(clock)
    assert len(files.files) == 1
    check_header(files, dataset="iterable", num_workers=0, start_method=None)
    check_main(files, epochs=2, batches_per_epoch=3)
    expected = {(e, b): list(range(b * BATCH, min(n, (b + 1) * BATCH))) for e in range(2) for b in range(3)}
    check_fetch_collate(files, expected, num_workers=0, persistent=False, iterable=True)
