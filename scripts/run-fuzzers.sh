#!/usr/bin/env bash
# Runs each fuzzer named on the command line for FUZZ_SECONDS on a copy of its committed seeds
# (tests/fuzz/corpus/NAME), JOBS of them at a time: each is one process on one core, so on CI's two
# cores two run side by side and the seven take half the wall time they took one after another.
# Any crash, sanitizer report, leak, timeout or out-of-memory fails, leaving its input as
# build-fuzz/fuzz_NAME-crash-* (or -leak-, -timeout-, -oom-) and its log printed.
# Usage: FUZZ_SECONDS=60 JOBS=2 FONT_SEED=/usr/share/fonts/.../DejaVuSans.ttf scripts/run-fuzzers.sh capture config ...
set -uo pipefail
cd "$(dirname "$0")/.."
: "${FUZZ_SECONDS:=60}" "${JOBS:=2}" "${FONT_SEED:=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}"

run_one() {
    local f=$1 max_len=65536
    rm -rf "build-fuzz/corpus-$f" && cp -r "tests/fuzz/corpus/$f" "build-fuzz/corpus-$f" || return 1
    if [ "$f" = font ]; then
        cp "$FONT_SEED" build-fuzz/corpus-font/ || return 1
        max_len=1048576  # fonts are bigger than the other formats' files
    fi
    if UBSAN_OPTIONS=print_stacktrace=1 "./build-fuzz/tests/fuzz/fuzz_$f" -max_total_time="$FUZZ_SECONDS" \
        -rss_limit_mb=2560 -max_len="$max_len" -timeout=10 -artifact_prefix="build-fuzz/fuzz_$f-" \
        "build-fuzz/corpus-$f" > "build-fuzz/fuzz_$f.log" 2>&1; then
        echo "fuzz_$f: $FUZZ_SECONDS s on a copy of tests/fuzz/corpus/$f: $(grep '^Done' "build-fuzz/fuzz_$f.log")"
    else
        echo "fuzz_$f FAILED:"
        grep -v '^#[0-9]' "build-fuzz/fuzz_$f.log"
        return 1
    fi
}
export -f run_one
export FUZZ_SECONDS FONT_SEED

printf '%s\n' "$@" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
