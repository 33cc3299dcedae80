#!/bin/bash
# The scaled-down cover-letter experiment (16 GiB, 2 CPUs, 3 x ebizzy) with
# the allocator checker and the owner/content checker at every sample, as a
# debug-preset test: it must complete, find nothing, and print the table.
# Usage: cover_letter_check.bash /path/to/mempower
set -u
bin=$1
out=$("$bin" compare --experiment cover-letter --scale 0.125 --check 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	printf 'cover-letter --check failed (exit %d):\n%s\n' "$rc" "$out"
	echo "0 passed, 1 failed"
	exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq '^mainline( +[0-9.]+){8} +214 -> 8'; then
	printf 'no mainline row in:\n%s\n' "$out"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "1 passed, 0 failed"
