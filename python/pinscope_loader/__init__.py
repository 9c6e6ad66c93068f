"""pinscope_loader: side files of a torch DataLoader's workers, pinning and waits for pinscope.

    import pinscope_loader
    loader = pinscope_loader.watch(loader)          # or watch(loader, dir="runs/pinscope-loader")

Each process of the watched loader (the train loop's, each worker) appends JSON lines to
`<dir>/<run>-<pid>.jsonl`; the format is docs/loader-side-files.md of the pinscope repository.
"""

from ._loader import WatchedDataLoader, watch

__all__ = ["watch", "WatchedDataLoader"]
__version__ = "0.1.0"
