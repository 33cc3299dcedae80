#!/bin/bash
# mempower compare: bad input (exit status and one "mempower: ..." line, no
# run started), the pagetest and a tiny cover-letter experiment, equal seeds
# giving equal JSON; and the ebizzy workload through mempower run.
source "$(dirname "$0")/lib.bash" "$1"

# usage errors: exit 2
expect_error 2 "compare: --experiment is required" compare
expect_error 2 "compare: --experiment is required" compare --scale 0.5
expect_error 2 "unknown option '--bogus'" compare --experiment pagetest --bogus
expect_error 2 "unknown option '--bogus'" compare --experiment pagetest --bogus=1
expect_error 2 "unknown argument 'extra'" compare --experiment pagetest extra
expect_error 2 "option '--experiment' needs a value" compare --experiment
expect_error 2 "option '--json' needs a value" compare --experiment pagetest --json
expect_error 2 "option '--scale' needs a value" compare --experiment cover-letter --scale

# bad values: exit 1
expect_error 1 "unknown experiment 'ebizzy' (expected cover-letter or pagetest)" \
	compare --experiment ebizzy
expect_error 1 "unknown experiment ''" compare --experiment=
for s in abc 0x1 "" 0.5x " 0.5" inf nan 1e-400; do
	expect_error 1 "malformed scale '$s'" compare --experiment cover-letter --scale "$s"
done
for s in 0 -0.5 1.5 1e3; do
	expect_error 1 "scale $s is out of range (0, 1]" compare --experiment cover-letter --scale "$s"
done
# 64 GiB x scale must keep one 512 MiB region a node: 0.0078125 is the least
expect_error 1 "scale 0.005 leaves no 512 MiB region per node" \
	compare --experiment cover-letter --scale 0.005
expect_error 1 "scale 0.0078 leaves no 512 MiB region per node" \
	compare --experiment cover-letter --scale 0.0078
expect_error 1 "unknown policy 'fastest'" compare --experiment pagetest --policies fastest
expect_error 1 "unknown policy 'fastest'" compare --experiment pagetest --policies mainline,fastest
expect_error 1 "empty policy list" compare --experiment pagetest --policies ""
for l in , full, ,full mainline,,full; do
	expect_error 1 "empty policy name in '$l'" compare --experiment pagetest --policies "$l"
done
expect_error 1 "policy 'mainline' given twice" \
	compare --experiment pagetest --policies mainline,full,mainline
expect_error 1 "invalid seed '1x'" compare --experiment pagetest --seed 1x
expect_error 1 "invalid seed '-1'" compare --experiment pagetest --seed -1
expect_error 1 "invalid seed '9223372036854775808'" \
	compare --experiment pagetest --seed 9223372036854775808
expect_error 1 "--thp sometimes (expected always or never)" \
	compare --experiment pagetest --thp sometimes
expect_error 1 "compare: --sched fifo (expected rr or cfs)" \
	compare --experiment pagetest --sched fifo
expect_error 2 "option '--sched' needs a value" compare --experiment pagetest --sched
for j in 0 x -1 193 1.5 ""; do
	expect_error 1 "compare: --jobs $j (expected 1 to 192)" compare --experiment pagetest --jobs "$j"
done
expect_error 2 "option '--jobs' needs a value" compare --experiment pagetest --jobs
expect_error 1 "compare: --zonelist-order z (expected default, node or zone)" \
	compare --experiment pagetest --zonelist-order z

# Unwritable outputs fail at once, before the full-size cover-letter run
# (minutes) could start, and leave nothing behind.
mkdir "$TMP/dir"
start=$SECONDS
expect_error 1 "cannot write JSON file '$TMP/nodir/r.json': No such file or directory" \
	compare --experiment cover-letter --json "$TMP/nodir/r.json"
expect_error 1 "cannot write JSON file '$TMP/dir': Is a directory" \
	compare --experiment cover-letter --json "$TMP/dir"
expect_error 1 "cannot write CSV file '/etc/passwd/r.csv': Not a directory" \
	compare --experiment cover-letter --csv /etc/passwd/r.csv
expect_error 1 "cannot write CSV file '$TMP/nodir/r.csv'" \
	compare --experiment cover-letter --json "$TMP/ok.json" --csv "$TMP/nodir/r.csv"
expect "[ \$((SECONDS - start)) -le 5 ]" "unwritable outputs took $((SECONDS - start)) s to fail"
expect "[ ! -e '$TMP/ok.json' ]" "a failed compare left its JSON file behind"
# an input error is reported before any output file is touched
echo keep >"$TMP/keep.json"
expect_error 1 "unknown policy" compare --experiment pagetest --policies nope --json "$TMP/keep.json"
expect "[ \"\$(cat '$TMP/keep.json')\" = keep ]" "an input error clobbered the output file"
# a compare that fails once its outputs are open (here: no memory for the
# machine) leaves files that were there as they were, and removes its own
echo keep >"$TMP/keep.csv"
rm -f "$TMP/new.csv"
MEMPOWER_MEMORY_LIMIT=1M expect_error 1 "more than the 1 MiB that MEMPOWER_MEMORY_LIMIT allows" \
	compare --experiment cover-letter --scale 0.01 --json "$TMP/keep.json" --csv "$TMP/keep.csv"
expect "[ \"\$(cat '$TMP/keep.json' '$TMP/keep.csv')\" = \"keep
keep\" ]" "a failed compare emptied or removed files it did not create"
MEMPOWER_MEMORY_LIMIT=1M expect_error 1 "MEMPOWER_MEMORY_LIMIT allows" \
	compare --experiment cover-letter --scale 0.01 --json "$TMP/keep.json" --csv "$TMP/new.csv"
expect "[ ! -e '$TMP/new.csv' ]" "a failed compare left the CSV file it created"

# help
run_mpm compare --help
expect "[ $rc -eq 0 ] && [[ \"\$out\" == 'usage: mempower compare'* ]] && [ -z \"\$err\" ]" \
	"compare --help: exit $rc, '$out' '$err'"

# pagetest: a table with one column per size; JSON with one run per size
run_mpm compare --experiment pagetest
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "pagetest: exit $rc ($err)"
expect "[[ \"\$out\" == 'pagetest, mainline: free pages per region'* ]]" "pagetest title: $out"
expect "printf '%s\n' \"\$out\" | grep -Eq '^zone +region +present +512M +1024M +2048M$'" \
	"pagetest header: $out"
expect "[ \$(printf '%s\n' \"\$out\" | grep -Ec '^(DMA|DMA32|Normal) ') -gt 10 ]" \
	"pagetest: too few region rows: $out"
# --sched cfs reaches every run's workload string; rr, the default, adds nothing
run_mpm compare --experiment pagetest --sched cfs --json -
expect "[ $rc -eq 0 ] && [ \$(printf '%s\n' \"\$out\" | grep -c '\"workload\": \"pagetest:size=[0-9]*[MG],hold=1,sched=cfs\"') -eq 3 ]" \
	"pagetest --sched cfs: exit $rc, workloads $(printf '%s\n' "$out" | grep '"workload"')"
run_mpm compare --experiment pagetest --sched rr --json -
expect "[ $rc -eq 0 ] && ! printf '%s\n' \"\$out\" | grep -q 'sched='" \
	"pagetest --sched rr: exit $rc, a sched key in the workload"
run_mpm compare --experiment pagetest --json -
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "pagetest --json -: exit $rc ($err)"
expect "[[ \"\$out\" == '{'* ]] && [[ \"\$out\" != *'free pages per region'* ]]" \
	"pagetest --json - must print only the JSON"
expect "[[ \"\$out\" == *'\"schema\": \"mempower.result/1\"'* ]]" "pagetest JSON lacks the schema"
# a name for the file stdout writes is stdout: the JSON alone, as with -
run_mpm compare --experiment pagetest --json /dev/stdout
expect "[ $rc -eq 0 ] && [[ \"\$out\" == '{'* ]] && [[ \"\$out\" != *'free pages per region'* ]]" \
	"pagetest --json /dev/stdout must print only the JSON (exit $rc)"
expect "[ \$(printf '%s\n' \"\$out\" | grep -c '\"policy\": \"mainline\"') -eq 3 ]" \
	"pagetest JSON: want 3 runs"
for size in 512M 1G 2G; do
	expect "[[ \"\$out\" == *'\"workload\": \"pagetest:size=$size,hold=1\"'* ]]" \
		"pagetest JSON lacks the $size run"
done

# cover-letter, scaled down to 1.28 GiB a node: JSON, CSV, the table
C=(compare --experiment cover-letter --scale 0.02)
start=$SECONDS
run_mpm "${C[@]}" --json "$TMP/a.json" --csv "$TMP/a.csv"
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "cover-letter: exit $rc ($err)"
expect "[ \$((SECONDS - start)) -le 60 ]" "cover-letter --scale 0.02 took $((SECONDS - start)) s"
expect "[[ \"\$out\" == 'cover-letter experiment, scale 0.02: 2 nodes'* ]]" "cover-letter title: $out"
expect "printf '%s\n' \"\$out\" | grep -Eq '^policy +start +end +min +regions +ideal +pack.min +pack.mean +mixed +oom +published'" \
	"cover-letter header: $out"
expect "printf '%s\n' \"\$out\" | grep -Eq '^mainline( +[0-9.]+){9} +214 -> 8 \\(3.12-rc2\\)$'" \
	"cover-letter mainline row: $out"
expect "[[ \"\$out\" == *'mainline, free regions each second:'* ]]" "cover-letter series: $out"
# an ablation variant has no published figure: '-', as a user's variant
run_mpm compare --experiment cover-letter --scale 0.02 --policies sorted --ablation
expect "printf '%s\n' \"\$out\" | grep -Eq '^sorted-region_bias( +[0-9.]+){9} +-$'" \
	"cover-letter ablation row: $(printf '%s\n' "$out" | grep '^sorted-region_bias')"
expect "grep -q '\"schema\": \"mempower.result/1\"' '$TMP/a.json'" "cover-letter JSON lacks the schema"
expect "[ \$(grep -c '\"policy\": ' '$TMP/a.json') -eq 1 ]" "cover-letter JSON: want 1 run"
expect "grep -q '\"workload\": \"ebizzy:s=256M,n=2,t=32,S=60,instances=1\"' '$TMP/a.json'" \
	"cover-letter JSON: workload string"
expect "grep -A2 '\"series\": \\[' '$TMP/a.json' | grep -q '\"t\": 0.0'" \
	"cover-letter JSON: empty series"
expect "[[ \"\$(head -1 '$TMP/a.csv')\" == policy,workload,t,free_regions,ideal_free_regions* ]]" \
	"cover-letter CSV header: $(head -1 "$TMP/a.csv")"
expect "[ \$(wc -l <'$TMP/a.csv') -ge 3 ]" "cover-letter CSV: too few samples"
# the workload string has commas, so it is quoted
expect "! tail -n +2 '$TMP/a.csv' | grep -Evq '^mainline,\"ebizzy:s=256M,n=2,t=32,S=60,instances=1\",[0-9]+(,[0-9]+){5}\$'" \
	"cover-letter CSV rows: $(sed -n 2p "$TMP/a.csv")"

# same seed: identical apart from "host"; the table goes to stdout either way.
# The second run has the allocator and owner checkers on at every sample:
# they must find nothing and change nothing.
strip_host() { sed '/"host": {/,/}/d' "$1"; }
run_mpm "${C[@]}" --check --json "$TMP/b.json"
expect "[ $rc -eq 0 ]" "cover-letter again, with --check: exit $rc ($err)"
expect "cmp -s <(strip_host '$TMP/a.json') <(strip_host '$TMP/b.json')" "same seed, different JSON"
expect "! cmp -s '$TMP/a.json' <(strip_host '$TMP/a.json')" "strip_host removed nothing"

# runs execute on --jobs threads at once: the results do not depend on it
P=(--policies mainline,sorted,full)
run_mpm "${C[@]}" "${P[@]}" --jobs 1 --json "$TMP/j1.json"
expect "[ $rc -eq 0 ]" "--jobs 1: exit $rc ($err)"
out1=$out
run_mpm "${C[@]}" "${P[@]}" --jobs 3 --json "$TMP/j3.json"
expect "[ $rc -eq 0 ]" "--jobs 3: exit $rc ($err)"
expect "[ \"\$out\" = \"\$out1\" ]" "--jobs 3 printed another table than --jobs 1"
expect "cmp -s <(strip_host '$TMP/j1.json') <(strip_host '$TMP/j3.json')" "--jobs 3 changed the JSON"
expect "[ \$(grep -c '\"policy\": ' '$TMP/j3.json') -eq 3 ]" "--jobs 3: want 3 runs"

# memory for one of these machines at a time: --jobs 3 runs them one after
# another (MEMPOWER_MEMORY_LIMIT stands in for a small host), same results
MEMPOWER_MEMORY_LIMIT=1M run_mpm "${C[@]}" "${P[@]}" --jobs 3
need=$(sed -n 's/^mempower: compare: the machine needs about \([0-9]*\) MiB of memory.*/\1/p' <<<"$err")
expect "[ $rc -eq 1 ] && [ -n '$need' ]" "compare with 1M of memory: exit $rc ($err)"
# just over one machine: the workload's tables still fit (mpm_run_table_limit)
MEMPOWER_MEMORY_LIMIT=$((${need:-1} + 1))M run_mpm "${C[@]}" --policies mainline --jobs 3
expect "[ $rc -eq 0 ]" "compare with memory for one machine and 1M: exit $rc ($err)"
MEMPOWER_MEMORY_LIMIT=$((${need:-1} * 3 / 2))M run_mpm "${C[@]}" "${P[@]}" --jobs 3 --json "$TMP/jm.json"
expect "[ $rc -eq 0 ]" "--jobs 3 with memory for one run: exit $rc ($err)"
expect "cmp -s <(strip_host '$TMP/j1.json') <(strip_host '$TMP/jm.json')" \
	"--jobs 3 with memory for one run changed the JSON"

# ebizzy through mempower run
run_mpm run --workload ebizzy:s=8M,n=2,t=4,S=2,instances=2 --machine 2G --duration 20 --json -
expect "[ $rc -eq 0 ] && [ -z \"\$err\" ]" "run ebizzy: exit $rc ($err)"
expect "[[ \"\$out\" == '{'* ]] && [[ \"\$out\" == *'\"schema\": \"mempower.result/1\"'* ]]" \
	"run ebizzy: not a result JSON"
expect "[[ \"\$out\" == *'\"workload\": \"ebizzy:s=8M,n=2,t=4,S=2,instances=2\"'* ]]" \
	"run ebizzy: JSON lacks the workload"
expect "[ \$(printf '%s\n' \"\$out\" | grep -c '\"t\": ') -ge 3 ]" "run ebizzy: too few samples"


# --ablation: the policy, then the policy less each switch, with contributions
run_mpm compare --experiment pagetest --policies split --ablation
expect "[ $rc -eq 0 ]" "pagetest --ablation: exit $rc ($err)"
expect "printf '%s\n' \"\$out\" | grep -q '^ablation of split: free regions'" "no ablation table: $out"
for v in split split-sorted_freelists split-region_bias split-no_claim split-region_allocator \
	 split-ralloc_bias split-region_cache; do
	expect "printf '%s\n' \"\$out\" | grep -Eq '^$v +[0-9]+ +[0-9]+ +[0-9]+ +[-+][0-9]+'" "ablation lacks $v"
done
# less sorted_freelists, every switch that needs it goes too
expect "printf '%s\n' \"\$out\" | grep -Eq '^split-sorted_freelists .* no_claim\$'" "sorted_freelists closure"
run_mpm compare --experiment pagetest --policies mainline --ablation
expect "[ $rc -eq 0 ] && [ \$(printf '%s\n' \"\$out\" | grep -c '^mainline ') -eq 1 ]" \
	"mainline has no switches to ablate: $out"

# with evacuation, the ablation also runs the threshold at 8, 128, 512 and any
run_mpm compare --experiment pagetest --policies full --ablation
for v in full full-evacuation full-evac_triggers full-reclaim_clean 'full@8' 'full@128' 'full@512' 'full@any'; do
	expect "printf '%s\n' \"\$out\" | grep -Eq '^$v +[0-9]+ +[0-9]+ +[0-9]+ +[-+][0-9]+'" "full ablation lacks $v"
done

# two policies: each table holds its own policy's variants, and no other's
# (sorted and split: 30 pagetest runs, which TSan gets through in time)
run_mpm compare --experiment pagetest --policies sorted,split --ablation
misfiled=$(printf '%s\n' "$out" | awk '/^ablation of / { of = $3; sub(":", "", of); next }
	of && $1 ~ /^(sorted|split)([-@]|$)/ { base = $1; sub(/[-@].*/, "", base)
		if (base != of) print $1 " under " of; rows[of]++ }
	END { if (rows["sorted"] != 3 || rows["split"] != 7) print "rows " rows["sorted"] "/" rows["split"] }')
expect "[ $rc -eq 0 ] && [ -z '$misfiled' ]" "ablation of sorted,split: exit $rc, $misfiled"

# a policy with switches added or removed: refused where a switch is unknown,
# needs one the policy lacks, or is none; a removed switch takes those that
# need it, as the ablation's variant of the same name does
expect_error 1 "policy 'full+bogus': unknown switch 'bogus'" \
	compare --experiment pagetest --policies full+bogus
expect_error 1 "policy 'sorted+evac_drain': switch evac_drain needs evacuation" \
	compare --experiment pagetest --policies sorted+evac_drain
expect_error 1 "policy 'full-evacuation+evac_drain': switch evac_drain needs evacuation" \
	compare --experiment pagetest --policies full-evacuation+evac_drain
expect_error 1 "policy 'sorted+evac_trigger_alloc': switch evac_trigger_alloc needs evac_triggers" \
	compare --experiment pagetest --policies sorted+evac_trigger_alloc
expect_error 1 "cannot build the machine: feature evac_trigger_alloc needs sorted_freelists" \
	run --policy mainline --features evacuation,evac_triggers,evac_trigger_alloc --workload none
expect_error 1 "policy 'full+none': 'none' is not a switch here" \
	compare --experiment pagetest --policies full+none
expect_error 1 "policy 'full+': empty or overlong switch name" \
	compare --experiment pagetest --policies full+
expect_error 1 "unknown policy 'fast'" compare --experiment pagetest --policies fast+evac_drain
expect_error 1 "unknown policy ''" compare --experiment pagetest --policies +evac_drain
expect_error 1 "at most 8 policies" compare --experiment pagetest \
	--policies mainline,sorted,split,full,full+evac_drain,full-no_claim,split-no_claim,sorted-region_bias,full-reclaim_clean
expect_error 1 "is longer than 40 characters" compare --experiment pagetest \
	--policies split+evacuation+evac_drain+evac_triggers+reclaim_clean
expect_error 1 "compare: --ablation: more than 64 variants; name fewer policies" \
	compare --experiment pagetest --ablation \
	--policies full,full+evac_drain,full-region_cache+evac_drain,full-no_claim+evac_drain,full-ralloc_bias+evac_drain
expect_error 1 "compare: unknown policy 'abcdefghijklmnopqrst...'" compare --experiment pagetest \
	--policies abcdefghijklmnopqrstuvwxyzabcdefghij
expect_error 1 "compare: --ablation runs 'full-evacuation' of its own: leave it out of --policies" \
	compare --experiment pagetest --policies full,full-evacuation --ablation
expect_error 1 "policy 'full+evac_drain' given twice" \
	compare --experiment pagetest --policies full+evac_drain,full+evac_drain
expect_error 1 "policies 'mainline' and 'mainline-sorted_freelists' name one configuration" \
	compare --experiment pagetest --policies mainline,mainline-sorted_freelists
expect_error 1 "policies 'split' and 'full-evacuation' name one configuration" \
	compare --experiment pagetest --policies split,full-evacuation
# features of a run's JSON, one line per run: "policy: a,b,c"
run_features() {
	python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r["policy"] + ": " + ",".join(r["features"]))' "$1" | sort -u
}
run_mpm compare --experiment pagetest --policies full+evac_drain,full-evacuation --json "$TMP/variant.json"
expect "[ $rc -eq 0 ]" "compare full+evac_drain,full-evacuation: exit $rc ($err)"
want="full+evac_drain: sorted_freelists,region_bias,no_claim,region_allocator,ralloc_bias,region_cache,evac_triggers,evacuation,reclaim_clean,evac_drain
full-evacuation: sorted_freelists,region_bias,no_claim,region_allocator,ralloc_bias,region_cache"
expect "[ \"\$(run_features '$TMP/variant.json')\" = \"\$want\" ]" \
	"variant features: $(run_features "$TMP/variant.json" | tr '\n' ' ')"
run_mpm compare --experiment pagetest --policies full --ablation --json "$TMP/abl.json"
expect "[ \"\$(run_features '$TMP/abl.json' | grep '^full-evacuation:')\" = \
	\"\$(run_features '$TMP/variant.json' | grep '^full-evacuation:')\" ]" \
	"full-evacuation is not the ablation's variant of that name"
# a long label widens the policy column of the cover-letter table
run_mpm compare --experiment cover-letter --scale 0.02 --policies full,full+evac_drain
expect "[ $rc -eq 0 ] && printf '%s\n' \"\$out\" | grep -Eq '^full\+evac_drain +[0-9]+ +[0-9]+ +[0-9]+ .* -\$' && \
	printf '%s\n' \"\$out\" | grep -Eq '^full {12}[0-9 ]+ .*210 -> 202 \(v4\)\$'" \
	"cover-letter table rows for full and full+evac_drain: $out"

# the evacuation threshold: a page count or any
expect_error 1 "malformed evacuation threshold 'x'" compare --experiment pagetest --policies full --evac-threshold x
expect_error 1 "malformed evacuation threshold '0'" compare --experiment pagetest --policies full --evac-threshold 0
# the JSON's integers are signed 64-bit: 2^63 would come out negative
expect_error 1 "malformed evacuation threshold '9223372036854775808'" \
	compare --experiment pagetest --policies full --evac-threshold 9223372036854775808
# --thp always raises min_free_kbytes, and with it every zone's watermarks
# (set_recommended_min_free_kbytes); the machine JSON says what was used
for thp in never always; do
	run_mpm compare --experiment pagetest --policies mainline --thp "$thp" \
		--json "$TMP/thp-$thp.json"
	expect "[ $rc -eq 0 ]" "compare --thp $thp: exit $rc ($err)"
done
got=$(python3 -c 'import json, sys
n, a = (json.load(open(f))["machine"] for f in sys.argv[1:])
zones = lambda m: [z for node in m["nodes"] for z in node["zones"]]
ok = a["min_free_kbytes"] > 10 * n["min_free_kbytes"] > 0 and all(
    0 < zn["wmark_min"] < zn["wmark_low"] < zn["wmark_high"] and za["wmark_min"] > zn["wmark_min"]
    for zn, za in zip(zones(n), zones(a)))
print("ok" if ok else (n["min_free_kbytes"], a["min_free_kbytes"]))' \
	"$TMP/thp-never.json" "$TMP/thp-always.json" 2>&1)
expect "[ '$got' = ok ]" "--thp always: min_free_kbytes and watermarks not raised: $got"

# each run's JSON records the bound it ran with: the given count, null for
# any, 32 without the option (pagetest: three runs per policy)
for t in 8:8 any:None none:32; do
	given=${t%%:*} want=${t#*:}
	opt=()
	[ "$given" = none ] || opt=(--evac-threshold "$given")
	run_mpm compare --experiment pagetest --policies mainline,full "${opt[@]}" \
		--json "$TMP/threshold.json"
	got=$(python3 -c 'import json, sys
print(" ".join(str(r["evac_threshold"]) for r in json.load(open(sys.argv[1]))["runs"]))' \
		"$TMP/threshold.json" 2>&1)
	expect "[ $rc -eq 0 ] && [ '$got' = '$want $want $want $want $want $want' ]" \
		"--evac-threshold $given: exit $rc, evac_threshold $got ($err)"
done

# tables that cannot be written (stdout full) fail, said once, and the JSON
# file the command created goes with them
if [ -w /dev/full ]; then
	timeout 120 "$MPM" compare --experiment pagetest --json "$TMP/full.json" \
		>/dev/full 2>"$TMP/full-err"
	rc=$?
	expect "[ $rc -eq 1 ] && grep -q 'cannot write the outputs' '$TMP/full-err' && \
		[ \$(wc -l < '$TMP/full-err') -eq 1 ] && [ ! -e '$TMP/full.json' ]" \
		"compare > /dev/full: exit $rc, $(cat "$TMP/full-err")"
fi

finish
