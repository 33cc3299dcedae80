# Shared by the tests/cli/*.sh scripts (sourced; .bash so ctest does not run it).
# Usage in a script: source "$(dirname "$0")/lib.bash" "$1"
MPM=${1:?usage: $0 /path/to/mempower}
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../io/data" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0

# capture SECONDS CMD ARGS...: run with a hang guard; sets rc, out, err.
capture() {
	timeout "$1" "${@:2}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# run_mpm ARGS...: the binary under test.
run_mpm() {
	capture 120 "$MPM" "$@"
}

# run_script SCRIPT ARGS...: one of scripts/, running the binary under test.
run_script() {
	MPM_BIN="$MPM" capture 300 "$@"
}

fail() {
	fails=$((fails + 1))
	echo "FAIL: $*" >&2
}

# expect_error RC SUBSTRING ARGS...: exit status RC, nothing on stdout, and
# exactly one stderr line "mempower: ..." containing SUBSTRING.
expect_error() {
	local want_rc=$1 want_msg=$2
	shift 2
	checks=$((checks + 1))
	run_mpm "$@"
	if [ "$rc" -ne "$want_rc" ]; then
		fail "mempower $*: exit $rc, want $want_rc (stderr: $err)"
	elif [ -n "$out" ]; then
		fail "mempower $*: wrote to stdout: $out"
	elif [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
		fail "mempower $*: stderr is not one line: $err"
	elif [[ "$err" != "mempower: "* ]]; then
		fail "mempower $*: stderr lacks the 'mempower: ' prefix: $err"
	elif [[ "$err" != *"$want_msg"* ]]; then
		fail "mempower $*: stderr '$err' lacks '$want_msg'"
	fi
}

expect() {
	checks=$((checks + 1))
	if ! eval "$1"; then
		fail "$2"
	fi
}

finish() {
	echo "$(basename "$0"): $checks checks, $fails failed"
	[ "$fails" -eq 0 ]
}
