#!/usr/bin/env python3
"""pinscope's image-folder dataset beside PyTorch's own on the same JPEGs, for a list of worker counts.

Both read the folder as torchvision's ImageFolder does, apply RandomResizedCrop(H, W) +
RandomHorizontalFlip + ToTensor to each sample on the workers, collate batches into pinned memory and copy
them to the GPU (pinscope: `run --dataset folder:DIR --pin-mode direct`, its simulated GPU unless
--device cuda; PyTorch: DataLoader(pin_memory=True) and .to("cuda", non_blocking=True) when CUDA is
there). Prints samples/s for each. Makes DIR with N generated 500x375 JPEGs (PIL) when it is missing.

  python3 tools/folder_vs_pytorch.py --pinscope build/app/pinscope --folder /tmp/jpegs --workers 0 2 4 8
"""
import argparse
import json
import os
import subprocess
import time

import torch


def make_folder(folder, count, width=500, height=375):
    from PIL import Image
    import numpy as np
    os.makedirs(os.path.join(folder, "all"), exist_ok=True)
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:height, 0:width]
    for i in range(count):
        base = ((x * (1 + i % 3) + y * 2) // 3 + ((x - width // 2) ** 2 + (y - height // 3) ** 2) // 97 % 2 * 60)
        pixels = np.stack([(base + c * 40 + rng.integers(0, 24, base.shape)) % 256 for c in range(3)], axis=-1)
        Image.fromarray(pixels.astype(np.uint8)).save(os.path.join(folder, "all", f"img{i:05d}.jpg"), quality=85)


def pinscope_rate(binary, folder, workers, seconds, device):
    out = subprocess.run([binary, "run", "--device", device, "--dataset", f"folder:{folder}", "--sample-shape",
                          "3x224x224", "--batch-size", "32", "--num-workers", str(workers), "--pin-mode", "direct",
                          "--kernel-us", "100", "--seconds", str(seconds), "--json"],
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["samples_per_s"], j.get("images", {}).get("decode_p50_us", 0)


def pytorch_rate(folder, workers, seconds):
    from torchvision import datasets, transforms
    transform = transforms.Compose([transforms.RandomResizedCrop((224, 224), antialias=False),
                                    transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    data = datasets.ImageFolder(folder, transform=transform)
    loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=False, num_workers=workers, pin_memory=True,
                                         persistent_workers=workers > 0)
    cuda = torch.cuda.is_available()
    samples, start = 0, None
    while True:
        for batch, _ in loader:
            if cuda:
                batch = batch.to("cuda", non_blocking=True)
            now = time.perf_counter()
            if start is None:  # from the first batch, as pinscope measures
                start = now
                continue
            samples += batch.shape[0]
            if now - start >= seconds:
                if cuda:
                    torch.cuda.synchronize()
                return samples / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pinscope", required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2, 4, 8])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--device", default="sim")
    args = parser.parse_args()
    if not os.path.isdir(args.folder):
        make_folder(args.folder, args.count)
    print(f"{'workers':>8} {'pinscope samples/s':>19} {'decode p50 us':>14} {'PyTorch samples/s':>18} {'ratio':>6}")
    for w in args.workers:
        ours, decode = pinscope_rate(args.pinscope, args.folder, w, args.seconds, args.device)
        theirs = pytorch_rate(args.folder, w, args.seconds)
        print(f"{w:>8} {ours:>19.0f} {decode:>14.0f} {theirs:>18.0f} {ours / theirs:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
