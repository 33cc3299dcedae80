#!/bin/bash
# Explore a fuzz target with libFuzzer:
#
#   scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]
#
# TARGET is machine_json, run_options, layout or power (tests/fuzz/fuzz_TARGET.c); SECONDS
# defaults to 300.  Builds the fuzz preset (clang, ASan + UBSan, libFuzzer)
# in build/fuzz, starts from a copy of tests/fuzz/corpus/TARGET in
# build/fuzz/corpus-TARGET (new inputs collect there, not in the tree) and
# leaves any crash input in build/fuzz/.  Once its bug is fixed, a crash
# input goes into tests/fuzz/corpus/TARGET, where every test run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${1:?usage: scripts/fuzz.sh machine_json|run_options|layout|power [SECONDS] [libFuzzer options]}
SECONDS_MAX=${2:-300}
# a libFuzzer option in SECONDS' place would become -max_total_time=-runs=...
case $SECONDS_MAX in
'' | *[!0-9]* | 0) echo "fuzz.sh: SECONDS '$SECONDS_MAX' is not a positive number (options come after it)" >&2; exit 2 ;;
esac
shift $(($# < 2 ? $# : 2))
[ -f "tests/fuzz/fuzz_$TARGET.c" ] || { echo "fuzz.sh: no target '$TARGET'" >&2; exit 2; }

scripts/deps.sh clang libclang-rt-14-dev
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "fuzz_$TARGET"
work=build/fuzz/corpus-$TARGET
mkdir -p "$work"
cp -n tests/fuzz/corpus/"$TARGET"/* "$work"/
dict=()
[ -f tests/fuzz/"$TARGET".dict ] && dict=(-dict=tests/fuzz/"$TARGET".dict)
# -timeout catches a hang, not a slow input: run_options' kernel-model runs
# are bounded (3 virtual seconds on at most 16 cpus) but not cheap under ASan:
# ebizzy with 2 MiB buffers on 4 cpus for 3 s, 5.3 M faults, takes 0.8 s in
# the release build and 31 s here (a 20 s limit reported it as a timeout)
exec build/fuzz/tests/"fuzz_$TARGET" -max_total_time="$SECONDS_MAX" -timeout=180 \
	-rss_limit_mb=4096 "${dict[@]}" -artifact_prefix=build/fuzz/ "$@" "$work"
