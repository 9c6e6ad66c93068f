#!/usr/bin/env bash
# Records the profiler-trace fixtures of tests/fixtures/torch-traces/ on a machine with a GPU and torch
# (the GPU machine's torch 2.11): an input-bound run with 0 and 4 workers, pin_memory off and on, and a
# GPU-bound run. Each goes into a folder of its own, as trace.json.gz with pinscope-loader/ beside it.
# Usage: python/record_fixtures.sh OUT_FOLDER [PYTHON]
set -euo pipefail
out=$1
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
record() {
    local name=$1
    shift
    rm -rf "$out/$name"
    mkdir -p "$out/$name"
    "$python" "$here/record_fixture.py" "$@" --out "$out/$name/trace.json.gz"
    echo "$name: $(du -sh "$out/$name" | cut -f1)"
}
record input-w0-pageable --kind input --workers 0 --pin 0 --steps 24
record input-w0-pinned --kind input --workers 0 --pin 1 --steps 24
record input-w4-pageable --kind input --workers 4 --pin 0 --steps 24
record input-w4-pinned --kind input --workers 4 --pin 1 --steps 24
record gpu-w4-pinned --kind gpu --workers 4 --pin 1 --steps 24
