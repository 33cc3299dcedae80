#!/bin/bash
# scripts/bench-sim.sh, which times issue #4's simulator bars: every run and
# the median are printed with their page faults and wall time per fault, a
# paired run checks that both binaries' results are the same, and bad usage
# or a failing run is one "mempower: bench-sim.sh:" line and a non-zero exit.
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/bench-sim.sh"

# the page faults the script reports are the run's own
run_mpm compare --experiment cover-letter --scale 0.02 --policies mainline --json "$TMP/cl.json"
faults=$(grep -o '"faults": [0-9]*' "$TMP/cl.json" | awk '{ n += $2 } END { print n + 0 }')
expect "[ $rc -eq 0 ] && [ $faults -gt 0 ]" "compare --scale 0.02: exit $rc, $faults faults"

run_script "$SCRIPT" --scale 0.02 --runs 2
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "bench-sim.sh --runs 2: exit $rc, stderr $err"
for r in 1 2; do
	expect "grep -Eq '^scale 0.02 run $r: wall [0-9.]+ s, user [0-9.]+ s, $faults page faults, [0-9.]+ ns wall per fault\$' '$TMP/out'" \
		"bench-sim.sh: no line for run $r with $faults faults: $out"
done
expect "grep -Eq '^scale 0.02 median: wall [0-9.]+ s, user [0-9.]+ s, [0-9.]+ ns wall per fault\$' '$TMP/out'" \
	"bench-sim.sh: no median line: $out"
# no bar for a scale the issue names no bar for
expect "! grep -q '^bar:' '$TMP/out'" "bench-sim.sh: a bar line at scale 0.02: $out"

# paired with itself: the same results, and a ratio line; two rounds, so
# that each binary is started first once
run_script "$SCRIPT" --scale 0.02 --runs 2 --against "$MPM"
expect "[ $rc -eq 0 ] && ! grep -q differ '$TMP/out'" "bench-sim.sh --against itself: exit $rc: $out $err"
expect "grep -Eq '^scale 0.02 run 1: this .*; $faults page faults\$' '$TMP/out' &&
	grep -Eq '^scale 0.02 run 2: this .*; $faults page faults\$' '$TMP/out' &&
	grep -Eq '^scale 0.02 against median: .*ratio this/against, user: [0-9.]+\\)\$' '$TMP/out'" \
	"bench-sim.sh --against: missing run or ratio line: $out"

# usage errors: exit 2, one line
for args in "--runs 0" "--runs x" "--bogus" "--against $TMP/nonexistent"; do
	# shellcheck disable=SC2086
	run_script "$SCRIPT" $args
	expect "[ $rc -eq 2 ] && [ -z \"\$out\" ] && [ \$(printf '%s\n' \"\$err\" | wc -l) -eq 1 ] &&
		[[ \"\$err\" == 'mempower: bench-sim.sh: '* ]]" \
		"bench-sim.sh $args: exit $rc, stdout '$out', stderr '$err'"
done

# a run that fails: exit 1 and the binary's own message, also when paired
for args in "--scale -1 --runs 1" "--scale 0.02 --runs 1 --against /bin/false"; do
	# shellcheck disable=SC2086
	run_script "$SCRIPT" $args
	expect "[ $rc -eq 1 ] && [ \$(printf '%s\n' \"\$err\" | wc -l) -eq 1 ] &&
		[[ \"\$err\" == 'mempower: bench-sim.sh: '*' failed at scale '* ]]" \
		"bench-sim.sh $args: exit $rc, stderr '$err'"
done
expect "[[ \"\$err\" == *'no error message' ]]" "bench-sim.sh against /bin/false: $err"
run_script "$SCRIPT" --scale -1 --runs 1
expect "[[ \"\$err\" == *'mempower: compare: scale -1 '* ]]" \
	"bench-sim.sh --scale -1 does not pass the binary's message on: $err"

finish
