#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every simulation that docs/experiments.md quotes, one command after the
# other, each writing its printed table (NAME.txt) and its JSON (NAME.json)
# into OUTDIR, with the wall time of each in OUTDIR/times.  Rerun it after
# any change that moves the simulator's results, then update the docs from
# OUTDIR: the command behind each file is in OUTDIR/commands.
#
#   scripts/experiments.sh OUTDIR [--quick] [--only NAME[,NAME...]]
#
# --quick skips the full-scale runs (the rest takes about twelve minutes; all
# of it about 115 minutes on 2 CPUs).  --only runs the named steps (each
# name must be one; a selection that leaves nothing to run is refused).
# Builds the release preset unless MPM_BIN names a binary.  Seed 1, as the
# docs, but for the seed-spread sweeps.
set -euo pipefail
# shellcheck source=scripts/mpm-bin.bash
source "$(dirname "$0")/mpm-bin.bash"	# before the cd: it notes the caller's directory
cd "$(dirname "$0")/.."

usage() {
	echo "usage: scripts/experiments.sh OUTDIR [--quick] [--only NAME[,NAME...]]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
out=$(mpm_abspath "$1")
shift
quick=0 only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; shift ;;
	--only) [ $# -ge 2 ] || usage; only=",$2,"; shift 2 ;;
	*) echo "mempower: experiments.sh: unknown option $1" >&2; usage ;;
	esac
done


ALL=mainline,sorted,split,full
POWER3=ddr3-1600,ddr4-2400,ddr4-3200

# timed NAME FULLSCALE LOGGED CMD...: step NAME runs CMD unless --only or
# --quick leaves it out; LOGGED goes to OUTDIR/commands, the time to times
timed() {
	local name="$1" full="$2" logged="$3" start end
	shift 3
	[ "$dry" = 0 ] || names="$names$name,"
	[ -z "$only" ] || [[ "$only" == *",$name,"* ]] || return 0
	[ "$quick" = 0 ] || [ "$full" = 0 ] || return 0
	if [ "$dry" = 1 ]; then
		runnable=$((runnable + 1))
		return 0
	fi
	echo "$name: $logged" >> "$out/commands"
	echo "experiments.sh: $name" >&2
	start=$(date +%s.%N)
	"$@"
	end=$(date +%s.%N)
	awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN { printf "%s %.1f s\n", n, b - a }' >> "$out/times"
}

compare_into() {
	local name="$1"
	shift
	"$bin" compare --seed 1 "$@" --json "$out/$name.json" > "$out/$name.txt"
}

spread_into() {
	local name="$1"
	shift
	MPM_BIN="$bin" scripts/seed-spread.sh "$out/$name" "$@" > /dev/null
}

# run NAME FULLSCALE ARGS...: one compare into NAME.txt / NAME.json
run() {
	timed "$1" "$2" "mempower compare --seed 1 ${*:3}" compare_into "$1" "${@:3}"
}

# spread NAME FULLSCALE ARGS...: scripts/seed-spread.sh into OUTDIR/NAME
spread() {
	timed "$1" "$2" "scripts/seed-spread.sh OUTDIR/$1 ${*:3}" spread_into "$1" "${@:3}"
}

CL=(--experiment cover-letter)

# Every step in order (the body is left unindented: the lines are long).
steps() {

# The four rows, THP never and always, with the DRAM power model
run cl-0.125 0 "${CL[@]}" --scale 0.125 --policies $ALL --power $POWER3
run cl-0.125-thp 0 "${CL[@]}" --scale 0.125 --thp always --policies $ALL
run cl-1 1 "${CL[@]}" --policies $ALL --power $POWER3
run cl-1-thp 1 "${CL[@]}" --thp always --policies $ALL
# Ablations (full's includes the evacuation thresholds 8, 128, 512, any)
run split-ablation-0.125 0 "${CL[@]}" --scale 0.125 --policies split --ablation
run full-ablation-0.125 0 "${CL[@]}" --scale 0.125 --policies full --ablation
run split-ablation-1 1 "${CL[@]}" --policies split --ablation
run full-ablation-1 1 "${CL[@]}" --policies full --ablation
run full-ablation-1-thp 1 "${CL[@]}" --thp always --policies full --ablation
# evac_drain, not in the patchset: kmempowerd drains its pcp lists after a
# round (experiments.md, "Why full ends below split")
run drain-1 1 "${CL[@]}" --policies mainline,split,full,full+evac_drain --power ddr3-1600
run drain-0.125 0 "${CL[@]}" --scale 0.125 --policies mainline,split,full,full+evac_drain \
	--power ddr3-1600
# The power model's other controller policies
run poweroff-1 1 "${CL[@]}" --policies $ALL --power ddr3-1600,ddr4-2400 --power-policy poweroff=1
run force-1 1 "${CL[@]}" --policies $ALL --power $POWER3 --power-policy force=1
run force-0.125 0 "${CL[@]}" --scale 0.125 --policies $ALL --power $POWER3 --power-policy force=1
run split8-0.125 0 "${CL[@]}" --scale 0.125 --policies $ALL --power ddr3-1600 --power-policy split=8
# Priced every 100, 10, 1 ms instead of every second (experiments.md, "How
# fine the pricing is")
for i in 100 10 1; do
	run "interval-$i-1" 1 "${CL[@]}" --policies $ALL --power ddr3-1600 --power-policy interval_ms=$i
	run "interval-$i-0.125" 0 "${CL[@]}" --scale 0.125 --policies $ALL --power ddr3-1600 \
		--power-policy interval_ms=$i
done
run interval-5-0.125 0 "${CL[@]}" --scale 0.125 --policies $ALL --power ddr3-1600 \
	--power-policy interval_ms=5
# Below 0.125: the scales where grouping costs power
for s in 0.02 0.03 0.05 0.0625; do
	run "cl-$s" 0 "${CL[@]}" --scale $s --policies $ALL --power ddr3-1600
done
# CFS's vruntime order instead of round robin (experiments.md, "How much the
# figures depend on the scheduler's wake-ups")
run sched-cfs-1 1 "${CL[@]}" --policies $ALL --power ddr3-1600 --sched cfs
run sched-cfs-0.125 0 "${CL[@]}" --scale 0.125 --policies $ALL --sched cfs
# The v2 experiment
run pagetest 0 --experiment pagetest --policies $ALL
run pagetest-ablation 0 --experiment pagetest --policies split --ablation

# Perturbed timing: the spread over seeds (experiments.md, "How much the
# figures depend on timing"); OUTDIR/NAME/summary.txt holds each table
spread seed-spread-1 1 --seeds 1-5 --jitter 0.05
spread seed-spread-1-drain 1 --seeds 1-5 --jitter 0.05 --policies mainline,full+evac_drain
spread seed-spread-1-cfs 1 --seeds 1-5 --jitter 0.05 --sched cfs
for j in 0.01 0.05 0.2; do
	spread "seed-spread-0.125-$j" 0 --seeds 1-6 --jitter $j --scale 0.125
done
}

# a dry pass first: every --only name must be a step, and something must run
dry=1 names="," runnable=0
steps
dry=0
for n in ${only//,/ }; do
	[[ "$names" == *",$n,"* ]] || {
		echo "mempower: experiments.sh: --only $n: no such step" >&2
		exit 2
	}
done
[ "$runnable" -gt 0 ] || {
	echo "mempower: experiments.sh: nothing to run (--quick leaves out the full-scale steps)" >&2
	exit 2
}

bin=$(mpm_bin)
mkdir -p "$out"
: > "$out/commands"
: > "$out/times"
steps
echo "experiments.sh: done, outputs in $out" >&2
