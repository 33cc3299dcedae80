#!/bin/bash
# compare --jitter, the timing perturbation of the ebizzy model, and
# scripts/seed-spread.sh, which runs it over seeds: without jitter the seed
# changes nothing in the cover-letter run; jitter 0 is the run without it;
# with jitter the seed changes the run; the script's summary and per-seed
# table, its resume, --sched, and its usage errors.
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/seed-spread.sh"

for j in -0.1 0.6 x "" +0.1 0x1 nan 1e9 0.1,t=4; do
	expect_error 1 "compare: jitter '$j' is malformed or out of range 0..0.5" \
		compare --experiment cover-letter --scale 0.02 --jitter "$j"
done
expect_error 1 "--jitter applies to the cover-letter experiment only" \
	compare --experiment pagetest --jitter 0.1
expect_error 2 "option '--jitter' needs a value" compare --experiment cover-letter --jitter

# drop "host" and each run's "seed": what is left is what the run did
norm() { sed -e '/"host": {/,/}/d' -e '/"seed": /d' "$1"; }
C=(compare --experiment cover-letter --scale 0.02 --policies mainline,full)
for v in plain:1: plain:2: zero:1:0 j:1:0.2 j:2:0.2; do
	IFS=: read -r name seed jit <<<"$v"
	run_mpm "${C[@]}" --seed "$seed" ${jit:+--jitter "$jit"} --json "$TMP/$name-$seed.json"
	expect "[ $rc -eq 0 ]" "compare --seed $seed ${jit:+--jitter $jit}: exit $rc ($err)"
done
expect "cmp -s <(norm '$TMP/plain-1.json') <(norm '$TMP/plain-2.json')" \
	"without jitter the seed changed the cover-letter run"
expect "cmp -s <(norm '$TMP/plain-1.json') <(norm '$TMP/zero-1.json')" \
	"--jitter 0 differs from no --jitter"
expect "! cmp -s <(norm '$TMP/j-1.json') <(norm '$TMP/j-2.json')" \
	"with --jitter 0.2 seeds 1 and 2 gave the same run"
expect "! cmp -s <(norm '$TMP/plain-1.json') <(norm '$TMP/j-1.json')" \
	"--jitter 0.2 changed nothing"
expect "grep -q '\"workload\": \"ebizzy:s=256M,n=2,t=32,S=60,instances=1,jitter=0.2\"' '$TMP/j-1.json'" \
	"the workload string does not name the jitter"

# the script: two seeds, two policies
O="$TMP/ss"
run_script "$SCRIPT" "$O" --seeds 1-2 --jitter 0.2 --scale 0.02 --policies mainline,full
expect "[ $rc -eq 0 ]" "seed-spread.sh: exit $rc ($err)"
expect "[ -s '$O/seed-1.json' ] && [ -s '$O/seed-2.json' ] && [ -s '$O/summary.txt' ]" \
	"seed-spread.sh: outputs missing: $(ls "$O")"
expect "cmp -s <(norm '$O/seed-2.json') <(norm '$TMP/j-2.json')" \
	"seed-spread.sh: seed 2 is not compare --seed 2 --jitter 0.2"
expect "[ \"\$out\" = \"\$(cat '$O/summary.txt')\" ]" "seed-spread.sh: printed table is not summary.txt"
expect "grep -q '^ebizzy:s=256M,n=2,t=32,S=60,instances=1,jitter=0.2; seeds 1,2: 2 runs per policy' <<<\"\$out\"" \
	"seed-spread.sh: header: $(head -1 <<<"$out")"
expect "[ \$(grep -Ec '^(mainline|full) +[0-9.]+ ± [0-9.]+ \\[' <<<\"\$out\") -eq 2 ]" \
	"seed-spread.sh: want one summary line per policy: $out"
expect "grep -Eq '^1 +[0-9]+ +[0-9]+\$' <<<\"\$out\" && grep -Eq '^2 +[0-9]+ +[0-9]+\$' <<<\"\$out\"" \
	"seed-spread.sh: per-seed rows: $out"
# the end figures of the table are the JSON's
end2=$(python3 -c 'import json,sys; print(" ".join(str(r["free_regions"]["end"]) for r in json.load(open(sys.argv[1]))["runs"]))' "$O/seed-2.json")
row2=$(awk '/^per seed, end free regions/ { f = 1; next } /^$/ { f = 0 } f && $1 == 2' <<<"$out" | tr -s ' ')
expect "[ '$row2' = '2 $end2' ]" "seed-spread.sh: seed 2 row '$row2', JSON ends '$end2'"

# the busy regions of seed 2: pcp-only + the rest, and with the free ones
# they add up to the total
busy2=$(awk '/^per seed, busy regions/ { f = 1; next } f && $1 == 2 { print $2, $3 }' <<<"$out")
sum2=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["runs"]:
    pcp = sum(1 for g in r["regions_end"] if g["state"] != "free" and g["held_by"].get("pcp", 0)
              and not any(v for k, v in g["held_by"].items() if k != "pcp"))
    busy = sum(1 for g in r["regions_end"] if g["state"] != "free")
    assert busy + r["free_regions"]["end"] == r["regions_total"], (busy, r["free_regions"], r["regions_total"])
    print("%d+%d" % (pcp, busy - pcp), end=" ")' "$O/seed-2.json")
expect "[ '$busy2 ' = '$sum2' ]" "seed-spread.sh: busy regions of seed 2 '$busy2', JSON '$sum2'"

# a second call finds both seeds done and runs nothing
run_script "$SCRIPT" "$O" --seeds 1-2 --jitter 0.2 --scale 0.02 --policies mainline,full
expect "[ $rc -eq 0 ] && ! grep -q 'seed-spread.sh: seed' <<<\"\$err\"" \
	"seed-spread.sh: resume ran seeds again ($err)"

# a truncated JSON (a sweep killed while writing) is run again; 02 is seed 2
head -c 100 "$O/seed-2.json" > "$O/seed-2.json.cut" && mv "$O/seed-2.json.cut" "$O/seed-2.json"
run_script "$SCRIPT" "$O" --seeds 1,02 --jitter 0.2 --scale 0.02 --policies mainline,full
expect "[ $rc -eq 0 ] && grep -q 'seed-spread.sh: seed 2' <<<\"\$err\" && ! grep -q 'seed 1' <<<\"\$err\"" \
	"seed-spread.sh: truncated seed-2.json: exit $rc ($err)"
expect "cmp -s <(norm '$O/seed-2.json') <(norm '$TMP/j-2.json')" \
	"seed-spread.sh: seed 2 rerun differs"
# a seed run with other options is refused in the summary, not mixed in
run_script "$SCRIPT" "$O" --seeds 1-3 --jitter 0.1 --scale 0.02 --policies mainline,full
expect "[ $rc -eq 1 ] && grep -q 'differ in policies, workload or machine' <<<\"\$err\"" \
	"seed-spread.sh: mixed options: exit $rc ($err)"

# usage errors: exit 2 and a message
for args in "" "$TMP/u --bogus 1" "$TMP/u --seeds" "$TMP/u --seeds 3-1" "$TMP/u --seeds 1,x" \
	"$TMP/u --seeds 1,01" "$TMP/u --seeds 1234567890123456789"; do
	# shellcheck disable=SC2086
	MPM_BIN="$MPM" "$SCRIPT" $args >"$TMP/uout" 2>"$TMP/uerr"
	rc=$?
	expect "[ $rc -eq 2 ] && [ ! -s '$TMP/uout' ] && [ -s '$TMP/uerr' ]" \
		"seed-spread.sh '$args': exit $rc, stderr $(cat "$TMP/uerr")"
done
# mempower's own refusal ends the sweep with its status
run_script "$SCRIPT" "$TMP/bad" --seeds 1 --jitter 0.9 --scale 0.02
expect "[ $rc -eq 1 ] && grep -q 'jitter' <<<\"\$err\" && [ ! -e '$TMP/bad/seed-1.json' ]" \
	"seed-spread.sh --jitter 0.9: exit $rc ($err)"

# --sched reaches every seed's runs; a bad one is mempower's refusal
run_script "$SCRIPT" "$TMP/ss-cfs" --seeds 1 --jitter 0.2 --scale 0.02 --policies mainline --sched cfs
expect "[ $rc -eq 0 ] && grep -q '^ebizzy:s=256M,n=2,t=32,S=60,instances=1,jitter=0.2,sched=cfs; seeds 1:' <<<\"\$out\"" \
	"seed-spread.sh --sched cfs: exit $rc, header $(head -1 <<<"$out") ($err)"
run_script "$SCRIPT" "$TMP/bad-sched" --seeds 1 --scale 0.02 --sched fifo
expect "[ $rc -eq 1 ] && grep -q 'compare: --sched fifo (expected rr or cfs)' <<<\"\$err\"" \
	"seed-spread.sh --sched fifo: exit $rc ($err)"

# a long label (a policy with a switch added) widens the policy columns:
# each per-seed row is as long as its header, 6 + 2 x (1 + 15) characters
O2="$TMP/ss-long"
run_script "$SCRIPT" "$O2" --seeds 1 --jitter 0.2 --scale 0.02 --policies mainline,full+evac_drain
expect "[ $rc -eq 0 ]" "seed-spread.sh with full+evac_drain: exit $rc ($err)"
lens=$(awk '/^per seed, / { f = 1; next } /^$/ { f = 0 } f { printf "%d ", length($0) }' <<<"$out")
expect "[ '$lens' = '$(printf '%d ' 38 38 38 38)' ]" "seed-spread.sh: ragged per-seed tables: $lens: $out"
expect "grep -Eq '^full\+evac_drain +[0-9.]+ +[0-9.]+ ' <<<\"\$out\"" "seed-spread.sh: no full+evac_drain line: $out"

finish
