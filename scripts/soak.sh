#!/bin/bash
# SPDX-License-Identifier: MIT
# Soak the invariants over the configuration space:
#
#   scripts/soak.sh [RUNS] [SEED] [TIMEOUT]
#
# RUNS (default 100) runs of `mempower run --check-every-op`, each with a
# configuration drawn from SEED (default 1): a small machine (one or two
# nodes), region size and alignment, pageblock order, CPUs, policy, a
# feature switch or none, a small workload of each kind (THP on or off),
# duration and run seed.  The checker runs after every allocator call, the
# owner checker after every quantum (README, --check-every-op).  A run
# passes when it exits 0, or 1 with one 'mempower: ' line that is a refusal
# (a switch without the one it needs); anything else -- a broken
# invariant, a lost owner, a crash, a sanitizer report, TIMEOUT seconds
# (default 300) passed -- is printed with its command line and counted.
# Exit status 1 if any run failed.  The binary is the debug preset's
# (ASan + UBSan), built first, or MPM_BIN.
set -uo pipefail
# shellcheck source=scripts/mpm-bin.bash
source "$(dirname "$0")/mpm-bin.bash"	# before the cd: it notes the caller's directory
cd "$(dirname "$0")/.."

RUNS=${1:-100}
SEED=${2:-1}
TIMEOUT=${3:-300}
for n in "$RUNS" "$SEED" "$TIMEOUT"; do
	[[ "$n" =~ ^[0-9]+$ ]] || { echo "usage: scripts/soak.sh [RUNS] [SEED] [TIMEOUT]" >&2; exit 2; }
done
# timeout 0 would mean no limit at all
for n in "$RUNS" "$TIMEOUT"; do
	[ "$n" -gt 0 ] || { echo "usage: scripts/soak.sh [RUNS] [SEED] [TIMEOUT]: RUNS and TIMEOUT must be above 0" >&2; exit 2; }
done
if [ -n "${MPM_BIN:-}" ]; then
	BIN=$MPM_BIN
else
	cmake --preset debug >/dev/null && cmake --build --preset debug --target mempower >/dev/null ||
		exit 1
	BIN=build/debug/mempower
fi

machines=(32M 48M 64M 2x32M)
region_sizes=(4M 8M 16M 32M 512M)
aligns=(node absolute)
policies=(mainline sorted split full)
features=("" "" "" "--features=-region_bias" "--features=+reclaim_clean"
	  "--features=-evac_triggers" "--features=-region_cache" "--features=+no_claim"
	  "--features=+evac_drain")
# Each small enough that a check after every call stays within minutes.
workloads=("churn" "churn:maxorder=3,occupancy=0.8"
	   "ebizzy:s=1M,n=1,t=1,S=1,instances=1,thp=always"
	   "pagetest:size=8M,free=1" "pagetest:size=48M,thp=always" "pagetest:size=80M"
	   "kernbench:jobs=2,files=40,headers=20,includes=8,heap=2M,cpu=2"
	   "kernbench:jobs=3,files=20,headers=10,includes=5,heap=1M,cpu=1,thp=always"
	   "pagecache:files=2,passes=1" "pagecache")

# pick VAR NAME: VAR becomes one element of the array NAME.  No command
# substitution: a subshell would draw from a RANDOM of its own, and the
# same seed would not give the same runs.
pick() {
	local -n out=$1 arr=$2
	out=${arr[RANDOM % ${#arr[@]}]}
}

RANDOM=$SEED
ok=0 refused=0 failed=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for ((i = 1; i <= RUNS; i++)); do
	pick machine machines
	pick region region_sizes
	pick policy policies
	pick feature features
	pick workload workloads
	pick align aligns
	args=(run --machine "$machine" --region-size "$region" --region-align "$align"
	      --pageblock-order $((9 + RANDOM % 2)) --cpus $((1 + RANDOM % 4))
	      --policy "$policy")
	[ -n "$feature" ] && args+=("$feature")
	args+=(--workload "$workload" --duration $((2 + RANDOM % 3))
	       --seed $RANDOM --check-every-op --json /dev/null)
	timeout "$TIMEOUT" "$BIN" "${args[@]}" >/dev/null 2>"$err"
	rc=$?
	if [ $rc -eq 0 ]; then
		ok=$((ok + 1))
	elif [ $rc -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
	     grep -q '^mempower: .* needs ' "$err"; then
		refused=$((refused + 1))
	else
		failed=$((failed + 1))
		echo "soak: run $i failed (exit $rc): $BIN ${args[*]}"
		head -5 "$err" | sed 's/^/    /'
	fi
done
echo "soak: $RUNS runs from seed $SEED: $ok passed, $refused refused, $failed failed"
[ $failed -eq 0 ]
