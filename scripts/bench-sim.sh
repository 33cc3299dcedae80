#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Wall and user time of the simulator on the cover-letter experiment, the
# figure issue #4's bars are about (full scale <= 60 s, --scale 0.125 <= 5 s,
# mainline).  Builds the release preset unless MPM_BIN names a binary.
#
#   scripts/bench-sim.sh [--scale F[,F...]] [--runs N] [--policies LIST]
#                        [--against BIN]
#
# Default: scales 0.125 and 1, 3 runs each, mainline; prints every run and
# the median, with the run's page faults and its wall time per fault.  With
# --against BIN, each round runs this binary and BIN at the same time, one
# pinned to each of the first two CPUs, swapping CPUs every round: on a
# shared (virtual) host both then see the same neighbours, which makes the
# pair's ratio far steadier than two separate medians.  The script also
# checks that both produce the same results (JSON without "host"), and
# exits 1 after the timings when they do not.
set -euo pipefail
# shellcheck source=scripts/mpm-bin.bash
source "$(dirname "$0")/mpm-bin.bash"	# before the cd: it notes the caller's directory
cd "$(dirname "$0")/.."

scales="0.125,1" runs=3 policies=mainline against="" differ=0
while [ $# -gt 0 ]; do
	case "$1" in
	--scale) scales="$2"; shift 2 ;;
	--runs) runs="$2"; shift 2 ;;
	--policies) policies="$2"; shift 2 ;;
	--against) against=$(mpm_abspath "$2"); shift 2 ;;
	*) echo "mempower: bench-sim.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case "$runs" in ''|*[!0-9]*|0) echo "mempower: bench-sim.sh: --runs $runs (expected a positive count)" >&2; exit 2 ;; esac

bin=$(mpm_bin)
if [ -n "$against" ] && [ ! -x "$against" ]; then
	echo "mempower: bench-sim.sh: --against $against is not an executable" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one timed run: $1 binary, $2 scale, $3 cpu or "", $4 output stem; a run
# that fails is reported with the binary's own error line
timed_run() {
	local pin=() rc=0
	[ -n "$3" ] && pin=(taskset -c "$3")
	TIMEFORMAT="%R %U"
	{ time "${pin[@]}" "$1" compare --experiment cover-letter --scale "$2" \
		--policies "$policies" --jobs 1 --json "$4.json" >/dev/null 2>"$4.err"; } 2>"$4.time" || rc=$?
	if [ "$rc" -ne 0 ]; then
		local msg
		msg=$(head -n 1 "$4.err")
		echo "mempower: bench-sim.sh: $1 failed at scale $2 (exit $rc): ${msg:-no error message}" >&2
		return 1
	fi
}

# page faults of one run (every policy's), and wall time per fault in ns:
# the figure that compares scales and hosts (docs/benchmarks.md)
faults() { grep -o '"faults": [0-9]*' "$1" | awk '{ n += $2 } END { print n + 0 }'; }
per_fault() { awk "BEGIN { if ($2 > 0) printf \"%.1f\", $1 * 1e9 / $2; else print \"-\" }"; }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# the same results: the JSON apart from "host", as tests/cli compare them
strip_host() { sed '/"host": {/,/}/d' "$1"; }
same_results() { cmp -s <(strip_host "$1") <(strip_host "$2"); }

echo "binary $bin, policies $policies, $runs run(s) per scale${against:+, paired with $against}"
for scale in ${scales//,/ }; do
	: >"$tmp/a" ; : >"$tmp/b"
	for r in $(seq "$runs"); do
		if [ -z "$against" ]; then
			timed_run "$bin" "$scale" "" "$tmp/run"
			read -r wall user <"$tmp/run.time"
			nf=$(faults "$tmp/run.json")
			echo "scale $scale run $r: wall $wall s, user $user s, $nf page faults, $(per_fault "$wall" "$nf") ns wall per fault"
			echo "$wall $user" >>"$tmp/a"
		else
			ca=$(( r % 2 )) cb=$(( (r + 1) % 2 ))
			# the binary started first can be the faster by a third
			# on this kind of host (an A/A pair: docs/benchmarks-log.md,
			# "Prefetch hints in the sorted lists' pop order"), so the
			# start order alternates with the CPUs
			if (( r % 2 )); then
				timed_run "$bin" "$scale" "$ca" "$tmp/ra" & pa=$!
				timed_run "$against" "$scale" "$cb" "$tmp/rb" & pb=$!
			else
				timed_run "$against" "$scale" "$cb" "$tmp/rb" & pb=$!
				timed_run "$bin" "$scale" "$ca" "$tmp/ra" & pa=$!
			fi
			ra=0 rb=0
			wait "$pa" || ra=$?
			wait "$pb" || rb=$?
			[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] || exit 1
			if ! same_results "$tmp/ra.json" "$tmp/rb.json"; then
				echo "scale $scale run $r: the two binaries' results differ"
				differ=1
			fi
			read -r wa ua <"$tmp/ra.time"
			read -r wb ub <"$tmp/rb.time"
			nf=$(faults "$tmp/ra.json")
			echo "scale $scale run $r: this $wa s wall / $ua s user, against $wb s / $ub s; $nf page faults"
			echo "$wa $ua" >>"$tmp/a"
			echo "$wb $ub" >>"$tmp/b"
		fi
	done
	mw=$(cut -d' ' -f1 "$tmp/a" | median) mu=$(cut -d' ' -f2 "$tmp/a" | median)
	echo "scale $scale median: wall $mw s, user $mu s, $(per_fault "$mw" "$nf") ns wall per fault"
	if [ -n "$against" ]; then
		bw=$(cut -d' ' -f1 "$tmp/b" | median) bu=$(cut -d' ' -f2 "$tmp/b" | median)
		echo "scale $scale against median: wall $bw s, user $bu s (ratio this/against, user: $(awk "BEGIN { printf \"%.3f\", $mu / $bu }"))"
	fi
	case "$scale" in
	1|1.0) bar=60 ;;
	0.125) bar=5 ;;
	*) bar="" ;;
	esac
	if [ -n "$bar" ] && [ "$policies" = mainline ]; then
		if awk "BEGIN { exit !($mw <= $bar) }"; then st=met; else st=missed; fi
		echo "bar: scale $scale mainline <= $bar s wall: $st ($mw s)"
	fi
done
# the timings stand, but they compared different work: not a clean pair
if [ "$differ" -ne 0 ]; then
	echo "mempower: bench-sim.sh: the two binaries' results differ (JSON without \"host\")" >&2
	exit 1
fi
