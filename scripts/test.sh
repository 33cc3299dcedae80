#!/bin/bash
# The whole test suite: dependencies, then the debug (ASan + UBSan, checker
# after every operation), release and tsan presets, each built and tested.
# Presets to run can be named as arguments: scripts/test.sh debug
set -euo pipefail
cd "$(dirname "$0")/.."

PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(debug release tsan)
JOBS=$(nproc)

scripts/deps.sh
for p in "${PRESETS[@]}"; do
	echo "=== preset $p"
	cmake --preset "$p"
	cmake --build --preset "$p" -j "$JOBS"
	ctest --preset "$p" -j "$JOBS" --timeout 600
done
echo "=== all presets passed: ${PRESETS[*]}"
