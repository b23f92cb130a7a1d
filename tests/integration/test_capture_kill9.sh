#!/usr/bin/env bash
# kill -9 of a running capture: the log reads up to its last complete block
# (riot info exits 0 and says incomplete), and what it holds is exact: the
# workload's pread64 series in order, nothing else.
. "$(dirname "$0")/lib.sh"
require_capture

LOG=$IT_TMP/k.riot
capture_heavy "$LOG"
# Some blocks on disk (the writer flushes at least every second).
big() { [ "$(stat -c %s "$LOG")" -ge 65536 ]; }
wait_until "the log to grow past 64 KiB" 600 big
alive "$WPID" || fail "the workload ended before the kill (heavy runs until killed)"
kill -9 "$CPID"
wait "$CPID" 2>/dev/null
rc=$?
[ "$rc" -eq 137 ] || fail "riot capture was not killed by SIGKILL (status $rc)"
kill -9 "$WPID"
wait "$WPID" 2>/dev/null

dump_log "$LOG"
python3 - "$IT_TMP/info.json" <<'PY' || fail "riot info --json of the killed capture's log"
import json, sys
info = json.load(open(sys.argv[1]))
ok = info.get("complete") is False and isinstance(info.get("events"), int) and info["events"] > 1000
print(("ok" if ok else "FAIL") + ": complete=%r events=%r" % (info.get("complete"), info.get("events")))
sys.exit(0 if ok else 1)
PY
"$RIOT" info "$LOG" >"$IT_TMP/info.txt" 2>&1 || fail "riot info (text) exited $?: $(cat "$IT_TMP/info.txt")"
python3 "$IT_DIR/heavy_check.py" "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$WPID" "$W/heavy.dat" ||
	fail "the killed capture's log is not an exact prefix of what the workload did"
