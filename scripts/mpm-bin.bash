# SPDX-License-Identifier: MIT
# Sourced by the scripts that run the mempower binary (bench.sh,
# bench-sim.sh, experiments.sh, seed-spread.sh, soak.sh); .bash so that
# nothing runs it by itself.
#
# Relative paths a script is given (OUTDIR, MPM_BIN, --against) name files
# from the caller's directory: a script sources this file before it moves
# to the repository root, and resolves them with mpm_abspath.
mpm_caller=$PWD
mpm_abspath() {
	case $1 in
	/* | "") printf '%s\n' "$1" ;;
	*) printf '%s\n' "$mpm_caller/$1" ;;
	esac
}
case ${MPM_BIN:-} in */*) MPM_BIN=$(mpm_abspath "$MPM_BIN") ;; esac
#
# mpm_bin prints the binary to run: MPM_BIN if set (no build); else a
# Release build in MPM_BUILD_DIR if set; else the release preset's
# build/release.  Build output goes to stderr; a failed build returns 1
# and prints nothing, so that `bin=$(mpm_bin)` under `set -e` stops the
# script instead of running an old binary.
mpm_bin() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	if [ -n "${MPM_BIN:-}" ]; then
		echo "$MPM_BIN"
		return
	fi
	if [ -n "${MPM_BUILD_DIR:-}" ]; then
		cmake -S "$root" -B "$MPM_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
			-DMPM_WERROR=ON >&2 || return 1
		cmake --build "$MPM_BUILD_DIR" --target mempower >&2 || return 1
		echo "$MPM_BUILD_DIR/mempower"
		return
	fi
	(cd "$root" && cmake --preset release >&2 && cmake --build --preset release --target mempower >&2) ||
		return 1
	echo "$root/build/release/mempower"
}
