#!/bin/bash
# SPDX-License-Identifier: MIT
#
# How much the cover-letter figures depend on the exact interleaving of
# the ebizzy threads.  The ebizzy model is deterministic (ebizzy's own
# rand_num is unseeded), so the seed alone changes nothing; with `--jitter
# F` each iteration's memcpy costs the model's time 1 +- F, drawn from the
# seed, and the threads drift apart as real ones do.  One `mempower compare
# --experiment cover-letter --jitter F --seed N` per seed (seed-N.json /
# .txt in OUTDIR), then, per policy, the free regions at start, end and
# minimum and the DRAM power saving against mainline, as mean, sample
# standard deviation and range over the seeds, and per seed the end free
# regions and the busy regions held by per-cpu pages alone + the rest
# (OUTDIR/summary.txt, also printed).  docs/experiments.md quotes the unperturbed run; this says how
# far a perturbed one lands from it.
#
#   scripts/seed-spread.sh OUTDIR [--seeds A-B|N,N,...] [--jitter F]
#                          [--scale F] [--thp never|always] [--policies LIST]
#                          [--sched rr|cfs]
#
# Defaults: seeds 1-5, jitter 0.05, full scale, THP never, the four
# policies, round robin (compare --sched).  A seed whose JSON is already in
# OUTDIR is not run again, so an interrupted sweep resumes; the summary
# refuses files whose workload or policies differ (use a new OUTDIR for
# other options).  Builds the release preset unless MPM_BIN names a binary.
set -euo pipefail
# shellcheck source=scripts/mpm-bin.bash
source "$(dirname "$0")/mpm-bin.bash"	# before the cd: it notes the caller's directory
cd "$(dirname "$0")/.."

usage() {
	echo "usage: scripts/seed-spread.sh OUTDIR [--seeds A-B|N,N,...] [--jitter F] [--scale F] [--thp never|always] [--policies LIST] [--sched rr|cfs]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
out=$(mpm_abspath "$1")
shift
seeds=1-5 jitter=0.05 scale=1 thp=never policies=mainline,sorted,split,full sched=rr
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds="$2" ;;
	--jitter) jitter="$2" ;;
	--scale) scale="$2" ;;
	--thp) thp="$2" ;;
	--policies) policies="$2" ;;
	--sched) sched="$2" ;;
	*) echo "mempower: seed-spread.sh: unknown option $1" >&2; usage ;;
	esac
	shift 2
done

# A-B or a comma list of non-negative integers
if [[ "$seeds" =~ ^([0-9]+)-([0-9]+)$ ]]; then
	[ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] ||
		{ echo "mempower: seed-spread.sh: --seeds $seeds: empty range" >&2; exit 2; }
	list=$(seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
elif [[ "$seeds" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
	list=${seeds//,/ }
else
	echo "mempower: seed-spread.sh: --seeds $seeds (expected A-B or N,N,...)" >&2
	exit 2
fi
# one spelling per seed (01 is 1: the files are seed-1.*), each seed once
norm=""
for s in $list; do
	[ ${#s} -le 18 ] || { echo "mempower: seed-spread.sh: seed $s is too large" >&2; exit 2; }
	s=$((10#$s))
	case " $norm " in
	*" $s "*) echo "mempower: seed-spread.sh: --seeds $seeds names seed $s twice" >&2; exit 2 ;;
	esac
	norm="$norm $s"
done
list=$norm

bin=$(mpm_bin)
mkdir -p "$out"

for seed in $list; do
	json="$out/seed-$seed.json"
	[ -s "$json" ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$json" 2>/dev/null &&
		continue
	echo "seed-spread.sh: seed $seed" >&2
	# mempower's own errors (a bad scale or policy) end the sweep here
	# (its table too goes beside the JSON only once the run succeeded)
	"$bin" compare --experiment cover-letter --seed "$seed" --jitter "$jitter" --scale "$scale" \
		--thp "$thp" --policies "$policies" --sched "$sched" --json "$json.tmp" \
		> "$out/seed-$seed.txt.tmp" || { rm -f "$out/seed-$seed.txt.tmp"; exit 1; }
	mv "$out/seed-$seed.txt.tmp" "$out/seed-$seed.txt"
	mv "$json.tmp" "$json"
done

# shellcheck disable=SC2086 # $list: one argument per seed
python3 - "$out" $list <<'EOF' | tee "$out/summary.txt"
import json, statistics, sys

out, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]]
runs = {}          # policy -> list of (seed, run)
order = []
first = None
for seed in seeds:
    d = json.load(open("%s/seed-%d.json" % (out, seed)))
    # the machine too: --scale changes it, not the workload string
    kind = ([r["policy"] for r in d["runs"]], sorted({r["workload"] for r in d["runs"]}),
            d["machine"].get("mem_bytes"), d["machine"].get("cpus"))
    if first is None:
        first = (seed, kind)
    elif kind != first[1]:
        sys.exit("mempower: seed-spread.sh: seed-%d.json and seed-%d.json differ in policies, "
                 "workload or machine: use a new OUTDIR for other options" % (seed, first[0]))
    for r in d["runs"]:
        if r["seed"] != seed:
            sys.exit("mempower: seed-spread.sh: seed-%d.json holds a run of seed %s" % (seed, r["seed"]))
        if r["policy"] not in runs:
            runs[r["policy"]] = []
            order.append(r["policy"])
        runs[r["policy"]].append((seed, r))

def cell(xs, fmt):
    if len(xs) < 2:
        return fmt % xs[0]
    return (fmt + " ± " + fmt + " [" + fmt + ", " + fmt + "]") % (
        statistics.mean(xs), statistics.stdev(xs), min(xs), max(xs))

w = runs[order[0]][0][1]["workload"]
pw = max([9] + [len(p) for p in order])   # a policy column: "full+evac_drain"
print("%s; seeds %s: %d runs per policy; mean ± sample sd [min, max]" %
      (w if isinstance(w, str) else json.dumps(w), ",".join(map(str, seeds)), len(seeds)))
print("%-*s %-34s %-34s %-34s %s" % (pw, "policy", "free regions at start", "at end",
                                     "minimum", "DRAM saving vs mainline (W)"))
for p in order:
    rs = [r for _, r in runs[p]]
    fr = lambda k: [r["free_regions"][k] for r in rs]
    sav = [r["power"]["saving_vs_mainline_w"] for r in rs
           if isinstance(r.get("power"), dict) and "saving_vs_mainline_w" in r["power"]]
    print("%-*s %-34s %-34s %-34s %s" % (pw, p, cell(fr("start"), "%.1f"), cell(fr("end"), "%.1f"),
                                         cell(fr("min"), "%.1f"),
                                         cell(sav, "%.3f") if len(sav) == len(rs) else "-"))
print()
print("per seed, end free regions:")
print("%-6s %s" % ("seed", " ".join("%*s" % (pw, p) for p in order)))
for i, seed in enumerate(seeds):
    print("%-6d %s" % (seed, " ".join("%*d" % (pw, runs[p][i][1]["free_regions"]["end"]) for p in order)))

# A busy region at the end is held either by pages on per-cpu lists alone
# or by something else (owned, file, kernel or reserved pages): the split
# that explains most of the spread (docs/experiments.md).
def busy(r):
    pcp = other = 0
    for g in r.get("regions_end", []):
        if g["state"] == "free":
            continue
        held = g.get("held_by", {})
        if held.get("pcp", 0) and not any(v for k, v in held.items() if k != "pcp"):
            pcp += 1
        else:
            other += 1
    return pcp, other

print()
print("per seed, busy regions at the end: held by per-cpu pages alone + the rest:")
print("%-6s %s" % ("seed", " ".join("%*s" % (pw, p) for p in order)))
for i, seed in enumerate(seeds):
    print("%-6d %s" % (seed, " ".join("%*s" % (pw, "%d+%d" % busy(runs[p][i][1])) for p in order)))
EOF
