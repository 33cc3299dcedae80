#!/bin/bash
# The DRAM power model on the command line (issue #8): `power --list`, the
# "power" object of run and compare, the compare power table, determinism,
# and bad memspecs and policies.
source "$(dirname "$0")/lib.bash" "$1"

# power --list: currents and per-state power of a preset
run_mpm power --memspec ddr3-1600 --list
expect "[ $rc -eq 0 ]" "power --list: exit $rc ($err)"
for what in 'memspec ddr3-1600 (MICRON_2Gb_DDR3-1600_16bit_D.json)' '= 256 MiB' \
	    'holds 2 devices' 'IDD2N 42' 'self-refresh           IDD6          18.00' \
	    'precharge standby      IDD2N         63.00          68.32' \
	    'precharge power-down   IDD2P         18.00          25.21' \
	    'an access waits 25.00 ns after power-down (DLL off: tXPDLL), 640.0 ns after self-refresh' \
	    'refresh  (IDD5 - IDD3N) x VDD x tRFC / tREFI = 5.231 mW'; do
	expect "[[ \"\$out\" == *'$what'* ]]" "power --list lacks '$what': $out"
done
run_mpm power --list --memspec=ddr4-3200
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'VPP 2.5 V'* ]] && [[ \"\$out\" == *'0.5 devices'* ]]" \
	"power --list ddr4-3200: $out"
run_mpm power --list --memspec "$DATA/good-memspec-ddr3.json"
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'hand-typed DDR3-1600'* ]]" "power --list file: $out $err"

# errors
expect_error 1 "unknown memspec 'ddr9'" power --memspec ddr9 --list
expect_error 2 "power: nothing to do" power --memspec ddr3-1600
expect_error 2 "power: unknown option '--bogus'" power --bogus
expect_error 2 "power: option '--memspec' needs a value" power --list --memspec
expect_error 1 "--power: unknown memspec 'lpddr2'" run --workload none --power lpddr2
expect_error 1 "bad-memspec-negative.json: mempowerspec.idd2p0: negative (-12)" \
	run --workload none --power "$DATA/bad-memspec-negative.json"
expect_error 1 "mempowerspec.idd6: missing" run --workload none --power "$DATA/bad-memspec-missing.json"
expect_error 1 "IDD6 50 > IDD2N 42: self-refresh above precharge standby" \
	run --workload none --power "$DATA/bad-memspec-idd6.json"
expect_error 1 "mempowerspec.idd3n1: unknown unit 'mW'" \
	run --workload none --power "$DATA/bad-memspec-unit.json"
expect_error 1 "bad-memspec-syntax.json: line" run --workload none --power "$DATA/bad-memspec-syntax.json"
expect_error 1 "mempowerspec.idd3n1: expected a number or a \"<number> <unit>\" string" \
	run --workload none --power "$DATA/bad-memspec-type.json"
expect_error 1 "bad-memspec-toplevel.json: expected a JSON object" \
	run --workload none --power "$DATA/bad-memspec-toplevel.json"
expect_error 1 "missing.json" run --workload none --power "$TMP/missing.json"
expect_error 1 "--power-policy: unknown key 'idle'" run --workload none --power-policy idle=3
expect_error 1 "--power-policy: malformed value 'soon' for sr" run --workload none --power-policy sr=soon
expect_error 1 "--power-policy: poweroff=3 is out of range" run --workload none --power-policy poweroff=3
expect_error 2 "option '--power' needs a value" run --power
# beyond any DRAM or controller: the model's energies would overflow
expect_error 1 "idd0 1e+308: out of range (at most 10000)" \
	run --workload none --power "$DATA/bad-memspec-huge.json"
expect_error 1 "rows 8388608" run --workload none --power "$DATA/bad-memspec-rows.json"
expect_error 1 "--power-policy: kernel_hz=1e308 is out of range (at most 1e+10)" \
	run --workload none --power-policy kernel_hz=1e308
expect_error 1 "--power-policy: sr=1e127 is out of range (at most 1e+09)" \
	run --workload none --power-policy sr=1e127
expect_error 1 "--power-policy: split=3 is not a power of two from 1 to 4096" \
	run --workload none --power-policy split=3
expect_error 1 "--power-policy: interval_ms=3 is not a whole number of ms dividing 1000" \
	run --workload none --power-policy interval_ms=3
expect_error 1 "--power-policy: group and split cannot both be above 1" \
	run --workload none --power-policy group=2,split=2
expect_error 1 "split=1024: a domain would be smaller than a pageblock" \
	run --workload none --machine 2G --power-policy split=1024
run_mpm run --workload none --machine 2G --duration 2 --power-policy split=4 --json -
expect "[ $rc -eq 0 ] && grep -q '\"domains_per_region\": 4' <<<\"\$out\"" "split=4: exit $rc, JSON $out"
expect_error 1 "compare: at most 3 memspecs" compare --experiment cover-letter \
	--power "ddr3-1600,ddr4-2400,ddr4-3200,$DATA/good-memspec-ddr3.json"
expect_error 1 "compare: memspec 'ddr4-2400' given twice" compare --experiment cover-letter \
	--power ddr4-2400,ddr3-1600,ddr4-2400
for l in ddr3-1600, ,ddr3-1600 ddr3-1600,,ddr4-2400; do
	expect_error 1 "compare: empty memspec name in '$l'" compare --experiment cover-letter --power "$l"
done
for l in force=1, ,force=1 pd=64,,sr=15; do
	expect_error 1 "--power-policy: empty key=value in '$l'" run --workload none --power-policy "$l"
done
expect_error 1 "--power: unknown memspec 'x'" compare --experiment cover-letter --power x

# run: the "power" object, and the summary line
W=(run --machine 2G --workload ebizzy:s=16M,n=2,t=2,S=2 --duration 10 --seed 3)
run_mpm "${W[@]}" --json "$TMP/a.json"
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'power     ddr3-1600: DRAM '* ]]" "run summary: $out $err"
for key in power memspec dram_energy_j dram_avg_w energy_by_state_j time_by_state_s \
	   self_refresh migration_energy_j system_share per_domain pages_read by_use domain_s \
	   self_refresh_s touched idle; do
	expect "grep -q '\"$key\"' '$TMP/a.json'" "run JSON lacks \"$key\""
done
expect "grep -q '\"pages_read\": [1-9]' '$TMP/a.json'" "ebizzy read no page"
# determinism: byte-identical apart from "host"
strip_host() { sed '/"host": {/,/}/d' "$1"; }
run_mpm "${W[@]}" --json "$TMP/b.json"
expect "cmp -s <(strip_host '$TMP/a.json') <(strip_host '$TMP/b.json')" "same seed, different power JSON"
# interval_ms: 1000 is the default, byte for byte; 10 prices every 10 ms,
# which moves the figures, and each domain's states still fill the run
run_mpm "${W[@]}" --json "$TMP/i1000.json" --power-policy interval_ms=1000
expect "cmp -s <(strip_host '$TMP/a.json') <(strip_host '$TMP/i1000.json')" \
	"interval_ms=1000 is not the default"
run_mpm "${W[@]}" --json "$TMP/i10.json" --power-policy interval_ms=10
expect "[ $rc -eq 0 ] && grep -Eq '\"interval_ms\": 10,?$' '$TMP/i10.json'" "interval_ms=10 not in the JSON"
expect "grep -Eq '\"poweron_us\": 700(\\.0)?,?$' '$TMP/i10.json'" "the controller lacks poweron_us"

i10=$(python3 -c 'import json, sys
a, b = (json.load(open(f))["runs"][0]["power"] for f in sys.argv[1:3])
for d in b["per_domain"]:
    assert abs(sum(d["time_by_state_s"].values()) - b["duration_s"]) < 1e-6, d
# the same accesses, only cut finer; the kernel lines counted off the rate
for k in ("duration_s", "pages_read", "pages_written", "lines"):
    assert a[k] == b[k], (k, a[k], b[k])
assert abs(a["access_energy_j"] - b["access_energy_j"]) <= 1e-9 * a["access_energy_j"], \
    ("access J", a["access_energy_j"], b["access_energy_j"])
print("same" if a["time_by_state_s"] == b["time_by_state_s"] else "moved")' "$TMP/a.json" "$TMP/i10.json" 2>&1)
expect "[ '$i10' = moved ]" \
	"interval_ms=10: the pricing did not change, lost or gained accesses, or a domain's states do not fill the run: $i10"
# a burst, then an idle machine: the idle time is skipped only up to the
# next tick, so a finer interval still confines the burst's accesses (they
# were spread over the whole second when skip_idle jumped past the ticks)
P=(run --machine 1G --duration 3 --workload pagetest:size=600M,free=1,hold=1)
run_mpm "${P[@]}" --json "$TMP/p1000.json"
run_mpm "${P[@]}" --json "$TMP/p250.json" --power-policy interval_ms=250
p250=$(python3 -c 'import json, sys
a, b = (json.load(open(f))["runs"][0]["power"] for f in sys.argv[1:3])
assert a["pages_read"] == b["pages_read"] and a["lines"] == b["lines"]
print("less" if b["dram_avg_w"] < a["dram_avg_w"] else "not less: %r against %r" % (b["dram_avg_w"], a["dram_avg_w"]))' \
	"$TMP/p1000.json" "$TMP/p250.json" 2>&1)
expect "[ '$p250' = less ]" "interval_ms=250 after a burst: DRAM power $p250"
# the kernel's lines into reserved memory (kernel_hz) add up to the same
# whatever the interval: priced every millisecond, the access energy is the
# per-second one (a line per domain lost to rounding at most)
run_mpm compare --experiment cover-letter --scale 0.02 --policies mainline --json "$TMP/k1000.json"
run_mpm compare --experiment cover-letter --scale 0.02 --policies mainline \
	--power-policy interval_ms=1 --json "$TMP/k1.json"
k1=$(python3 -c 'import json, sys
a, b = (json.load(open(f))["runs"][0]["power"] for f in sys.argv[1:3])
assert any(d["kernel"] for d in a["per_domain"]), "no reserved-memory domain"
for k in ("pages_read", "pages_written", "lines"):
    assert a[k] == b[k], (k, a[k], b[k])
rel = abs(a["access_energy_j"] - b["access_energy_j"]) / a["access_energy_j"]
print("ok" if rel < 1e-6 else "access J %r against %r" % (a["access_energy_j"], b["access_energy_j"]))' \
	"$TMP/k1000.json" "$TMP/k1.json" 2>&1)
expect "[ '$k1' = ok ]" "interval_ms=1: the accesses, kernel lines included, do not add up: $k1"
expect_error 1 "--power-policy interval_ms: workload churn is priced per second only" \
	run --machine 2G --workload churn --duration 2 --power-policy interval_ms=10
expect_error 1 "--power-policy interval_ms: workload none is priced per second only" \
	run --machine 2G --workload none --power-policy interval_ms=500
run_mpm "${W[@]}" --json "$TMP/c.json" --power ddr4-2400 --power-policy poweroff=1
expect "grep -q '\"memspec\": \"ddr4-2400\"' '$TMP/c.json' && grep -q '\"poweroff\": true' '$TMP/c.json'" \
	"--power ddr4-2400 --power-policy poweroff=1 not in the JSON"

# compare: the power table per memspec, savings against mainline, Arjan's share
run_mpm compare --experiment cover-letter --scale 0.02 --policies mainline,sorted,full \
	--power ddr3-1600,ddr4-2400 --json "$TMP/cmp.json"
expect "[ $rc -eq 0 ]" "compare --power: exit $rc ($err)"
expect "[ \$(grep -c '^DRAM power, memspec' <<<\"\$out\") -eq 2 ]" "compare: want 2 power tables: $out"
expect "grep -Eq '^policy +DRAM J +avg W +sr% +pd% +stby% +off% +saving W +saving% +migr. J +kmpd J +net W +net/sys%' <<<\"\$out\"" \
	"compare power header: $out"
expect "grep -Eq '^mainline +[0-9.]+ +[0-9.]+( +[0-9.]+){4} +0.0000 +0.000 ' <<<\"\$out\"" "compare mainline power row: $out"
# at this scale full saves nothing (it costs a little): no share of it is printed
expect "[ \$(grep -c \"^share of full's saving (Arjan's 95 %+ claim): none, full saves -0.[0-9]* W, not more than 0.1 mW\$\" <<<\"\$out\") -eq 2 ]" \
	"compare Arjan line: $out"
# by_use: one table per memspec, a row per policy, the JSON's figures; in
# the JSON, free + idle + touched = domains x duration, and their
# self-refresh adds up to the run's.  sr=1 (self-refresh after one tREFI)
# gives DDR3's touched domains self-refresh, which DDR4 never enters: the
# two tables differ.
run_mpm compare --experiment cover-letter --scale 0.02 --policies mainline,full \
	--power ddr3-1600,ddr4-2400 --power-policy sr=1 --json "$TMP/use.json"
expect "[ $rc -eq 0 ]" "compare by_use run: exit $rc ($err)"
expect "[ \$(grep -c '^domain-seconds by interval' <<<\"\$out\") -eq 2 ]" "compare by_use tables: $out"
expect "grep -Eq '^policy +free +idle +touched +touched sr +of it sr%\$' <<<\"\$out\"" \
	"compare by_use header: $out"
text_uses=$(awk '/^domain-seconds by interval/ { t = 1; next } t && /^policy/ { next }
	t && NF == 6 { print; next } { t = 0 }' <<<"$out" | tr -s ' ')
json_uses=$(python3 -c 'import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
kinds = ("free", "idle", "touched")
for m in range(2):
    for r in runs:
        p = r["power"] if m == 0 else r["power_other"][0]
        u = p["by_use"]
        total = sum(u[k]["domain_s"] for k in kinds)
        sr = sum(u[k]["self_refresh_s"] for k in kinds)
        assert abs(total - len(p["per_domain"]) * p["duration_s"]) < 1e-6 * total, r["policy"]
        assert abs(sr - p["time_by_state_s"]["self_refresh"]) < 1e-6 * total + 1e-9, r["policy"]
        t, tsr = u["touched"]["domain_s"], u["touched"]["self_refresh_s"]
        print(r["policy"], *("%.1f" % u[k]["domain_s"] for k in kinds), "%.1f" % tsr,
              "%.1f" % (100 * tsr / t if t > 0 else 0))' "$TMP/use.json" 2>&1)
ddr3_touched_sr=$(python3 -c 'import json, sys
print(sum(r["power"]["by_use"]["touched"]["self_refresh_s"] for r in json.load(open(sys.argv[1]))["runs"]) > 0)' "$TMP/use.json")
expect "[ '$ddr3_touched_sr' = True ]" "compare by_use: no DDR3 touched self-refresh with sr=1: $json_uses"
expect "[ \"\$(wc -l <<<\"$text_uses\")\" -eq 4 ] && [ \"$text_uses\" = \"$json_uses\" ]" \
	"compare by_use: text and JSON differ, or JSON does not add up: $text_uses / $json_uses"
expect "grep -q '\"power_other\"' '$TMP/cmp.json' && grep -q '\"saving_vs_mainline_w\"' '$TMP/cmp.json'" \
	"compare JSON lacks power_other or saving_vs_mainline_w"

# runs that end at different times are priced over one window, the longest
# run's: at 0.08 (one CPU) kmempowerd evacuating at any threshold takes CPU
# time from the work, so full ends seconds after mainline, which is priced
# idle at its end state for the rest; the saving is the energy difference
# over that window.  The runs are 65 and 72 virtual seconds: about two
# minutes under TSan, hence the longer guard.
capture 600 "$MPM" compare --experiment cover-letter --scale 0.08 --policies mainline,full \
	--evac-threshold any --json "$TMP/win.json"
expect "[ $rc -eq 0 ]" "compare window run: exit $rc ($err)"
window=$(python3 -c 'import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
w = max(r["end_t"] for r in runs)
base = next(r for r in runs if r["policy"] == "mainline")["power"]
tails = []
for r in runs:
    p = r["power"]
    assert abs(p["duration_s"] - w) < 1e-9, (r["policy"], p["duration_s"], w)
    assert abs(p["tail_s"] - (w - r["end_t"])) < 1e-9, (r["policy"], p["tail_s"])
    assert abs(p["dram_avg_w"] - p["dram_energy_j"] / w) < 1e-9 * p["dram_avg_w"]
    saving = (base["dram_energy_j"] - p["dram_energy_j"]) / w
    assert abs(p["saving_vs_mainline_w"] - saving) < 1e-9 * abs(base["dram_avg_w"]), r["policy"]
    if p["tail_s"] > 0:
        tails.append("%s %.0f s" % (r["policy"], p["tail_s"]))
assert tails, "every run ends at %g s: nothing to price over a window" % w
print("every run priced over %.0f s, the longest run\x27s; idle at its end state after it ended: %s"
      % (w, ", ".join(tails)))' "$TMP/win.json" 2>&1)
expect "[[ \"\$out\" == *\"\$window\"* ]]" "compare window: $window / $out"

# memspecs without a memoryId are named by their path, cut from the front
# where it is long: two files in one long directory are still told apart
L="$TMP/$(printf 'd%.0s' {1..70})"
mkdir -p "$L"
for f in ddr3 ddr4; do
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d.pop("memoryId", None); json.dump(d, open(sys.argv[2], "w"))' \
		"$DATA/good-memspec-$f.json" "$L/$f.json"
done
run_mpm compare --experiment pagetest --power "$L/ddr3.json,$L/ddr4.json" --json "$TMP/two.json"
names=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["power"]
print(r["memspec"])' "$TMP/two.json" 2>&1)
expect "[ $rc -eq 0 ] && [[ '$names' == ...*ddr3.json ]]" "two memspecs in a long directory: exit $rc, $names ($err)"
expect_error 1 "compare: memspec '$L/ddr3.json' given twice" \
	compare --experiment pagetest --power "$L/ddr3.json,$L/ddr3.json"
# a memspec file by any name, as --machine takes its files
cp "$DATA/good-memspec-ddr3.json" "$TMP/UPPER.JSON"
cp "$DATA/good-memspec-ddr3.json" "$TMP/plain-name"
for f in UPPER.JSON plain-name; do
	run_mpm run --machine 64M --workload none --power "$TMP/$f" --json -
	expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'hand-typed DDR3-1600'* ]]" "--power $f: exit $rc ($err)"
done
cp "$DATA/good-memspec-ddr3.json" "$TMP/same-id.json"
expect_error 1 "are both named 'hand-typed DDR3-1600 x16 2Gb'" \
	compare --experiment pagetest --power "$DATA/good-memspec-ddr3.json,$TMP/same-id.json"

# a DDR3 memspec without XPDLL leaves power-down after tXP, and says so
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
def drop(x):
    if isinstance(x, dict):
        x.pop("XPDLL", None)
        for v in x.values():
            drop(v)
drop(d)
json.dump(d, open(sys.argv[2], "w"))' "$DATA/good-memspec-ddr3.json" "$TMP/noxpdll.json"
run_mpm power --list --memspec "$TMP/noxpdll.json"
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'(DLL off, no tXPDLL given: tXP)'* ]]" \
	"power --list without XPDLL: $(printf '%s' "$out" | grep exits) $err"

finish
