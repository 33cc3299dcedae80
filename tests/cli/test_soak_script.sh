#!/bin/bash
# scripts/soak.sh: a seed draws the same runs every time, a clean run and a
# refusal pass, a broken invariant, a crash or a hang fails the soak, and
# bad usage is refused.
source "$(dirname "$0")/lib.bash" "$1"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/scripts/soak.sh"

# seed 506 draws a pagetest of 8 MiB first (full+evac_drain): quick even
# with the checker after every allocator call under a sanitizer
run_script "$SCRIPT" 1 506
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'1 runs from seed 506: 1 passed, 0 refused, 0 failed'* ]]" \
	"soak.sh 1 506: exit $rc, $out $err"

# a stand-in binary: records its arguments, then plays a part
fake="$TMP/fake"
cat >"$fake" <<'FAKE'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
case $FAKE_PART in
ok) exit 0 ;;
refuse) echo "mempower: cannot build the machine: feature region_bias needs sorted_freelists" >&2; exit 1 ;;
broken) echo "mempower: invariant broken after allocator call 3: NR_FREE_PAGES is 1, recount 2" >&2; exit 1 ;;
crash) kill -SEGV $$ ;;
hang) sleep 30 ;;
esac
FAKE
chmod +x "$fake"
soak() {	# soak PART RUNS SEED [TIMEOUT]
	FAKE_PART=$1 FAKE_LOG="$TMP/log" MPM_BIN="$fake" capture 60 "$SCRIPT" "${@:2}"
}

rm -f "$TMP/log"
soak ok 5 42
cp "$TMP/log" "$TMP/log1"
expect "[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/log1') -eq 5 ] && grep -q -- '--check-every-op' '$TMP/log1'" \
	"soak.sh ok: exit $rc, $out"
rm -f "$TMP/log"
soak ok 5 42
expect "cmp -s '$TMP/log' '$TMP/log1'" "soak.sh: seed 42 drew different runs twice"
rm -f "$TMP/log"
soak ok 5 43
expect "! cmp -s '$TMP/log' '$TMP/log1'" "soak.sh: seeds 42 and 43 drew the same runs"

# TIMEOUT 0 would be no limit (timeout 0 never fires): refused
timeout 20 "$SCRIPT" 1 1 0 >/dev/null 2>&1
expect "[ $? -eq 2 ]" "soak.sh with TIMEOUT 0 was not refused"

soak refuse 2 1
expect "[ $rc -eq 0 ] && [[ \"\$out\" == *'0 passed, 2 refused, 0 failed'* ]]" \
	"soak.sh refuse: exit $rc, $out"
for part in broken crash; do
	soak $part 2 1
	expect "[ $rc -eq 1 ] && [[ \"\$out\" == *'0 passed, 0 refused, 2 failed'* ]] && [[ \"\$out\" == *'soak: run 2 failed'* ]]" \
		"soak.sh $part: exit $rc, $out"
done
expect "[[ \"\$out\" == *'failed (exit 139)'* ]]" "soak.sh crash: $out"
soak hang 1 1 1
expect "[ $rc -eq 1 ] && [[ \"\$out\" == *'failed (exit 124)'* ]]" "soak.sh hang: exit $rc, $out"

for args in "x" "1 -2" "1 2 3x"; do
	# shellcheck disable=SC2086
	MPM_BIN="$fake" capture 10 "$SCRIPT" $args
	expect "[ $rc -eq 2 ] && [ -z \"\$out\" ] && [[ \"\$err\" == *'usage: scripts/soak.sh'* ]]" \
		"soak.sh '$args': exit $rc, $err"
done

finish
