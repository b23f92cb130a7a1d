#!/usr/bin/env bash
# test_report_procs: process names and start times of stored runs. A
# snapshot's comm, an exec's comm, and a fork without exec (a server's
# worker) that keeps its parent's name: `riot report` and `riot replay
# --report` both store them (no process shown as "?"), and a thread is no
# process of its own. A replay's start is its own wall-clock start, between
# the moments before and after the command, not before them.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-report-procs.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$BIN/mklog" -o "$T/p.riot" <<'EOF' || fail "mklog"
snap_proc pid=100 cwd=/d comm=shell
snap_proc pid=200 cwd=/d comm=logger
proc_exec pid=100 path=/usr/bin/server comm=server
openat dirfd=AT_FDCWD path=/d/f flags=O_RDWR ret=3 size=65536 ftype=reg created=0
proc_fork pid=100 child=101
proc_fork pid=100 child=100 child_tid=102
read pid=101 fd=3 count=4096 ret=4096
read pid=100 tid=102 fd=3 count=4096 ret=4096
proc_fork pid=100 child=103
proc_exec pid=103 path=/bin/cat comm=cat
openat pid=103 dirfd=AT_FDCWD path=/d/g flags=O_RDONLY ret=4 size=100 ftype=reg created=0
read pid=103 fd=4 count=100 ret=100
close pid=103 fd=4
openat pid=200 dirfd=AT_FDCWD path=/d/log flags=O_RDONLY ret=5 size=10 ftype=reg created=0
read pid=200 fd=5 count=10 ret=10
read pid=100 fd=3 count=4096 ret=4096
close pid=100 fd=3
EOF
"$RIOT" report "$T/p.riot" -o "$T/r.db" --label cap >/dev/null || fail "report"
before=$(date +%s%N)
"$RIOT" replay "$T/p.riot" --root "$T/root" --report "$T/r.db" --label rep >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
after=$(date +%s%N)
"$RIOT" report show "$T/r.db" --run rep >"$T/show.txt" || fail "report show"

python3 - "$T/r.db" "$before" "$after" <<'PY' || fail "process names or start time"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
before, after = int(sys.argv[2]), int(sys.argv[3])
bad = []
want = {100: "server", 101: "server", 103: "cat", 200: "logger"}
for label in ("cap", "rep"):
    got = dict(db.execute("SELECT p.pid, p.comm FROM processes p JOIN runs r ON r.id = p.run_id "
                          "WHERE r.label = ?", (label,)))
    if got != want:
        bad.append(f"{label} processes: got {got}, want {want}")
start, created = db.execute("SELECT start_unix_ns, created_unix FROM runs WHERE label = 'rep'").fetchone()
if not before <= start <= after:
    bad.append(f"replay start {start} not within {before}..{after}")
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
grep -q '^  ? ' "$T/show.txt" && fail "report show names a process '?': $(cat "$T/show.txt")"
grep -Eq '^  server +101 ' "$T/show.txt" || fail "report show lacks the forked worker: $(tail -6 "$T/show.txt")"
echo ok
