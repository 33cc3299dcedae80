#!/bin/bash
# Every global symbol the installed static library defines is public API,
# mpm_-prefixed: the internals are local to its one prelinked object
# (CMakeLists.txt).  Sanitizer builds add their own instrumentation symbols.
set -euo pipefail
lib=$1
nm=${2:-nm}
bad=$("$nm" -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' |
	grep -v -E '^(mpm_|__odr_asan_gen_mpm_|__(asan|tsan|ubsan|sancov)_|\.L)' || true)
count=$("$nm" -g --defined-only "$lib" | awk 'NF == 3' | grep -c ' mpm_' || true)
if [ -n "$bad" ]; then
	echo "check_symbols: $lib defines global symbols outside the API:" >&2
	echo "$bad" | head -20 >&2
	exit 1
fi
if [ "$count" -lt 50 ]; then
	echo "check_symbols: $lib defines only $count mpm_ symbols" >&2
	exit 1
fi
echo "check_symbols: $count public symbols, nothing else"
