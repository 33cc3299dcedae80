#!/bin/bash
# docs/result-json.md names every key of the mempower.result/1 JSON: small
# runs that together write every key the writer (src/io/result_json.c) can
# emit, each key's name looked up in the page as a backquoted word.
source "$(dirname "$0")/lib.bash" "$1"
DOC=$(cd "$(dirname "$0")/../../docs" && pwd)/result-json.md

expect "[ -f '$DOC' ]" "$DOC is missing"

# Each configuration adds keys the others lack:
#   none            the boot state: no region is busy
#   churn           held_by (busy regions)
#   full + ebizzy   kernel, owner/content_mismatches, packing_efficiency,
#                   end_t, the kernel model's and the region allocator's figures
#   compare cover-letter with mainline and two memspecs: power_other and the
#                   saving_* / net_saving_w / system_w keys
#   compare pagetest: three runs per policy, system_share null
# (--power-policy interval_ms adds no key, so no run sets it.)
n=0
run_one() {
	n=$((n + 1))
	run_mpm "$@" --json "$TMP/r$n.json"
	expect "[ $rc -eq 0 ] && [ -s '$TMP/r$n.json' ]" "mempower $*: exit $rc ($err)"
}
run_one run --machine 2G --workload none
run_one run --machine 2G --workload churn --duration 2
run_one run --machine 2G --policy full --workload ebizzy:s=8M,n=2,t=4,S=2 --duration 6
run_one compare --experiment cover-letter --scale 0.02 --policies mainline,full \
	--power ddr3-1600,ddr4-2400
run_one compare --experiment pagetest

# Every key path, array elements as one path (runs[].series[].free_pages.movable),
# into paths; into missing, those whose key name (the path's last part) is
# not a backquoted word of the page.  No object here has a data-dependent
# key set: the migratetype maps (free_pages, pageblocks), the state maps
# (energy_by_state_j, time_by_state_s) and by_use have fixed spellings, so
# each of their keys is checked like any other.
python3 - "$DOC" "$TMP/paths" "$TMP/missing" "$TMP"/r*.json 2>"$TMP/py-err" <<'PY'
import json, re, sys

doc, paths_out, missing_out, results = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
named = set(re.findall(r"`([^`\n]+)`", open(doc, encoding="utf-8").read()))
paths = {}

def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "." + k if p else k
            paths[q] = k
            walk(x, q)
    elif isinstance(v, list):
        for x in v:
            walk(x, p + "[]")

for f in results:
    walk(json.load(open(f)), "")
with open(paths_out, "w") as f:
    f.writelines(p + "\n" for p in sorted(paths))
with open(missing_out, "w") as f:
    f.writelines(p + "\n" for p in sorted(paths) if paths[p] not in named)
PY
expect "[ $? -eq 0 ] && [ -s '$TMP/paths' ]" "cannot collect the key paths: $(cat "$TMP/py-err")"
expect "[ $(wc -l <"$TMP/paths") -gt 250 ]" "only $(wc -l <"$TMP/paths") key paths collected"

# The runs must still reach the keys that only some cases write, or a
# missing row could pass unseen.
for p in runs[].regions_end[].held_by.anon runs[].kernel.kmempowerd_cpu_seconds \
	runs[].packing_efficiency.mean runs[].end_t runs[].power_other[].per_domain[].window \
	runs[].power.saving_vs_mainline_pct runs[].power.system_w runs[].host.wall_seconds; do
	expect "grep -qxF '$p' '$TMP/paths'" "no configuration wrote $p any more"
done

expect "[ ! -s '$TMP/missing' ]" \
	"docs/result-json.md does not name these keys: $(tr '\n' ' ' <"$TMP/missing")"

finish
