#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The reorder-window experiment of docs/benchmarks-log.md: is `mixed`'s time at
# a large size a matter of memory, or of the instructions between misses?
# Builds one binary per padding N (cmake -DMPM_REF_PAD=N: 4 * N register
# adds, touching no memory, before every ref-buddy call; mempower's side is
# untouched), runs `mempower bench --bench mixed` with each, and prints
# ref-buddy's and mainline's ns/op per size, and with --callgrind
# ref-buddy's instructions per op.
#
#   scripts/bench-refpad.sh                          # pads 0,11,22; 1G,16G; 5 runs
#   taskset -c 1 scripts/bench-refpad.sh --pads 0,22 --size 16G --runs 7 --callgrind
#
# The build is MPM_REFPAD_DIR (default build/refpad), configured again for
# each N, which recompiles only the benchmark; each binary runs right after
# its build.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pads=0,11,22 sizes=1G,16G runs=5 cg=0
dir=${MPM_REFPAD_DIR:-$root/build/refpad}

die() { echo "mempower: bench-refpad.sh: $2" >&2; exit "$1"; }

while [ $# -gt 0 ]; do
	case $1 in
	--pads|--size|--runs)
		[ $# -ge 2 ] || die 2 "$1 needs a value"
		case $1 in
		--pads) pads=$2 ;;
		--size) sizes=$2 ;;
		--runs) runs=$2 ;;
		esac
		shift 2 ;;
	--callgrind) cg=1; shift ;;
	*) die 2 "unknown option '$1' (--pads N,..., --size S,..., --runs N, --callgrind)" ;;
	esac
done
[[ $pads =~ ^[0-9]{1,3}(,[0-9]{1,3})*$ ]] || die 2 "--pads takes a list of integers 0-999, not '$pads'"
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || die 2 "--runs takes an integer 1-999, not '$runs'"
[ "$cg" = 0 ] || command -v valgrind >/dev/null || die 1 "valgrind not found"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() {	# $1 = N; prints the binary
	local b=$dir
	cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
		"-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" -DMPM_REF_PAD="$1" >"$tmp/build.log" 2>&1 &&
		cmake --build "$b" --target mempower >>"$tmp/build.log" 2>&1 ||
		{ tail -n 5 "$tmp/build.log" >&2; die 1 "build with MPM_REF_PAD=$1 failed"; }
	echo "$b/mempower"
}

# ref-buddy's instructions per op in mixed, from callgrind over the timed
# loop only (64M: the count hardly depends on size, see "A size sweep")
ref_instr() {
	valgrind -q --tool=callgrind --toggle-collect='timed_ref_*' \
		--callgrind-out-file="$tmp/cg" "$1" bench --bench mixed --size 64M \
		--ops 100000 --runs 1 --json "$tmp/cg.json" >/dev/null ||
		die 1 "callgrind run failed"
	python3 - "$tmp/cg" <<'EOF'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r'(summary|totals):\s*(\d+)', line)
    if m:
        print("%.1f" % (int(m.group(2)) / 100000))
        break
EOF
}

printf '%-4s %8s %6s %16s %15s %13s\n' pad "ref i/op" size "ref-buddy ns/op" "mainline ns/op" mainline/ref
IFS=, read -ra padlist <<<"$pads"
for n in "${padlist[@]}"; do
	n=$((10#$n))
	bin=$(build "$n")
	instr=-
	[ "$cg" = 0 ] || instr=$(ref_instr "$bin")
	"$bin" bench --bench mixed --size "$sizes" --runs "$runs" --json "$tmp/r.json" \
		>/dev/null 2>"$tmp/err" || die 1 "bench failed: $(head -n 1 "$tmp/err")"
	python3 - "$tmp/r.json" "$n" "$instr" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
n, instr = sys.argv[2], sys.argv[3]
assert res["config"]["ref_pad_adds"] == 4 * int(n), "binary not padded as built"
med = {(r["size"], r["allocator"]): r["median_ns"] for r in res["results"]}
for size in dict.fromkeys(r["size"] for r in res["results"]):
    ref, ml = med[(size, "ref-buddy")], med[(size, "mainline")]
    print("%-4s %8s %6s %16.2f %15.2f %12.2fx" % (n, instr, size, ref, ml, ml / ref))
EOF
done
