#!/bin/bash
# Every global symbol an installed library defines is public API,
# mpm_-prefixed: the static library's internals are local to its one
# prelinked object, the shared one's hidden (CMakeLists.txt); for the shared
# library the dynamic symbols count.  Sanitizer builds add their own
# instrumentation symbols.
set -euo pipefail
lib=$1
nm=${2:-nm}
scope=-g
case $lib in *.so | *.so.*) scope=-D ;; esac
syms=$("$nm" $scope --defined-only "$lib" | awk 'NF == 3')
bad=$(awk '{ print $3 }' <<<"$syms" |
	grep -v -E '^(mpm_|__odr_asan_gen_mpm_|__(asan|tsan|ubsan|sancov)_|\.L)' || true)
count=$(grep -c ' mpm_' <<<"$syms" || true)
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
