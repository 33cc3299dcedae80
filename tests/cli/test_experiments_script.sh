#!/bin/bash
# scripts/experiments.sh, which regenerates the docs' figures: each run's
# table and JSON land in OUTDIR with its command and time, the table is what
# the logged command prints, and bad usage is refused.
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/experiments.sh"

MPM_BIN="$MPM" timeout 300 "$SCRIPT" "$TMP/o" --only pagetest,cl-0.02 2>"$TMP/err"
rc=$?
expect "[ $rc -eq 0 ]" "experiments.sh --only: exit $rc ($(cat "$TMP/err"))"
for f in pagetest.txt pagetest.json cl-0.02.txt cl-0.02.json; do
	expect "[ -s '$TMP/o/$f' ]" "experiments.sh: $f missing or empty"
done
expect "[ \$(wc -l < '$TMP/o/times') -eq 2 ] && grep -q '^pagetest [0-9.]* s\$' '$TMP/o/times'" \
	"experiments.sh: times: $(cat "$TMP/o/times")"
expect "[ ! -e '$TMP/o/cl-1.txt' ]" "experiments.sh --only ran a run it was not asked for"
# the logged command prints the same table
cmd=$(sed -n 's/^pagetest: mempower //p' "$TMP/o/commands")
# shellcheck disable=SC2086
run_mpm $cmd
expect "[ $rc -eq 0 ] && [ \"\$out\" = \"\$(cat '$TMP/o/pagetest.txt')\" ]" \
	"experiments.sh: pagetest.txt differs from 'mempower $cmd'"
expect "head -c 100 '$TMP/o/pagetest.json' | grep -q '\"schema\": \"mempower.result/1\"'" \
	"experiments.sh: pagetest.json is not a mempower.result/1 document"

# --quick leaves the full-scale runs out (checked with --only, to stay short)
MPM_BIN="$MPM" timeout 60 "$SCRIPT" "$TMP/q" --quick --only cl-1 2>/dev/null
expect "[ $? -eq 0 ] && [ ! -e '$TMP/q/cl-1.txt' ] && [ ! -s '$TMP/q/times' ]" \
	"experiments.sh --quick ran cl-1"

# usage errors: exit 2 and the usage line
for args in "" "$TMP/u --bogus" "$TMP/u --only"; do
	# shellcheck disable=SC2086
	MPM_BIN="$MPM" "$SCRIPT" $args >"$TMP/uout" 2>"$TMP/uerr"
	rc=$?
	expect "[ $rc -eq 2 ] && [ ! -s '$TMP/uout' ] && grep -q 'usage: scripts/experiments.sh' '$TMP/uerr'" \
		"experiments.sh '$args': exit $rc, stderr $(cat "$TMP/uerr")"
done

finish
