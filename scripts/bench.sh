#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the release preset and run `mempower bench`; arguments go to bench.
#
#   scripts/bench.sh                          # 1G and 16G, mainline, 5 runs
#   scripts/bench.sh --size 16G --runs 9 --json bench.json
#   scripts/bench.sh --callgrind [--size 64M] [--ops 20000] [--policies P]
#
# --callgrind runs each benchmark once per side under valgrind, collecting
# only inside the timed loops (functions timed_ref_* / timed_mpm_*), and
# prints instructions per pair/op: a noise-free figure for comparing changes.
#
# MPM_BUILD_DIR=dir builds there (Release, Ninja) instead of the preset's
# build/release; MPM_BIN=path skips the build and runs that binary.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=scripts/mpm-bin.bash
source "$root/scripts/mpm-bin.bash"

# Instructions per op from callgrind: one valgrind run per benchmark and side
# (pair_empty and pair_frag share their timed loop), collecting only inside
# timed_ref_* or timed_mpm_*, so the program total is that side's cost.
callgrind() {
	local bin=$1 size=64M ops=20000 policies=mainline b side
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--size|--ops|--policies)
			[ $# -ge 2 ] || { echo "mempower: bench.sh: $1 needs a value" >&2; exit 2; } ;;
		esac
		case $1 in
		--size) size=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		--policies) policies=$2; shift 2 ;;
		*) echo "mempower: bench.sh: --callgrind takes --size, --ops, --policies" >&2; exit 2 ;;
		esac
	done
	# callgrind's total is the whole run's: one policy and one size per run
	case $policies in
	*,*) echo "mempower: bench.sh: --callgrind takes one policy at a time" >&2; exit 2 ;;
	esac
	case $size in
	*,*) echo "mempower: bench.sh: --callgrind takes one size at a time" >&2; exit 2 ;;
	esac
	command -v valgrind >/dev/null || { echo "mempower: bench.sh: valgrind not found" >&2; exit 1; }
	tmp=$(mktemp -d)
	trap "rm -rf '$tmp'" EXIT
	printf '%-11s %6s  %-10s %12s\n' benchmark size allocator "instr/op"
	for b in pair_empty lifo pair_frag mixed; do
		for side in ref mpm; do
			valgrind -q --tool=callgrind --toggle-collect="timed_${side}_*" \
				--callgrind-out-file="$tmp/cg.$b.$side" \
				"$bin" bench --bench "$b" --size "$size" --ops "$ops" --runs 1 \
				--policies "$policies" --json "$tmp/$b.json" >/dev/null
		done
		python3 - "$tmp" "$b" <<'EOF'
import json, re, sys
tmp, b = sys.argv[1], sys.argv[2]
res = json.load(open("%s/%s.json" % (tmp, b)))
def total(side):
    for line in open("%s/cg.%s.%s" % (tmp, b, side)):
        m = re.match(r'(summary|totals):\s*(\d+)', line)
        if m:
            return int(m.group(2))
    return 0
for r in res["results"]:
    side = "ref" if r["allocator"] == "ref-buddy" else "mpm"
    print("%-11s %6s  %-10s %12.1f" % (r["benchmark"], r["size"], r["allocator"],
          total(side) / r["ops"]))
EOF
	done
}

bin=$(mpm_bin)		# a failed build stops here (set -e)
if [ "${1:-}" = "--callgrind" ]; then
	shift
	callgrind "$bin" "$@"
else
	exec "$bin" bench "$@"
fi
