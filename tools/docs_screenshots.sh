#!/usr/bin/env bash
# The screenshots in docs/, made again from the app as built (build/app/pinscope), under Xvfb, on the
# simulated GPU: the README's picture, and the projector settings (1280x720 at text size 2, 1600x900 at
# 1.5, each with the high-contrast theme off and on, the Controls folded to a strip).
set -euo pipefail
cd "$(dirname "$0")/.."
app() { xvfb-run -a -s "-screen 0 1920x1200x24" build/app/pinscope gui --device sim --frames 240 "$@"; }
app --preset pinned-copies --size 1600x900 --screenshot docs/screenshot.png
for setting in "1280x720 2" "1600x900 1.5"; do
    set -- $setting
    app --preset tuned-loader --size "$1" --font-scale "$2" --collapse-controls --screenshot "docs/projector-$1-x$2.png"
    app --preset tuned-loader --size "$1" --font-scale "$2" --collapse-controls --high-contrast \
        --screenshot "docs/projector-$1-x$2-high-contrast.png"
done
