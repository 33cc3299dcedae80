#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the release preset and run `mempower bench`; arguments go to bench.
#
#   scripts/bench.sh                          # 1G and 16G, mainline, 5 runs
#   scripts/bench.sh --size 16G --runs 9 --json bench.json
#   scripts/bench.sh --callgrind [--size 64M] [--ops 20000] [--policies P]
#
# --callgrind runs each benchmark once under valgrind, collecting only inside
# the timed loops (functions timed_*), and prints instructions per pair/op
# for every allocator: a noise-free figure for comparing changes.
#
# MPM_BUILD_DIR=dir builds there (Release, Ninja) instead of the preset's
# build/release; MPM_BIN=path skips the build and runs that binary.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

build() {
	if [ -n "${MPM_BIN:-}" ]; then
		echo "$MPM_BIN"
		return
	fi
	if [ -n "${MPM_BUILD_DIR:-}" ]; then
		cmake -S "$root" -B "$MPM_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
			-DMPM_WERROR=ON >&2
		cmake --build "$MPM_BUILD_DIR" --target mempower >&2
		echo "$MPM_BUILD_DIR/mempower"
		return
	fi
	(cd "$root" && cmake --preset release >&2 && cmake --build --preset release --target mempower >&2)
	echo "$root/build/release/mempower"
}

# Instructions per op from callgrind: one valgrind run per benchmark, since
# pair_empty and pair_frag share their timed loop.
callgrind() {
	local bin=$1 size=64M ops=20000 policies=mainline tmp b
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--size) size=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		--policies) policies=$2; shift 2 ;;
		*) echo "mempower: bench.sh: --callgrind takes --size, --ops, --policies" >&2; exit 2 ;;
		esac
	done
	case $policies in
	*,*) echo "mempower: bench.sh: --callgrind takes one policy at a time" >&2; exit 2 ;;
	esac
	command -v valgrind >/dev/null || { echo "mempower: bench.sh: valgrind not found" >&2; exit 1; }
	tmp=$(mktemp -d)
	trap "rm -rf '$tmp'" EXIT
	printf '%-11s %6s  %-10s %12s\n' benchmark size allocator "instr/op"
	for b in pair_empty lifo pair_frag mixed; do
		valgrind -q --tool=callgrind --toggle-collect='timed_*' \
			--callgrind-out-file="$tmp/cg.$b" \
			"$bin" bench --bench "$b" --size "$size" --ops "$ops" --runs 1 \
			--policies "$policies" --json "$tmp/$b.json" >/dev/null
		callgrind_annotate --inclusive=yes "$tmp/cg.$b" >"$tmp/$b.txt"
		python3 - "$tmp/$b.json" "$tmp/$b.txt" <<'EOF'
import json, re, sys
res = json.load(open(sys.argv[1]))
ir = {}
for line in open(sys.argv[2]):
    m = re.match(r'\s*([\d,]+)\s.*\btimed_(ref|mpm)_\w+', line)
    if m:
        ir[m.group(2)] = ir.get(m.group(2), 0) + int(m.group(1).replace(',', ''))
for r in res["results"]:
    kind = "ref" if r["allocator"] == "ref-buddy" else "mpm"
    print("%-11s %6s  %-10s %12.1f" % (r["benchmark"], r["size"], r["allocator"],
          ir.get(kind, 0) / r["ops"]))
EOF
	done
}

if [ "${1:-}" = "--callgrind" ]; then
	shift
	callgrind "$(build)" "$@"
else
	exec "$(build)" bench "$@"
fi
