#!/bin/bash
# Quick start: dependencies, a release build, and the main job: the 2013
# cover-letter experiment at 1/8 scale (16 GiB, 2 CPUs, 3 ebizzy instances),
# about ten seconds.  Extra arguments go to `mempower compare`
# (e.g. --scale 1 for the full 128 GiB machine, a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
build/release/mempower compare --experiment cover-letter --scale 0.125 --policies mainline,sorted,split,full "$@"
