#!/bin/bash
# Good runs: help, version, the summary, JSON and CSV outputs, stats, and
# byte-identical results for equal seeds.
source "$(dirname "$0")/lib.bash" "$1"

run_mpm --help
expect "[ $rc -eq 0 ]" "--help: exit $rc"
expect "[[ \"\$out\" == *sandybridge-128g* ]]" "--help does not list the presets"
expect "[[ \"\$out\" == *'--region-align node|absolute'* ]]" "--help misses --region-align"
run_mpm run --help
expect "[ $rc -eq 0 ] && [[ \"\$out\" == usage:* ]]" "run --help"
run_mpm --version
expect "[ $rc -eq 0 ] && [[ \"\$out\" =~ ^mempower\ [0-9]+\.[0-9]+\.[0-9]+$ ]]" "--version: '$out'"

# summary on stdout; stderr stays quiet when it is not a terminal
run_mpm run --machine 2x256M --region-size 16M --workload churn --duration 2
expect "[ $rc -eq 0 ]" "run: exit $rc ($err)"
expect "[ -z \"\$err\" ]" "run: stderr not empty: $err"
expect "[[ \"\$out\" == *'policy    mainline'* ]]" "summary lacks the policy"
expect "[[ \"\$out\" == *'regions   free: start 33, end'* ]]" "summary lacks free regions: $out"

# churn: an explicit ops is taken as given; the default has a floor of 256
run_mpm run --machine 64M --workload churn:ops=10 --duration 1
expect "[[ \"\$out\" == *'1 virtual s, 10 ops'* ]]" "churn:ops=10: $out"
run_mpm run --machine 64M --workload churn --duration 1
expect "[[ \"\$out\" == *'1 virtual s, 256 ops'* ]]" "churn default on 64M: $out"

# an existing, longer file is replaced whole: the JSON that results parses
python3 -c "print('x' * 100000)" >"$TMP/long.json"
run_mpm run --machine 64M --duration 1 --json "$TMP/long.json"
expect "[ $rc -eq 0 ] && python3 -c 'import json; json.load(open(\"$TMP/long.json\"))'" \
	"run over a longer existing file left it unparsable"

# a summary that cannot be written (stdout full) is a failure, said once
if [ -w /dev/full ]; then
	timeout 120 "$MPM" run --machine 64M --duration 1 >/dev/full 2>"$TMP/full-err"
	rc=$?
	expect "[ $rc -eq 1 ] && grep -q 'cannot write the outputs' '$TMP/full-err'" \
		"run > /dev/full: exit $rc, $(cat "$TMP/full-err")"
fi

# numa_zonelist_order: 3.12's default is zone order on 2 x 8G, node order
# where node 0 is mostly DMA32 (2 x 4G); --zonelist-order overrides it
for c in "2x8G default zone" "2x4G default node" "2x8G node node" "2x4G zone zone"; do
	set -- $c
	run_mpm run --machine "$1" --zonelist-order "$2" --workload none --json -
	expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"zonelist_order\": \"$3\"'* ]]" \
		"run --machine $1 --zonelist-order $2: want $3"
done

# workload none: the boot state, every region free
run_mpm run --machine 1G --region-size 64M --workload none
expect "[[ \"\$out\" == *'free: start 17, end 17, min 17 of 17'* ]]" "none: $out"
expect "[[ \"\$out\" == *'workload  none: the state after boot (one sample, t = 0)'* ]]" "none: $out"

# JSON to a file and to stdout, CSV to a file
J=(run --machine 2x256M --region-size 16M --cpus 3 --workload churn:ops=5000 --duration 3)
run_mpm "${J[@]}" --seed 5 --json "$TMP/a.json" --csv "$TMP/a.csv"
expect "[ $rc -eq 0 ]" "run --json FILE: exit $rc ($err)"
expect "grep -q '\"schema\": \"mempower.result/1\"' '$TMP/a.json'" "JSON lacks the schema"
for key in mem_bytes page_size region_bytes nodes zones start_pfn spanned present managed \
	   regions policy features workload seed regions_total free_regions series counters \
	   allocs frees alloc_failures fallbacks pageblock_claims pa_to_ra ra_to_pa migrated \
	   reclaimed evacuations regions_end state host wall_seconds mixed_regions mixed_regions_end \
	   pageblocks region_bias_splits zonelist_order; do
	expect "grep -q '\"$key\":' '$TMP/a.json'" "JSON lacks \"$key\""
done
expect "[ \"\$(head -1 '$TMP/a.csv')\" = 't,free_regions,used_pages,pcp_pages,free_unmovable,free_reclaimable,free_movable,free_reserve,free_isolate' ]" \
	"CSV header"
expect "[ \$(wc -l <'$TMP/a.csv') -eq 5 ]" "CSV: want header + 4 samples"
run_mpm "${J[@]}" --seed 5 --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == '{'* ]] && [[ \"\$out\" != *'policy    '* ]]" \
	"--json - must print only the JSON"

# --csv -: stdout holds the CSV alone, as --json - holds the JSON alone
run_mpm "${J[@]}" --seed 5 --csv -
expect "[ $rc -eq 0 ] && [ \"\$out\" = \"\$(cat '$TMP/a.csv')\" ]" "--csv - must print only the CSV: $out"

# churn's samples carry the ideal packing of their used pages (it was 0)
ideal=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["runs"][0]["series"]
bad = [x for x in s if not x["free_regions"] <= x["ideal_free_regions"]]
print("ok" if s and not bad and s[-1]["ideal_free_regions"] > 0 else "bad: %r" % (bad or s[-1:]))' \
	"$TMP/a.json" 2>&1)
expect "[ '$ideal' = ok ]" "churn ideal_free_regions: $ideal"

# a kernel-model run of no whole second: the minimum still counts the end
run_mpm run --machine 1G --duration 0 --workload ebizzy:s=8M,t=2,S=1 --json "$TMP/d0.json"
d0=$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["runs"][0]["free_regions"]
print("ok" if f["min"] <= min(f["start"], f["end"]) else "bad: %r" % f)' "$TMP/d0.json" 2>&1)
expect "[ $rc -eq 0 ] && [ '$d0' = ok ]" "duration 0: $d0 ($err)"

# on a terminal the progress line is wiped however the run ends (this
# pagetest ends at t = 3 of 10), before the summary starts its line
# (skipped where script(1) is missing or cannot open a pseudo-terminal)
if command -v script >/dev/null && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	checks=$((checks + 1))
	timeout 120 script -qec "$MPM run --machine 64M --workload pagetest:size=1G" /dev/null \
		</dev/null >"$TMP/tty" 2>&1
	grep -q $'\r\033\[Kmachine ' "$TMP/tty" ||
		fail "the progress line was not wiped before the summary: $(tr '\r\033' '^~' <"$TMP/tty" | head -3)"
else
	echo "test_cli_run: no pseudo-terminal here; the progress-line check is skipped"
fi

# strings that are not UTF-8, or were cut in the middle of a character,
# keep their keys in the JSON (jansson refused them, and the key was lost)
printf '{ "nodes": [ { "zones": [ { "type": "normal", "start": "16M", "end": "64M" } ] } ],
  "description": "%s" }\n' "$(printf '\303\251%.0s' {1..80})" >"$TMP/"$'\xff'".json"
run_mpm run --machine "$TMP/"$'\xff'".json" --workload none --json "$TMP/u.json"
keys=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))["machine"]
print("ok" if m["spec"].endswith("\ufffd.json") and m["description"] == "\u00e9" * 63 else "bad: %r" % m)' \
	"$TMP/u.json" 2>&1)
expect "[ $rc -eq 0 ] && [ '$keys' = ok ]" "UTF-8 in the result JSON: $keys ($err)"

# same seed: identical apart from "host"; another seed: different
strip_host() { sed '/"host": {/,/}/d' "$1"; }
run_mpm "${J[@]}" --seed 5 --json "$TMP/b.json"
run_mpm "${J[@]}" --seed 6 --json "$TMP/c.json"
expect "cmp -s <(strip_host '$TMP/a.json') <(strip_host '$TMP/b.json')" "same seed, different JSON"
expect "! cmp -s <(strip_host '$TMP/a.json') <(strip_host '$TMP/c.json')" "different seeds, same JSON"
expect "! cmp -s '$TMP/a.json' <(strip_host '$TMP/a.json')" "strip_host removed nothing"

# policies and switches: the JSON names the switches that were on
run_mpm "${J[@]}" --policy sorted --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"features\": ['*'\"sorted_freelists\",'*'\"region_bias\"'* ]]" \
	"sorted: features in JSON: $err"
run_mpm "${J[@]}" --policy sorted --features=-region_bias --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"sorted_freelists\"'* ]] && [[ \"\$out\" != *'region_bias\"'* ]]" \
	"--features -region_bias: $err"
run_mpm "${J[@]}" --policy sorted --features none --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"features\": []'* ]]" "--features none: $err"

# a machine file runs like the preset it spells out
run_mpm run --machine "$DATA/good-sandybridge.json" --workload none
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'2 nodes, 128.00 GiB'* ]]" "machine file: $out $err"

# stats
run_mpm stats --machine 1G --region-size 64M --workload none
expect "[ $rc -eq 0 ] && [[ \"\$out\" == 'Node 0, zone      DMA'* ]]" "stats buddyinfo: $out"
run_mpm stats --machine 1G --region-size 64M --duration 1 --format all
for what in 'Page block order: 10' 'Number of blocks type' 'pages free' 'nr_free_pages'; do
	expect "[[ \"\$out\" == *'$what'* ]]" "stats --format all lacks '$what'"
done
# thp=always raises min_free_kbytes (set_recommended_min_free_kbytes), as
# compare --thp always does: DMA32's min watermark of a 2G machine, in pages
dma32_min() {
	run_mpm stats --machine 2G --workload "pagetest:size=8M,thp=$1" --format zoneinfo
	printf '%s\n' "$out" | awk '/zone +DMA32/ { z = 1 } z && $1 == "min" { print $2; exit }'
}
min_never=$(dma32_min never)
min_always=$(dma32_min always)
# 1024 × 2 zones × (2 + 3 × 3) pages of 4 KiB, DMA32's share of it
expect "[ \"$min_never\" -gt 0 ] && [ \"$min_always\" -gt \$((10 * min_never)) ]" \
	"thp=always left min_free_kbytes alone: DMA32 min $min_never, with THP $min_always"

# spawning ebizzy's workers OOM-kills its process: fork gives up, no worker
# starts in the dead mm, and the run ends (it hung)
capture 60 "$MPM" run --machine 64M --workload ebizzy:s=62M,n=1,t=16,S=1 --duration 10 --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"oom_kills\": 1'* ]]" \
	"ebizzy OOM-killed while spawning: exit $rc, $(printf '%s' "$out" | grep -o '"oom_kills": [0-9]*') $err"
# a run of 0 s: its packing is that of its only sample, t = 0
run_mpm run --machine 2G --workload ebizzy:s=8M,n=2,t=4,S=2 --duration 0 --json -
expect "[ $rc -eq 0 ] && python3 -c 'import json, sys
p = json.load(sys.stdin)[\"runs\"][0][\"packing_efficiency\"]
sys.exit(p[\"min\"] != p[\"mean\"] or p[\"min\"] <= 0)' <<<\"\$out\"" \
	"duration 0: packing_efficiency min and mean differ ($rc, $err)"

# a gap of 8 TiB between nodes costs address space, not memory: the page
# array's untouched entries are not committed (MAP_NORESERVE)
cat >"$TMP/gap.json" <<'EOF'
{"nodes":[{"zones":[{"type":"Normal","start":"16M","end":"48M"}]},
 {"zones":[{"type":"Normal","start":"8T","end":"8200G"}]}],"region_size":"32M"}
EOF
# (a host with strict overcommit or an address-space ulimit refuses the
# 32 GiB mapping all the same: nothing to check there)
if [ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" != 2 ] && [ "$(ulimit -v)" = unlimited ]; then
	run_mpm run --machine "$TMP/gap.json" --workload none
	expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'2 nodes'* ]]" "an 8 TiB gap between nodes: exit $rc, $err"
fi

finish
