"""watch(): the user's DataLoader rebuilt around recording wrappers."""

import inspect
import multiprocessing
import os
import warnings

import torch.utils.data
from torch.utils.data import DataLoader, IterableDataset

from . import _sidefile, _wrap

# DataLoader.__init__ arguments watch() sets itself; any other keyword argument of the installed
# torch (in_order, pin_memory_device, ...) is copied from the user's loader when not at its default.
_SET_HERE = frozenset((
    "self", "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers",
    "collate_fn", "pin_memory", "drop_last", "timeout", "worker_init_fn", "multiprocessing_context",
    "generator", "prefetch_factor", "persistent_workers",
))


class _Watch:
    """The main process's state of one watched loader: its run name, folder and epoch counter."""

    __slots__ = ("run", "directory", "epoch")

    def __init__(self, run, directory):
        self.run = run
        self.directory = directory
        self.epoch = -1  # __iter__ counts up before each epoch: the first is 0


class WatchedDataLoader(DataLoader):
    """A DataLoader whose every __iter__ is a new epoch of records; batches come out unchanged."""

    def __init__(self, *args, pinscope_watch, **kwargs):
        self.pinscope = pinscope_watch
        super().__init__(*args, **kwargs)

    @property
    def pinscope_run(self):
        """The run name, the prefix of this loader's side files."""
        return self.pinscope.run

    @property
    def pinscope_dir(self):
        """The folder the side files go to."""
        return self.pinscope.directory

    def __iter__(self):
        watch = self.pinscope
        watch.epoch += 1
        epoch = watch.epoch
        if isinstance(self.dataset, _wrap.WatchedIterableDataset):
            # Before torch makes the iterator: workers it starts now carry this stamp.
            self.dataset.epoch_stamp = epoch
        out = _sidefile.side_file(watch.run, watch.directory)
        out.write_and_flush('["epoch",%d,%d]\n' % (_sidefile.monotonic_ns(), epoch))
        return _wrap.WatchedIterator(super().__iter__(), out, epoch)


def watch(loader, dir=None):
    """Returns a DataLoader that yields the batches `loader` would and records side files.

    dir: the folder for the side files; default $PINSCOPE_LOADER_DIR, else ./pinscope-loader.
    """
    if isinstance(loader, WatchedDataLoader):
        return loader
    if not isinstance(loader, DataLoader):
        raise TypeError("pinscope_loader.watch() takes a torch.utils.data.DataLoader, got %r" % type(loader))
    dataset = loader.dataset
    if _is_datapipe(dataset):
        warnings.warn("pinscope_loader.watch(): DataPipe datasets are not supported; the loader is "
                      "returned unwatched", stacklevel=2)
        return loader

    directory = os.path.abspath(dir or os.environ.get("PINSCOPE_LOADER_DIR") or "pinscope-loader")
    os.makedirs(directory, exist_ok=True)
    run = _sidefile.new_run_name()
    state = _Watch(run, directory)
    iterable = isinstance(dataset, IterableDataset)
    num_workers = loader.num_workers

    if iterable:
        wrapped = _wrap.WatchedIterableDataset(dataset, run, directory)
    elif _wrap.has_batched_getitems(dataset):
        wrapped = _wrap.WatchedBatchedMapDataset(dataset, run, directory)
    else:
        wrapped = _wrap.WatchedMapDataset(dataset, run, directory)

    kwargs = dict(
        num_workers=num_workers,
        collate_fn=_wrap.WatchedCollate(loader.collate_fn, run, directory, iterable),
        pin_memory=loader.pin_memory,
        timeout=loader.timeout,
        worker_init_fn=_wrap.WatchedWorkerInit(loader.worker_init_fn, run),
        multiprocessing_context=loader.multiprocessing_context,
        generator=loader.generator,
        persistent_workers=loader.persistent_workers,
    )
    # torch 1.13 wants prefetch_factor=2 and 2.x None without workers: leave it to the default then.
    if num_workers > 0:
        kwargs["prefetch_factor"] = loader.prefetch_factor
    kwargs.update(_other_arguments(loader))

    auto_batching = loader.batch_sampler is not None
    if iterable:
        kwargs.update(batch_size=loader.batch_size, drop_last=loader.drop_last)
    elif auto_batching:
        kwargs["batch_sampler"] = _wrap.TaggingBatchSampler(loader.batch_sampler, state)
    else:
        kwargs.update(batch_size=None, sampler=_wrap.TaggingSampler(loader.sampler, state))

    watched = WatchedDataLoader(wrapped, pinscope_watch=state, **kwargs)
    if auto_batching and not iterable:
        # DataLoader made batch_size None, drop_last False and a dummy sampler because it was given a
        # batch sampler; show the user's (loader.sampler.set_epoch(...) must reach their sampler).
        # Its iterators read only batch_sampler, which stays the tagging one.
        for name in ("sampler", "batch_size", "drop_last"):
            object.__setattr__(watched, name, getattr(loader, name))

    _sidefile.register_run(_sidefile.Run(
        run, directory, _loader_info(loader, iterable), getattr(loader, "pin_memory_device", "") or None))
    return watched


def _other_arguments(loader):
    """Keyword arguments of this torch's DataLoader that watch() does not set and the user changed."""
    out = {}
    for name, param in inspect.signature(DataLoader.__init__).parameters.items():
        if name in _SET_HERE or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if not hasattr(loader, name):
            continue
        value = getattr(loader, name)
        try:
            at_default = param.default is not param.empty and bool(value == param.default)
        except Exception:
            at_default = False
        if not at_default:
            out[name] = value
    return out


def _loader_info(loader, iterable):
    num_workers = loader.num_workers
    start_method = None
    if num_workers > 0:
        context = loader.multiprocessing_context
        if context is not None:
            start_method = context.get_start_method()
        else:
            # Without a context torch uses multiprocessing's default one. get_start_method() without
            # allow_none would fix it and break a later set_start_method() of the user's.
            start_method = (multiprocessing.get_start_method(allow_none=True)
                            or multiprocessing.get_all_start_methods()[0])
    return {
        "batch_size": loader.batch_size,
        "num_workers": num_workers,
        "pin_memory": bool(loader.pin_memory),
        "prefetch_factor": loader.prefetch_factor if num_workers > 0 else None,
        "persistent_workers": bool(loader.persistent_workers),
        "drop_last": bool(loader.drop_last),
        "start_method": start_method,
        "dataset": "iterable" if iterable else "map",
    }


def _is_datapipe(dataset):
    for name in ("IterDataPipe", "MapDataPipe"):
        cls = getattr(torch.utils.data, name, None)
        if cls is not None and isinstance(dataset, cls):
            return True
    return False
