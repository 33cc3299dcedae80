#!/bin/bash
# scripts/bench-refpad.sh, the reorder-window experiment of
# docs/benchmarks-log.md: it builds its padded binaries, the padding reaches
# ref-buddy's timed loop as exactly 4 adds per unit (plus the 4 register
# zeroings of the block; callgrind), every (pad, size) gets a row, and bad
# usage is one "mempower: bench-refpad.sh:" line with exit 2.  The script
# builds its own Release binaries; the binary under test only names the
# test.  (.bash: registered by tests/CMakeLists.txt for unsanitized
# presets, where valgrind is at home, not globbed with the *.sh tests.)
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/bench-refpad.sh"

expect "command -v valgrind >/dev/null" "valgrind is not installed (scripts/deps.sh installs it)"

MPM_REFPAD_DIR="$TMP/pad" capture 600 "$SCRIPT" --pads 0,3 --size 16M,32M --runs 1 --callgrind
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "bench-refpad.sh: exit $rc, stderr $err"
expect "[ \$(grep -c . '$TMP/out') -eq 5 ] && head -n 1 '$TMP/out' | grep -q '^pad .*mainline/ref\$'" \
	"bench-refpad.sh: not a header and 4 rows: $out"
for n in 0 3; do
	for s in 16M 32M; do
		expect "awk -v n=$n -v s=$s '\$1 == n && \$3 == s && \$4 > 0 && \$5 > 0 { f = 1 } END { exit !f }' '$TMP/out'" \
			"bench-refpad.sh: no row for pad $n at $s: $out"
	done
done
i0=$(awk '$1 == 0 { print $2; exit }' "$TMP/out")
i3=$(awk '$1 == 3 { print $2; exit }' "$TMP/out")
# pad 3: 12 adds and 4 zeroings more per ref-buddy call, one call per op
expect "awk 'BEGIN { d = \"$i3\" - \"$i0\"; exit !(d > 15.5 && d < 16.5) }'" \
	"bench-refpad.sh: pad 3 adds '$i3' - '$i0' instructions per op, not 16"

for args in "--bogus" "--pads" "--pads 1,x" "--runs 0" "--pads -1"; do
	# shellcheck disable=SC2086
	MPM_REFPAD_DIR="$TMP/pad" capture 60 "$SCRIPT" $args
	expect "[ $rc -eq 2 ] && [ -z \"\$out\" ] && [ \$(printf '%s\n' \"\$err\" | wc -l) -eq 1 ] &&
		[[ \"\$err\" == 'mempower: bench-refpad.sh: '* ]]" \
		"bench-refpad.sh $args: exit $rc, stdout '$out', stderr '$err'"
done
finish
