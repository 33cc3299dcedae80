#!/bin/bash
# scripts/bench.sh --callgrind, the instruction counts that docs/benchmarks-log.md
# compares changes by: a line per benchmark and allocator with a positive
# count (0 would mean the toggle missed the timed loops), and usage errors
# as one "mempower: bench.sh:" line.  Release builds only: valgrind cannot
# run a sanitized binary.  (.bash: registered by tests/CMakeLists.txt, not
# globbed with the *.sh tests.)
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/bench.sh"

expect "command -v valgrind >/dev/null" "valgrind is not installed (scripts/deps.sh installs it)"

run_script "$SCRIPT" --callgrind --size 4M --ops 2000 --policies mainline
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "bench.sh --callgrind: exit $rc, stderr $err"
expect "[ \$(grep -c . '$TMP/out') -eq 9 ] && head -n 1 '$TMP/out' | grep -q '^benchmark .*instr/op\$'" \
	"bench.sh --callgrind: not a header and 8 rows: $out"
for b in pair_empty lifo pair_frag mixed; do
	for a in ref-buddy mainline; do
		n=$(awk -v b="$b" -v a="$a" '$1 == b && $2 == "4M" && $3 == a { print $4 }' "$TMP/out")
		expect "awk 'BEGIN { exit !(\"$n\" + 0 > 10) }'" \
			"bench.sh --callgrind: $b $a: '$n' instructions per op"
	done
done

for args in "--callgrind --bogus" "--callgrind --policies mainline,full" \
	"--callgrind --size 4M,8M" "--callgrind --size" "--callgrind --ops"; do
	# shellcheck disable=SC2086
	run_script "$SCRIPT" $args
	expect "[ $rc -eq 2 ] && [ -z \"\$out\" ] && [ \$(printf '%s\n' \"\$err\" | wc -l) -eq 1 ] &&
		[[ \"\$err\" == 'mempower: bench.sh: '* ]]" \
		"bench.sh $args: exit $rc, stdout '$out', stderr '$err'"
done
# the binary's own refusal comes through, with its exit status
run_script "$SCRIPT" --callgrind --size 4M --policies nosuch
expect "[ $rc -eq 1 ] && [[ \"\$err\" == *\"unknown policy 'nosuch'\"* ]]" \
	"bench.sh --policies nosuch: exit $rc, stderr '$err'"

finish
