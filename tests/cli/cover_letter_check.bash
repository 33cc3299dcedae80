#!/bin/bash
# The scaled-down cover-letter experiment (16 GiB, 2 CPUs, 3 x ebizzy) for
# every policy, with the allocator checker and the owner/content checker at
# every sample, as a debug-preset test: it must complete, find nothing, and
# print the table, and with full's positive saving the share of it that
# sorted and split get (Arjan's line).
# Usage: cover_letter_check.bash /path/to/mempower
set -u
bin=$1
out=$("$bin" compare --experiment cover-letter --scale 0.125 --policies mainline,sorted,split,full --check 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	printf 'cover-letter --check failed (exit %d):\n%s\n' "$rc" "$out"
	echo "0 passed, 1 failed"
	exit 1
fi
for row in 'mainline( +[0-9.]+){9} +214 -> 8' 'sorted( +[0-9.]+){9} +- \(v2' 'split( +[0-9.]+){9} +238 -> 121' \
	'full( +[0-9.]+){9} +210 -> 202' \
	"share of full's saving \\(Arjan's 95 %\\+ claim\\): sorted [0-9.]+ % \\(net [0-9.]+ %\\) split [0-9.]+ % \\(net [0-9.]+ %\\)\$"; do
	if ! printf '%s\n' "$out" | grep -Eq "^$row"; then
		printf 'no row /%s/ in:\n%s\n' "$row" "$out"
		echo "0 passed, 1 failed"
		exit 1
	fi
done
echo "1 passed, 0 failed"
