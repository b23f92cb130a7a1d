#!/usr/bin/env bash
# A full disk under the log: capture stops with exit 1 and one line on
# stderr that says so (after the one saying what it records), and the log
# stays readable up to what was written.
. "$(dirname "$0")/lib.sh"
require_capture

SMALL=$IT_TMP/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=1m riot-test "$SMALL" || fail "cannot mount a 1 MiB tmpfs on $SMALL"
IT_MOUNTS+=("$SMALL")
LOG=$SMALL/full.riot
capture_heavy "$LOG"
wait_exit "$CPID" "riot capture on a full disk" 1800
rc=$REPLY
kill -9 "$WPID"
wait "$WPID" 2>/dev/null
[ "$rc" -eq 1 ] || { cat "$IT_TMP/cap.err" >&2; fail "riot capture on a full disk exited $rc, expected 1"; }
# the line that says what is recorded, then the error
lines=$(wc -l <"$IT_TMP/cap.err")
[ "$lines" -eq 2 ] || { cat "$IT_TMP/cap.err" >&2; fail "expected two lines on stderr, got $lines"; }
[ "$(head -n 1 "$IT_TMP/cap.err")" = "riot capture: recording pids: $WPID into $LOG; Ctrl-C stops" ] ||
	fail "the first line does not say what is recorded: $(head -n 1 "$IT_TMP/cap.err")"
tail -n 1 "$IT_TMP/cap.err" | grep -q '^riot: capture: .*No space left on device' ||
	fail "the error does not say the disk is full: $(cat "$IT_TMP/cap.err")"
dump_log "$LOG"
python3 - "$IT_TMP/info.json" <<'PY' || fail "riot info --json of the full-disk log"
import json, sys
info = json.load(open(sys.argv[1]))
ok = isinstance(info.get("events"), int) and info["events"] > 1000
print(("ok" if ok else "FAIL") + ": complete=%r events=%r" % (info.get("complete"), info.get("events")))
sys.exit(0 if ok else 1)
PY
python3 "$IT_DIR/heavy_check.py" "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$WPID" "$W/heavy.dat" ||
	fail "the full-disk log is not an exact prefix of what the workload did"
