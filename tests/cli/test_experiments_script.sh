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

# OUTDIR relative to the caller's directory, not the repository's
(cd "$TMP" && MPM_BIN="$MPM" timeout 300 "$SCRIPT" rel --only pagetest 2>/dev/null)
expect "[ $? -eq 0 ] && [ -s '$TMP/rel/pagetest.txt' ]" "experiments.sh rel: not in the caller's directory"
# a failed build stops the script: it does not run an old binary
mkdir -p "$TMP/fake"
printf '#!/bin/sh\nexit 1\n' >"$TMP/fake/cmake"
chmod +x "$TMP/fake/cmake"
PATH="$TMP/fake:$PATH" MPM_BUILD_DIR="$TMP/b" timeout 60 "$SCRIPT" "$TMP/f" --only pagetest 2>/dev/null
expect "[ $? -ne 0 ] && [ ! -e '$TMP/f/pagetest.txt' ]" "experiments.sh went on after a failed build"

# --quick leaves the full-scale runs out (checked with --only, to stay
# short): with only cl-1 named nothing is left to run, which is refused,
# and so is a name that is no step
MPM_BIN="$MPM" timeout 60 "$SCRIPT" "$TMP/q" --quick --only cl-1 2>"$TMP/q.err"
expect "[ $? -eq 2 ] && [ ! -e '$TMP/q/cl-1.txt' ] && grep -q 'nothing to run' '$TMP/q.err'" \
	"experiments.sh --quick --only cl-1: $(cat "$TMP/q.err")"
MPM_BIN="$MPM" timeout 60 "$SCRIPT" "$TMP/q" --only pagetest,typo-name 2>"$TMP/q.err"
expect "[ $? -eq 2 ] && [ ! -e '$TMP/q/pagetest.txt' ] && grep -q 'only typo-name: no such step' '$TMP/q.err'" \
	"experiments.sh --only typo-name: $(cat "$TMP/q.err")"

# usage errors: exit 2 and the usage line
for args in "" "$TMP/u --bogus" "$TMP/u --only"; do
	# shellcheck disable=SC2086
	MPM_BIN="$MPM" "$SCRIPT" $args >"$TMP/uout" 2>"$TMP/uerr"
	rc=$?
	expect "[ $rc -eq 2 ] && [ ! -s '$TMP/uout' ] && grep -q 'usage: scripts/experiments.sh' '$TMP/uerr'" \
		"experiments.sh '$args': exit $rc, stderr $(cat "$TMP/uerr")"
done

finish
