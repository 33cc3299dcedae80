#!/bin/bash
# Quick start: dependencies, a release build, and the main job on the
# cover-letter machine (seconds).  Extra arguments go to `mempower run`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
build/release/mempower run --machine sandybridge-128g --workload churn --duration 10 "$@"
