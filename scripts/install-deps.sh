#!/usr/bin/env bash
# Installs the Debian 12 packages pinscope builds with, when any is missing. The CUDA toolkit is not
# among them: the build uses it when /usr/local/cuda is there and runs on the simulated GPU otherwise.
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config make          # build
    clang-format                                   # the layout check of `make test`
    nlohmann-json3-dev libcli11-dev libfmt-dev     # core and command line
    libzstd-dev                                    # compressed captures
    libsimdjson-dev zlib1g-dev                     # PyTorch profiler traces (.json, .json.gz)
    python3-torch python3-pytest                   # the tests of python/pinscope_loader (CPU torch)
    libturbojpeg0-dev libpng-dev                   # real images on the workers (dataset=folder:PATH)
    doctest-dev                                    # tests
    clang-14 libclang-rt-14-dev                    # the fuzzers of `make test-fuzz` (libFuzzer)
    libimgui-dev libglfw3-dev libgl-dev libfreetype-dev libstb-dev fonts-dejavu-core  # desktop app
    xvfb xauth                                     # desktop app tests without a display
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "pinscope: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "pinscope: need root to install ${missing[*]}; run 'apt-get install ${missing[*]}' as root, then make again." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
