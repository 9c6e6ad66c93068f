#!/usr/bin/env python3
"""The naive pinned-vs-pageable benchmark people publish, and the honest one, with PyTorch on a real GPU.

Naive: each variant in a fresh process, a stopwatch around one `x.to("cuda", non_blocking=True)`, no
warm-up, no torch.cuda.synchronize(). For the pinned variant the tensor is pinned before the stopwatch
starts (as `torch.randn(...).pin_memory()` at the top of a script does), which creates the CUDA context
there. Honest: one process, warmed up, every copy synchronised, best of several.

Also times the start-up costs one at a time in a fresh process (context, first cudaMalloc through the
caching allocator, first pin of a size) and a tensor pinned in a parent passed to a spawned child.
Prints one JSON object: what docs/lessons.md quotes for lesson g on the H100.

    python3 tools/naive_copy_benchmark.py [--repeats 3] [--shape 32x3x224x224]
"""
import argparse
import json
import subprocess
import sys
import time


def shape_of(text):
    return tuple(int(v) for v in text.split("x"))


def child(mode, shape):
    import torch
    out = {}
    if mode == "pageable":
        x = torch.randn(*shape)
        t0 = time.perf_counter()
        y = x.to("cuda", non_blocking=True)
        out["stopwatch_s"] = time.perf_counter() - t0
        torch.cuda.synchronize()
        out["until_done_s"] = time.perf_counter() - t0
    elif mode == "pinned":
        x = torch.randn(*shape)
        t = time.perf_counter()
        x = x.pin_memory()
        out["pin_s"] = time.perf_counter() - t
        t0 = time.perf_counter()
        y = x.to("cuda", non_blocking=True)
        out["stopwatch_s"] = time.perf_counter() - t0
        torch.cuda.synchronize()
        out["until_done_s"] = time.perf_counter() - t0
    elif mode == "parts":
        x = torch.randn(*shape)
        t = time.perf_counter()
        torch.cuda.init()
        torch.empty(1, device="cuda")
        torch.cuda.synchronize()
        out["context_s"] = time.perf_counter() - t
        t = time.perf_counter()
        d = torch.empty(*shape, device="cuda")
        torch.cuda.synchronize()
        out["first_device_alloc_s"] = time.perf_counter() - t
        t = time.perf_counter()
        p = x.pin_memory()
        out["first_pin_s"] = time.perf_counter() - t
        t = time.perf_counter()
        d.copy_(x)
        torch.cuda.synchronize()
        out["first_pageable_copy_s"] = time.perf_counter() - t
        t = time.perf_counter()
        d.copy_(x)
        torch.cuda.synchronize()
        out["second_pageable_copy_s"] = time.perf_counter() - t
        t = time.perf_counter()
        d.copy_(p, non_blocking=True)
        torch.cuda.synchronize()
        out["first_pinned_copy_s"] = time.perf_counter() - t
        t = time.perf_counter()
        d.copy_(p, non_blocking=True)
        torch.cuda.synchronize()
        out["second_pinned_copy_s"] = time.perf_counter() - t
    elif mode == "honest":
        x = torch.randn(*shape)
        p = x.pin_memory()
        d = torch.empty(*shape, device="cuda")
        for src, name in ((x, "pageable"), (p, "pinned")):
            best = None
            for _ in range(20):
                torch.cuda.synchronize()
                t = time.perf_counter()
                d.copy_(src, non_blocking=True)
                torch.cuda.synchronize()
                s = time.perf_counter() - t
                best = s if best is None else min(best, s)
            out[name + "_s"] = best
            out[name + "_GBps"] = x.numel() * 4 / best / 1e9
    print(json.dumps(out))


def spawned_child(x, queue):
    import torch
    t0 = time.perf_counter()
    x.to("cuda")
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    x.to("cuda")
    torch.cuda.synchronize()
    queue.put({"is_pinned_in_child": bool(x.is_pinned()), "first_copy_in_child_s": first,
               "second_copy_in_child_s": time.perf_counter() - t0})


def spawn_case(shape):
    import torch
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    x = torch.randn(*shape).pin_memory()
    p = ctx.Process(target=spawned_child, args=(x, q))
    p.start()
    r = q.get()
    p.join()
    r["is_pinned_in_parent"] = bool(x.is_pinned())
    return r


def run(mode, shape):
    text = subprocess.run([sys.executable, __file__, "--child", mode, "--shape", "x".join(map(str, shape))],
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--shape", default="32x3x224x224")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    shape = shape_of(a.shape)
    if a.child:
        return child(a.child, shape)
    import torch
    result = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "shape": list(shape),
              "bytes": 4 * int(torch.tensor(shape).prod())}
    for mode in ("pageable", "pinned", "parts"):
        result[mode] = [run(mode, shape) for _ in range(a.repeats)]
    result["honest"] = run("honest", shape)
    result["spawned"] = spawn_case(shape)
    med = lambda v: sorted(v)[len(v) // 2]
    naive_pageable = med([r["stopwatch_s"] for r in result["pageable"]])
    naive_pinned = med([r["stopwatch_s"] for r in result["pinned"]])
    result["naive_speedup"] = naive_pageable / naive_pinned
    result["honest_speedup"] = result["honest"]["pageable_s"] / result["honest"]["pinned_s"]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
