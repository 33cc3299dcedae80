#!/bin/bash
# Bad input: the right exit status and one "mempower: ..." line, never a
# crash or a hang, and never a run started before every input was checked.
source "$(dirname "$0")/lib.bash" "$1"

# usage errors: exit 2
expect_error 2 "unknown option '--bogus'" run --bogus
expect_error 2 "unknown option '--bogus'" run --bogus=3
expect_error 2 "unknown option '--frob'" --frob
expect_error 2 "unknown command 'frob'" frob
expect_error 2 "option '--machine' needs a value" run --machine
expect_error 2 "option '--json' needs a value" run --json
# an option is not a value: the missing one is named, no file "--check-every-op"
expect_error 2 "option '--json' needs a value" run --json --check-every-op
expect_error 2 "option '--policy' needs a value" run --policy --machine 64M
expect_error 2 "compare: option '--csv' needs a value" compare --experiment pagetest --csv --check
expect_error 2 "power: option '--memspec' needs a value" power --memspec --list
expect_error 2 "unexpected argument 'extra'" run extra
expect_error 2 "unknown option '--format'" run --format all
checks=$((checks + 1))
run_mpm
[ "$rc" -eq 2 ] || fail "no arguments: exit $rc, want 2"

# malformed sizes and machine specs
expect_error 1 "malformed machine spec 'lots'" run --machine lots
expect_error 1 "malformed machine spec '16Q'" run --machine 16Q
expect_error 1 "malformed machine spec '-16G'" run --machine -16G
expect_error 1 "malformed machine spec '2x'" run --machine 2x
expect_error 1 "node count must be 1..64" run --machine 65x1G
expect_error 1 "below the minimum of 4M" run --machine 2M
expect_error 1 "not a multiple of 4K" run --machine 4194305
expect_error 1 "empty machine spec" run --machine ""
expect_error 1 "malformed size '12XB'" run --machine 1G --region-size 12XB
expect_error 1 "region size 384M is not a power of two" run --machine 1G --region-size 384M
expect_error 1 "region size 1M is smaller than a pageblock (4M at pageblock order 10)" \
	run --machine 1G --region-size 1M
expect_error 1 "region size 1M is smaller than a pageblock (2M at pageblock order 9)" \
	run --machine 1G --region-size 1M --pageblock-order 9
expect_error 1 "invalid region alignment 'page'" run --machine 1G --region-align page
expect_error 1 "invalid pageblock order '11'" run --machine 1G --pageblock-order 11
expect_error 1 "invalid cpu count '0'" run --machine 1G --cpus 0
expect_error 1 "invalid zonelist order 'nodes' (expected default, node or zone)" \
	run --machine 1G --zonelist-order nodes
expect_error 2 "option '--zonelist-order' needs a value" run --zonelist-order

# machine files
expect_error 1 "bad-syntax.json: line 1 column" run --machine "$DATA/bad-syntax.json"
expect_error 1 "nodes[0].zones[1].start: overlaps" run --machine "$DATA/bad-overlap.json"
expect_error 1 "regoin_size: unknown key" run --machine "$DATA/bad-unknown-key.json"
expect_error 1 "cpus: expected an integer" run --machine "$DATA/bad-cpus-type.json"
expect_error 1 "holes[0]: does not lie inside one zone" run --machine "$DATA/bad-hole-outside.json"
expect_error 1 "unable to open" run --machine "$TMP/missing.json"
# a machine with nothing but ZONE_MOVABLE cannot hold the model's kernel
# allocations: kmempowerd's task under full fails as mainline's first does,
# and a workload whose first task cannot be forked leaks nothing (ASan)
printf '{"nodes":[{"zones":[{"type":"Movable","start":"16M","end":"64M"}]}]}' > "$TMP/movable.json"
for p in mainline full; do
	for w in pagetest:size=1M ebizzy:s=1M,t=2,S=2; do
		expect_error 1 "out of memory with nothing left to kill" \
			run --machine "$TMP/movable.json" --policy $p --workload $w --duration 3
	done
done
# a FIFO no one writes reads as empty, where a blocking open would wait forever
mkfifo "$TMP/fifo.json"
expect_error 1 "fifo.json: line 1 column 0: '[' or '{' expected near end of file" \
	run --machine "$TMP/fifo.json"
expect_error 1 "fifo.json: line 1 column 0: '[' or '{' expected near end of file" \
	power --list --memspec "$TMP/fifo.json"
# what an error echoes is escaped: a newline in a key or an option stays one line
expect_error 1 'nodes[0].zo\nes: unknown key' run --machine "$DATA/bad-key-newline.json"
expect_error 2 "unknown option '--a\\nb\\x01'" run $'--a\nb\x01'
expect_error 1 "workload churn: unknown key 'a\\tb'" run --workload $'churn:a\tb=1'

# a file in the working directory named like a size does not shadow it, a
# path to it names the file, and a file by any other name still loads
mkdir "$TMP/cwd"
printf 'not json\n' > "$TMP/cwd/64M"
cp "$DATA/good-minimal.json" "$TMP/cwd/mybox"
mpm_abs=$(realpath "$MPM")
here=$PWD
cd "$TMP/cwd" || exit 1
capture 120 "$mpm_abs" run --machine 64M --workload none
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'machine   64M:'* ]]" "--machine 64M beside a file 64M: exit $rc ($err)"
capture 120 "$mpm_abs" run --machine ./64M --workload none
expect "[ $rc -eq 1 ] && [[ \"\$err\" == 'mempower: ./64M: line 1'* ]]" "--machine ./64M: exit $rc ($err)"
capture 120 "$mpm_abs" run --machine mybox --workload none
expect "[ $rc -eq 0 ]" "--machine mybox, a file: exit $rc ($err)"
# NxSIZE's node count is checked only once the whole is a size spec
cp "$DATA/good-minimal.json" "$TMP/cwd/0xbox"
capture 120 "$mpm_abs" run --machine 0xbox --workload none
expect "[ $rc -eq 0 ]" "--machine 0xbox, a file: exit $rc ($err)"
capture 120 "$mpm_abs" run --machine 0x16G --workload none
expect "[ $rc -eq 1 ] && [ \"\$err\" = \"mempower: machine '0x16G': node count must be 1..64\" ]" \
	"--machine 0x16G: exit $rc ($err)"
cd "$here" || exit 1

# a machine larger than the memory there is: refused before it is built
MEMPOWER_MEMORY_LIMIT=64M expect_error 1 \
	"run: the machine needs about 70 MiB of memory, more than the 64 MiB that MEMPOWER_MEMORY_LIMIT allows" \
	run --machine 1G --workload none
MEMPOWER_MEMORY_LIMIT=64M expect_error 1 "stats: the machine needs about 70 MiB" \
	stats --machine 1G --workload none
MEMPOWER_MEMORY_LIMIT=64M expect_error 1 "compare: the machine needs about" \
	compare --experiment pagetest
MEMPOWER_MEMORY_LIMIT=abc expect_error 1 "MEMPOWER_MEMORY_LIMIT=abc: malformed size 'abc'" \
	run --machine 1G --workload none
MEMPOWER_MEMORY_LIMIT=0 expect_error 1 "MEMPOWER_MEMORY_LIMIT=0: must be more than 0" \
	run --machine 1G --workload none
MEMPOWER_MEMORY_LIMIT=128M run_mpm run --machine 1G --workload none
expect "[ $rc -eq 0 ]" "1G machine with 128M of memory: exit $rc ($err)"
# and a workload that maps more than the rest of the budget holds tables
# for (4 bytes a page: 256 MiB for 256G, and the idle system's daemons),
# or caches more (5 bytes a file page), fails its run, not the host
MEMPOWER_MEMORY_LIMIT=256M expect_error 1 \
	"the workload maps more memory, or more often, than this host can simulate: its tables would need 257 MiB, more than the 255 MiB left for them" \
	run --machine 64M --workload pagetest:size=256G
MEMPOWER_MEMORY_LIMIT=128M expect_error 1 \
	"the workload's files hold more pages than this host can simulate: its tables would need 160 MiB, more than the 127 MiB left for them" \
	run --machine 64M --workload pagecache:size=64G,files=2 --duration 1
# every mapping's record stays to the end: many small ones are bounded too
# (ebizzy of 4K chunks maps about 80 MB of them a second)
MEMPOWER_MEMORY_LIMIT=128M expect_error 1 \
	"the workload maps more memory, or more often, than this host can simulate: its tables would need" \
	run --machine 64M --workload ebizzy:s=4K --duration 10
MEMPOWER_MEMORY_LIMIT=1K expect_error 1 "more than the 1 KiB that MEMPOWER_MEMORY_LIMIT allows" \
	run --machine 64M --workload none
# the per-pageblock arrays count from pfn 0: a zone just below 4 PiB
printf '{"nodes":[{"zones":[{"type":"Normal","start":"4194300G","end":"4194304G"}]}]}' > "$TMP/far.json"
MEMPOWER_MEMORY_LIMIT=512M expect_error 1 "run: the machine needs about 16.1 GiB of memory" \
	run --machine "$TMP/far.json" --workload none
# the kernel model keeps pfns in 31 bits: memory past 8T is refused for it
printf '{"nodes":[{"zones":[{"type":"Normal","start":"8192G","end":"8193G"}]}]}' > "$TMP/8t.json"
for w in pagetest kernbench:files=50,headers=50 pagecache:size=256M ebizzy:s=8M,t=2,S=1; do
	expect_error 1 "the kernel-model workloads simulate memory below 8T (pfn 2^31); this machine's ends at 8193G" \
		run --machine "$TMP/8t.json" --workload $w --duration 3
done
printf '{"nodes":[{"zones":[{"type":"Normal","start":"8191G","end":"8192G"}]}]}' > "$TMP/below8t.json"
run_mpm run --machine "$TMP/below8t.json" --workload kernbench:files=50,headers=50 --duration 3
expect "[ $rc -eq 0 ]" "kernbench on memory just below 8T: exit $rc ($err)"
MEMPOWER_MEMORY_LIMIT=256M run_mpm run --machine 64M --workload pagetest:size=32G
expect "[ $rc -eq 0 ]" "a 32G pagetest with 256M of memory: exit $rc ($err)"
# without the variable, MemAvailable: 15 TiB needs about 90 GiB
avail_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt $((90 << 20)) ]; then
	expect_error 1 "run: the machine needs about 90.1 GiB of memory, more than the" \
		run --machine 15T --workload none
	expect "[[ \"\$err\" == *'available on this host' ]]" "15T: $err"
fi

# policies, workloads, other values
expect_error 1 "unknown policy 'fastest'" run --policy fastest
expect_error 1 "--features: unknown switch 'bogus'" run --policy sorted --features bogus
expect_error 1 "--features: empty or overlong switch name" run --policy sorted --features=sorted_freelists,,
expect_error 1 "feature region_bias needs sorted_freelists" run --machine 1G --features region_bias
expect_error 1 "feature region_allocator needs sorted_freelists" run --machine 1G --features region_allocator
expect_error 1 "feature region_cache needs region_allocator" run --machine 1G --policy sorted --features region_cache
expect_error 1 "feature reclaim_clean needs evacuation" run --machine 1G --policy split --features +reclaim_clean
# a removed switch takes along those that need it, as compare's policies do
for c in "sorted -sorted_freelists" "split -region_allocator sorted_freelists,region_bias,no_claim" \
	 "full -evacuation sorted_freelists,region_bias,no_claim,region_allocator,ralloc_bias,region_cache"; do
	set -- $c
	run_mpm run --machine 1G --workload none --policy "$1" --features="$2" --json -
	got=$(python3 -c 'import json, sys; print(",".join(json.load(sys.stdin)["runs"][0]["features"]))' <<<"$out" 2>&1)
	expect "[ $rc -eq 0 ] && [ '$got' = '${3:-}' ]" "--policy $1 --features=$2: exit $rc, features '$got' ($err)"
done
expect_error 1 "unknown workload 'stress'" run --workload stress
expect_error 1 "workload churn: unknown key 'speed'" run --workload churn:speed=3
expect_error 1 "workload churn: malformed value 'lots' for ops" run --workload churn:ops=lots
expect_error 1 "workload churn: malformed value '0.6x' for occupancy" run --workload churn:occupancy=0.6x
expect_error 1 "workload churn: occupancy=2 is out of range" run --workload churn:occupancy=2
expect_error 1 "workload none: unknown key 'ops'" run --workload none:ops=5
expect_error 1 "invalid duration '-1'" run --duration -1
expect_error 1 "invalid duration 'soon'" run --duration soon
expect_error 1 "invalid seed '1x'" run --seed 1x
expect_error 1 "invalid seed '9223372036854775808'" run --seed 9223372036854775808
expect_error 1 "unknown stats format 'nope'" stats --format nope
expect_error 1 "stats prints to stdout" stats --json -
expect_error 1 "stats prints to stdout; give --json a file name" stats --json /dev/stdout
expect_error 1 "stats prints to stdout; give --csv a file name" stats --csv -
# a flag given a value is told so, not called unknown
expect_error 2 "option '--check-every-op' takes no value" run --check-every-op=1
expect_error 2 "option '--help' takes no value" run --help=yes
expect_error 2 "compare: option '--check' takes no value" compare --experiment pagetest --check=1
expect_error 2 "compare: option '--ablation' takes no value" compare --experiment pagetest --ablation=1
expect_error 2 "power: option '--list' takes no value" power --list=1
expect_error 1 "compare: --scale applies to the cover-letter experiment only" \
	compare --experiment pagetest --scale 0.5
# a machine file's region size is checked against the pageblock the run
# ends up with: --pageblock-order may lower the file's own
printf '{ "nodes": [ { "zones": [ { "type": "DMA32", "start": "16M", "end": "64M" } ] } ], "region_size": "2M" }\n' \
	>"$TMP/r2m.json"
expect_error 1 "region size 2M is smaller than a pageblock (4M at pageblock order 10)" \
	run --machine "$TMP/r2m.json" --workload none
run_mpm run --machine "$TMP/r2m.json" --pageblock-order 9 --workload none --json -
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'\"region_bytes\": 2097152'* ]]" \
	"--pageblock-order 9 over a file's 2M regions: exit $rc ($err)"
expect_error 2 "unexpected argument 'junk' after --help" --help junk
expect_error 2 "unexpected argument 'run' after --version" --version run
# the message names the spec as given
expect_error 1 "machine '2x4P' exceeds the maximum of 4P in all" run --machine 2x4P
# the kernel model samples on whole seconds, so its runs last whole seconds
expect_error 1 "invalid duration '1.5' for workload ebizzy (expected whole seconds)" \
	run --machine 64M --workload ebizzy --duration 1.5

# Unwritable outputs fail at once, before a long run could start (the
# duration below would take minutes), and leave nothing behind.
mkdir "$TMP/dir"
expect_error 1 "cannot write JSON file '$TMP/nodir/r.json': No such file or directory" \
	run --machine sandybridge-128g --duration 100000 --json "$TMP/nodir/r.json"
expect_error 1 "cannot write JSON file '$TMP/dir': Is a directory" \
	run --machine sandybridge-128g --duration 100000 --json "$TMP/dir"
mkdir "$TMP/dir.json"
expect_error 1 "$TMP/dir.json: is a directory, not a machine file" run --machine "$TMP/dir.json"
expect_error 1 "is a directory, not a memspec file" power --list --memspec "$TMP/dir.json"
expect_error 1 "cannot write CSV file '/etc/passwd/r.csv': Not a directory" \
	run --machine sandybridge-128g --duration 100000 --csv /etc/passwd/r.csv
expect_error 1 "cannot write CSV file" \
	run --machine 1G --duration 100000 --json "$TMP/ok.json" --csv "$TMP/nodir/r.csv"
expect "[ ! -e '$TMP/ok.json' ]" "a failed run left its JSON file behind"
# an input error is reported before any output file is touched
echo keep >"$TMP/keep.json"
expect_error 1 "unknown policy" run --policy nope --json "$TMP/keep.json"
expect "[ \"\$(cat '$TMP/keep.json')\" = keep ]" "an input error clobbered the output file"

# output that cannot reach stdout (a full disk) fails with one line
for args in "--help" "power --list"; do
	checks=$((checks + 1))
	# shellcheck disable=SC2086
	timeout 60 "$MPM" $args >/dev/full 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -q "^mempower: cannot write to stdout" "$TMP/err" ||
		fail "mempower $args >/dev/full: exit $rc (stderr: $(cat "$TMP/err"))"
done

# a key given twice, as in machine files, is refused
expect_error 1 "workload pagetest: key 'size' given twice" \
	run --machine 64M --workload pagetest:size=16M,hold=1,size=32M
expect_error 1 "--power-policy: key 'pd' given twice" \
	run --machine 64M --workload none --power ddr3-1600 --power-policy pd=1,pd=2

# one file under two names, or stdout twice: refused, the file kept as it was
expect_error 1 "--json and --csv name the same file" \
	run --machine 64M --workload none --json "$TMP/keep.json" --csv "$TMP/./keep.json"
ln -s keep.json "$TMP/link.json"
expect_error 1 "--json and --csv name the same file" \
	run --machine 64M --workload none --json "$TMP/keep.json" --csv "$TMP/link.json"
expect "[ \"\$(cat '$TMP/keep.json')\" = keep ]" "a refused pair of outputs clobbered the file"
expect_error 1 "--json and --csv name the same file" \
	compare --experiment pagetest --json - --csv -
expect_error 1 "--json and --csv name the same file" \
	compare --experiment pagetest --json "$TMP/new.json" --csv "$TMP/new.json"
expect "[ ! -e '$TMP/new.json' ]" "a refused pair of outputs left a file behind"

# a write that fails half-way (the file size limit) leaves the old file whole
checks=$((checks + 1))
capture 120 bash -c 'trap "" XFSZ; ulimit -f 2; exec "$0" "$@"' "$MPM" \
	run --machine 64M --workload none --json "$TMP/keep.json"
[ "$rc" -eq 1 ] && [[ "$err" == *"File too large"* ]] ||
	fail "a write past the size limit: exit $rc (stderr: $err)"
expect "[ \"\$(cat '$TMP/keep.json')\" = keep ]" "a failed write truncated the old file"
expect "[ -z \"\$(ls '$TMP' | grep 'keep.json.')\" ]" "a failed write left its temporary file"
checks=$((checks + 1))
capture 120 bash -c 'trap "" XFSZ; ulimit -f 2; exec "$0" "$@"' "$MPM" \
	run --machine 64M --workload none --json "$TMP/big.json"
[ "$rc" -eq 1 ] && [ ! -e "$TMP/big.json" ] ||
	fail "a failed write of a new file: exit $rc, file left: $(ls "$TMP" | grep big)"

# a result replaces the file the link names, with the file's mode
chmod 640 "$TMP/keep.json"
run_mpm run --machine 64M --workload none --json "$TMP/link.json"
expect "[ $rc -eq 0 ] && [ -L '$TMP/link.json' ] && grep -q mempower.result/1 '$TMP/keep.json'" \
	"a result did not replace the file behind the link (exit $rc)"
expect "[ \"\$(stat -c %a '$TMP/keep.json')\" = 640 ]" "a result changed the file's mode"

# a file with another name (a hard link) is written in place: both names see it
echo old >"$TMP/h1.json"
ln "$TMP/h1.json" "$TMP/h2.json"
run_mpm run --machine 64M --workload none --json "$TMP/h1.json"
expect "[ $rc -eq 0 ] && grep -q mempower.result/1 '$TMP/h2.json'" \
	"a result broke the file's hard link (exit $rc)"
# /dev/stdout names the file stdout already writes: written through it, in order
{ "$MPM" run --machine 64M --workload none --json /dev/stdout; echo after; } >"$TMP/std.txt"
expect "grep -q mempower.result/1 '$TMP/std.txt' && [ \"\$(tail -n 1 '$TMP/std.txt')\" = after ]" \
	"--json /dev/stdout replaced the file stdout writes"
# the temporary file exists only while the result is written: an interrupted
# run leaves none (the file it created stays, empty, as before)
timeout -s INT 3 "$MPM" run --duration 100000 --json "$TMP/int.json" >/dev/null 2>&1
expect "[ -z \"\$(ls '$TMP' | grep 'int.json.')\" ]" "an interrupted run left a temporary file"
# a machine file's own region_size that the pageblock refuses: named as its field
printf '%s\n' '{"nodes":[{"zones":[{"type":"Normal","start":"16M","end":"1G"}]}],"region_size":"2M"}' \
	>"$TMP/small-region.json"
expect_error 1 "$TMP/small-region.json: region_size: region size 2M is smaller than a pageblock" \
	run --machine "$TMP/small-region.json" --workload none
# a message cut to fit its buffer says so: a 700-byte machine path
long="/nonexistent/$(printf 'a%.0s' $(seq 700))"
expect_error 1 "malformed machine spec '/nonexistent/aaa" run --machine "$long"
expect "[[ \"\$err\" == *'aaa...' ]]" "a cut message lacks its '...': ${err: -20}"

finish
