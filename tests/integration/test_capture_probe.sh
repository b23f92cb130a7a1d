#!/usr/bin/env bash
# test_capture_probe: capture measures the time its probes add to a recorded
# duration (2048 newfstatat calls of its own, untraced, then through the
# probes: at least half of them recorded) and keeps it in the log's header;
# no call of riot's own reaches the log, with a command or -p (whose traced
# set marks a task by its slot); riot report takes it off every latency,
# exactly, and --raw-durations does not; with newfstatat not captured
# (--ops) nothing is measured or taken off.
. "$(dirname "$0")/lib.sh"
require_capture

# info_probe LOG: "version calls probe untraced recorded" from riot info --json
info_probe() {
	"$RIOT" info --json "$1" | python3 -c 'import json,sys
h = json.load(sys.stdin)["header"]
print("%d.%d" % (h["format_major"], h["format_minor"]), h.get("probe_calls", 0), h.get("probe_ns", 0),
      h.get("probe_untraced_ns", 0), h.get("probe_recorded_ns", 0))'
}

# stat_sums LOG PID RIOT_PID PROBE: newfstatat of LOG, "calls of / by PID,
# raw sum, sum less PROBE each (at least 0)"; fails on a record of riot's
# own pid RIOT_PID (its calibration calls leaked into the log)
stat_sums() {
	"$RIOT" dump "$1" | python3 -c 'import sys
pid, riot, probe = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = raw = less = 0
for line in sys.stdin:
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    if f.get("pid") == riot:
        sys.exit("a record of riot itself (pid %s): %s" % (riot, line.strip()))
    if line.startswith("syscall ") and f.get("op") == "newfstatat":
        d = int(f["dur"])
        n += f.get("path") == "/" and f["pid"] == pid
        raw, less = raw + d, less + max(d - probe, 0)
print(n, raw, less)' "$2" "$3" "$4"
}

# report_stat LOG [ARGS]: "lat_sum_ns probe_ns" of newfstatat, riot report ARGS
report_stat() {
	rm -f "$IT_TMP/r.db"
	"$RIOT" report "$@" -o "$IT_TMP/r.db" >"$IT_TMP/r.out" 2>"$IT_TMP/r.err" ||
		fail "riot report $*: $(cat "$IT_TMP/r.err")"
	python3 -c 'import sqlite3,sys
c = sqlite3.connect(sys.argv[1])
s = c.execute("SELECT lat_sum_ns FROM syscalls WHERE sys = ?", ("newfstatat",)).fetchone()[0]
p = c.execute("SELECT probe_ns FROM runs").fetchone()[0]
print(s, "NULL" if p is None else p)' "$IT_TMP/r.db"
}

# ---- a command ----
"$RIOT" capture -q -o "$IT_TMP/c.riot" -- "$BIN/sysloop" stat 3000 / >/dev/null 2>"$IT_TMP/c.err" &
RPID=$!
wait $RPID || fail "capture: $(cat "$IT_TMP/c.err")"
read -r version calls probe untraced recorded < <(info_probe "$IT_TMP/c.riot")
[ "$version" = 2.0 ] || fail "format $version, want 2.0"
[ "$calls" -ge 1024 ] && [ "$calls" -le 2048 ] || fail "probe_calls $calls, want 1024 to 2048 (of 2048 calls)"
[ "$untraced" -gt 0 ] && [ "$recorded" -gt 0 ] || fail "untraced $untraced ns, recorded $recorded ns"
want=$((recorded > untraced ? recorded - untraced : 0))
[ "$probe" = "$want" ] || fail "probe_ns $probe, want $recorded - $untraced = $want"
"$RIOT" info "$IT_TMP/c.riot" | grep -qxF "probe time:  $probe ns a call, taken off durations by riot report ($calls newfstatat: $untraced ns untraced, $recorded ns recorded)" ||
	fail "riot info: $("$RIOT" info "$IT_TMP/c.riot" | grep -i probe)"
pid=$("$RIOT" dump "$IT_TMP/c.riot" | sed -n 's/^syscall .* op=execve pid=\([0-9]*\) .*/\1/p' | head -n 1)
[ -n "$pid" ] || fail "no execve of the command in the log"
read -r n raw less < <(stat_sums "$IT_TMP/c.riot" "$pid" "$RPID" "$probe") || fail "dump of the command's log"
[ "$n" = 3000 ] || fail "$n newfstatat of / in the log, want the command's 3000"
read -r sum p < <(report_stat "$IT_TMP/c.riot")
[ "$sum" = "$less" ] || fail "report's newfstatat latency sum $sum, want $less ($raw recorded less $probe ns each)"
[ "$p" = "$probe" ] || fail "report's runs.probe_ns $p, want $probe"
grep -qF ", $probe ns of probe time taken off each latency" "$IT_TMP/r.out" ||
	fail "report's line: $(cat "$IT_TMP/r.out")"
read -r sum p < <(report_stat "$IT_TMP/c.riot" --raw-durations)
[ "$sum" = "$raw" ] || fail "--raw-durations: latency sum $sum, want $raw"
[ "$p" = NULL ] || fail "--raw-durations: runs.probe_ns $p, want NULL"
rm -f "$IT_TMP/s.db"
"$RIOT" report "$IT_TMP/c.riot" -o "$IT_TMP/s.db" >/dev/null 2>&1 || fail "riot report"
if [ "$probe" -gt 0 ]; then
	"$RIOT" report show "$IT_TMP/s.db" | grep -qxF "  probe time  $probe ns taken off each latency (what the capture's probes added)" ||
		fail "report show: $("$RIOT" report show "$IT_TMP/s.db" | sed -n 3,14p)"
fi

# ---- -p: the traced set finds a task by its slot; calibration's must go ----
"$BIN/sysloop" stat 100000000 / 2000 >/dev/null 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null' EXIT
sleep 0.2
# not -q: riot writes its start line to a file once the programs are
# attached, a call its own slot would have recorded
"$RIOT" capture -p "$SPID" -d 0.5 -o "$IT_TMP/p.riot" >/dev/null 2>"$IT_TMP/p.err" &
RPID=$!
wait $RPID || fail "capture -p: $(cat "$IT_TMP/p.err")"
kill "$SPID" 2>/dev/null
read -r _ calls probe untraced recorded < <(info_probe "$IT_TMP/p.riot")
[ "$calls" -ge 1024 ] && [ "$calls" -le 2048 ] || fail "-p: probe_calls $calls, want 1024 to 2048"
read -r n raw less < <(stat_sums "$IT_TMP/p.riot" "$SPID" "$RPID" "$probe") || fail "-p: dump"
[ "$n" -gt 0 ] || fail "-p: none of the target's newfstatat calls in the log"

# ---- --ops without newfstatat: nothing measured, nothing taken off ----
"$RIOT" capture -q --ops pread64,openat -o "$IT_TMP/o.riot" -- "$BIN/sysloop" pread 100 >/dev/null 2>"$IT_TMP/o.err" ||
	fail "capture --ops: $(cat "$IT_TMP/o.err")"
read -r _ calls probe untraced recorded < <(info_probe "$IT_TMP/o.riot")
[ "$calls" = 0 ] && [ "$probe" = 0 ] || fail "--ops pread64,openat: probe_calls $calls, probe_ns $probe, want none"
"$RIOT" info "$IT_TMP/o.riot" | grep -q "^probe time" && fail "--ops: riot info shows a probe time"
"$RIOT" report "$IT_TMP/o.riot" -o "$IT_TMP/o.db" >"$IT_TMP/o.out" 2>&1 || fail "report --ops log"
grep -q "probe time" "$IT_TMP/o.out" && fail "--ops: report took a probe time off: $(cat "$IT_TMP/o.out")"
echo PASS
