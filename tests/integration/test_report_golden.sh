#!/usr/bin/env bash
# test_report_golden: what `riot report show` and `riot compare` print,
# as text and as JSON, is exactly tests/golden/report.*: a report of two
# golden logs (capture-1.5 and records-1.5) plus two replays of the
# capture written here with fixed numbers (one paced, with issue delays
# and divergences; one as fast as possible, with skipped calls and a call
# it did not issue), so every table, the fidelity, the classes' left-out
# calls and the JSON of each are pinned. The machine facts
# `riot report` fills in on the capture host are set to fixed values.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
G=$(cd "$IT_DIR/../golden" && pwd)
cd "$IT_TMP" || fail "no $IT_TMP"
cp "$G/capture-1.5.riot" "$G/records-1.5.riot" . || fail "copying the golden logs"
"$RIOT" report capture-1.5.riot -o r.db --label cap >out 2>&1 || fail "riot report: $(cat out)"
"$RIOT" report records-1.5.riot -o r.db --label rec >out 2>&1 || fail "riot report: $(cat out)"
python3 - r.db <<'PY' || fail "writing the replays"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE runs SET cpu_model = 'Golden CPU', cpu_count = 4, memory_bytes = 8589934592, "
          "fs_type = 'ext4', fs_device = '/dev/golden1', fs_mount_point = '/srv', "
          "fs_mount_options = 'rw,relatime'")
cols = [r[1] for r in c.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "label")]
def replay(label, speed, delays):
    c.execute("INSERT INTO runs (label, %s) SELECT ?, %s FROM runs WHERE label = 'cap'"
              % (", ".join(cols), ", ".join(cols)), (label,))
    rid = c.execute("SELECT id FROM runs WHERE label = ?", (label,)).fetchone()[0]
    c.execute("UPDATE runs SET kind = 'replay', host = 'replayhost', kernel = '6.1.0', "
              "replay_speed = ?, replay_order = 'resource', replay_workers = 2, "
              "replay_engine = 'io_uring', replay_fill = 'random', "
              "start_unix_ns = 1700000000000000000, duration_ns = duration_ns * 3 / 2, "
              "busy_ns = busy_ns * 2, cmdline = 'riot replay capture-1.5.riot' WHERE id = ?",
              (speed, rid))
    for t in ("files", "processes", "errors", "histograms"):
        tc = [r[1] for r in c.execute("PRAGMA table_info(%s)" % t) if r[1] != "run_id"]
        c.execute("INSERT INTO %s (run_id, %s) SELECT ?, %s FROM %s WHERE run_id = 1"
                  % (t, ", ".join(tc), ", ".join(tc), t), (rid,))
    c.execute("INSERT INTO syscalls (run_id, sys, class, count, errors, bytes, lat_sum_ns, "
              "lat_mean_ns, lat_min_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, "
              "lat_max_ns, delay_count, delay_p50_ns, delay_p99_ns, delay_max_ns) "
              "SELECT ?, sys, class, count, errors, bytes, lat_sum_ns * 2, "
              "lat_mean_ns * 2, lat_min_ns, lat_p50_ns * 2, lat_p90_ns * 2, lat_p99_ns * 3, "
              "lat_p999_ns * 3, lat_max_ns * 3, %s FROM syscalls WHERE run_id = 1"
              % ("count, 700 + length(sys), 1500 + length(sys), 9000 + length(sys)" if delays
                 else "0, NULL, NULL, NULL"), (rid,))
    c.execute("INSERT INTO classes (run_id, class, count, errors, bytes, lat_sum_ns, "
              "lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns) SELECT ?, class, "
              "count, errors, bytes, lat_sum_ns * 2, "
              "lat_p50_ns * 2, lat_p90_ns * 2, lat_p99_ns * 3, lat_p999_ns * 3, "
              "lat_max_ns * 3 FROM classes WHERE run_id = 1", (rid,))
    return rid
p = replay("paced", 1.0, True)
c.executemany("INSERT INTO divergences VALUES (?, ?, ?, ?)",
              [(p, "openat", "result", 1), (p, "write", "bytes", 2), (p, "unlinkat", "other", 1)])
f = replay("fast", 0.0, False)
# a call the fast replay did not issue: compare's classes leave it out
c.execute("DELETE FROM syscalls WHERE run_id = ? AND sys = 'fadvise64'", (f,))
c.execute("DELETE FROM histograms WHERE run_id = ? AND sys = 'fadvise64'", (f,))
c.executemany("INSERT INTO divergences VALUES (?, ?, ?, ?)",
              [(f, "renameat2", "skipped", 1), (f, "newfstatat", "result", 3)])
c.commit()
PY
check() { # golden file, riot arguments...
	local want=$1
	shift
	"$RIOT" "$@" >./got 2>./err || fail "riot $*: $(cat ./err)"
	[ ! -s ./err ] || fail "riot $* wrote to stderr: $(cat ./err)"
	diff -u "$G/$want" ./got >./diff || fail "riot $* differs from $want: $(head -n 30 diff)"
}
check report.show.txt report show r.db
check report.show.json report show r.db --json
check report.compare.txt compare r.db
check report.compare.json compare r.db --json
check report.compare-paced.txt compare r.db cap paced
check report.compare-fast.txt compare r.db cap fast
check report.compare-fast.json compare r.db cap fast --json
echo PASS
