#!/usr/bin/env bash
# examples/fleet-ssh.sh over real ssh: an OpenSSH server started here
# (tests/integration/fleet_lib.sh) listening on 127.0.0.2 and 127.0.0.3,
# the hosts h0 and h1, so two replays run as separate sessions, each a
# shard, against one shared root, with one --start-at. Checks: both start at or after the
# target and within 5 ms of each other (the start_unix_ns their reports
# store, against the target the script chose; start_late_ns agrees; how
# late both are depends on the machine's load, which the benchmarks, not
# this test, measure); no divergence; the shared root
# ends as the whole replay's does; riot report merge keeps both runs under
# unique labels and its fleet run is exactly their sum (ops, bytes, per
# syscall counts, errors, bytes and histogram buckets, per class) and the
# whole replay's operations; compare, show and --html take the fleet run.
# Also: a --start-at already past starts at once and says how late.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/fleet_lib.sh"
EXAMPLES=$IT_DIR/../../examples
LOG=$IT_TMP/fleet.riot
python3 "$IT_DIR/fleet_log.py" | "$BIN/mklog" -o "$LOG" || fail "mklog"

"$RIOT" replay "$LOG" --root "$IT_TMP/full" --no-block --report "$IT_TMP/full.db" --label full \
	>/dev/null 2>"$IT_TMP/err" || fail "whole replay: $(cat "$IT_TMP/err")"

sshd_up 2
mkdir -p "$IT_TMP/remote"
SSH=$FLEET_SSH RIOT=$RIOT LEAD=3 REMOTE_DIR=$IT_TMP/remote RIOT_ARGS=--no-block \
	sh "$EXAMPLES/fleet-ssh.sh" "$LOG" "$IT_TMP/shared" "$IT_TMP/all.db" h0 h1 \
	>"$IT_TMP/fleet.out" 2>&1 || fail "fleet-ssh.sh: $(cat "$IT_TMP/fleet.out")"
target=$(sed -n 's/^started at \([0-9]*\) .*/\1/p' "$IT_TMP/fleet.out")
[ -n "$target" ] || fail "fleet-ssh.sh said no start: $(cat "$IT_TMP/fleet.out")"
[ -z "$(ls "$IT_TMP/remote")" ] || fail "reports left on the hosts: $(ls "$IT_TMP/remote")"
diff <(tree_of "$IT_TMP/full") <(tree_of "$IT_TMP/shared") ||
	fail "the shared root after two shards differs from the whole replay's root"

python3 - "$IT_TMP/all.db" "$IT_TMP/full.db" "$target" <<'PY' || fail "merged report"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
full = sqlite3.connect(sys.argv[2])
target = int(sys.argv[3]) * 10**9
bad = []
runs = c.execute("SELECT id, label, kind, shard, start_unix_ns, start_late_ns, fleet_runs "
                 "FROM runs ORDER BY id").fetchall()
labels = [r[1] for r in runs]
if labels != ["shard0@h0", "shard1@h1", "fleet"]:
    bad.append("labels %s" % labels)
ids = {r[1]: r[0] for r in runs}
one, fleet = [ids.get("shard0@h0"), ids.get("shard1@h1")], ids.get("fleet")
starts = []
for r in runs[:2]:
    rid, label, kind, shard, start, late, fr = r
    if shard not in ("0/2", "1/2") or fr is not None or kind != "replay":
        bad.append("%s: shard %s, fleet_runs %s, kind %s" % (label, shard, fr, kind))
    # the recorded start against the target: at or after it, and
    # start_late_ns says by how much
    if start is None or late is None or start - target != late or late < 0:
        bad.append("%s: start_unix_ns %s, start_late_ns %s, target %d" % (label, start, late, target))
    starts.append(start or 0)
if abs(starts[0] - starts[1]) > 5000000:
    bad.append("the two starts are %d ns apart" % abs(starts[0] - starts[1]))
if runs[2][6] != 2 or runs[2][3] is not None:
    bad.append("fleet run: fleet_runs %s, shard %s" % (runs[2][6], runs[2][3]))
if c.execute("SELECT count(*) FROM divergences WHERE count > 0").fetchone()[0]:
    bad.append("divergences: %s" % c.execute("SELECT * FROM divergences").fetchall())

def one_row(sql, *a):
    return c.execute(sql, a).fetchone()
# the runs row: sums
for col in ("ops", "errors", "bytes_read", "bytes_written", "busy_ns", "proc_events"):
    s = one_row("SELECT sum(%s) FROM runs WHERE id IN (?, ?)" % col, *one)[0]
    f = one_row("SELECT %s FROM runs WHERE id = ?" % col, fleet)[0]
    if s != f:
        bad.append("runs.%s: sum %s, fleet %s" % (col, s, f))
if one_row("SELECT start_unix_ns FROM runs WHERE id = ?", fleet)[0] != min(starts):
    bad.append("fleet start is not the earliest")
# per syscall, per class, per histogram bucket: exact sums
def table(sql, rid):
    return sorted(c.execute(sql, (rid,)).fetchall())
def summed(sql):
    acc = {}
    for rid in one:
        for row in c.execute(sql, (rid,)).fetchall():
            k, v = row[0:-1], row[-1]
            acc[k] = acc.get(k, 0) + v
    return sorted(k + (v,) for k, v in acc.items())
for what, cols, key in (("syscalls", ("count", "errors", "bytes", "lat_sum_ns", "delay_count"), "sys"),
                        ("classes", ("count", "errors", "bytes", "lat_sum_ns"), "class")):
    for col in cols:
        sql = "SELECT %s, %s FROM %s WHERE run_id = ?" % (key, col, what)
        if summed(sql) != table(sql, fleet):
            bad.append("%s.%s: sum %s, fleet %s" % (what, col, summed(sql), table(sql, fleet)))
sql = "SELECT sys, metric, bucket, count FROM histograms WHERE run_id = ?"
if summed(sql) != table(sql, fleet):
    bad.append("histograms differ from the sum of the runs'")
# the fleet's percentiles and extremes come from the merged histograms
for sys_, n, mx, mn in c.execute("SELECT sys, count, lat_max_ns, lat_min_ns FROM syscalls "
                                 "WHERE run_id = ?", (fleet,)):
    m = c.execute("SELECT max(lat_max_ns), min(lat_min_ns) FROM syscalls WHERE sys = ? AND "
                  "run_id IN (?, ?)", (sys_, *one)).fetchone()
    if (mx, mn) != m:
        bad.append("%s: max/min %s, runs %s" % (sys_, (mx, mn), m))
# and the union of the shards is the whole replay
sql = "SELECT sys, count, errors, bytes FROM syscalls WHERE run_id = ?"
w = sorted(full.execute(sql.replace("?", "(SELECT id FROM runs)")).fetchall())
if w != table(sql, fleet):
    bad.append("fleet syscalls %s, whole replay %s" % (table(sql, fleet), w))
sql = "SELECT pid, ops, bytes_read, bytes_written FROM processes WHERE run_id = ?"
w = sorted(full.execute(sql.replace("?", "(SELECT id FROM runs)")).fetchall())
if w != table(sql, fleet):
    bad.append("fleet processes differ from the whole replay's")
sql = "SELECT path, ops, bytes_read, bytes_written FROM files WHERE run_id = ?"
w = sorted(full.execute(sql.replace("?", "(SELECT id FROM runs)")).fetchall(), key=str)
if w != sorted(c.execute(sql, (fleet,)).fetchall(), key=str):
    bad.append("fleet files differ from the whole replay's")
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
"$RIOT" report show "$IT_TMP/all.db" --run fleet >"$IT_TMP/show" || fail "report show --run fleet"
"$RIOT" compare "$IT_TMP/all.db" shard0@h0 fleet >"$IT_TMP/compare" || fail "compare with the fleet run"
grep -q '#2 fleet: replay of log' "$IT_TMP/compare" || fail "compare does not list the fleet run"
"$RIOT" compare "$IT_TMP/all.db" --html "$IT_TMP/all.html" >/dev/null || fail "compare --html"
grep -q 'fleet' "$IT_TMP/all.html" || fail "the page does not show the fleet run"

# the fleet knows its members
got=$(sqlite3 "$IT_TMP/all.db" "SELECT group_concat(label || '>' || coalesce((SELECT label FROM runs f WHERE f.id = r.fleet_id), '-'), ' ') FROM runs r")
[ "$got" = "shard0@h0>fleet shard1@h1>fleet fleet>-" ] || fail "fleet members: $got"
# merged again: labels stay unique, each fleet keeps its own members and
# none is summed again (every run is in a fleet: no new one)
cp "$IT_TMP/all.db" "$IT_TMP/all2.db"
"$RIOT" report merge "$IT_TMP/all.db" "$IT_TMP/all2.db" -o "$IT_TMP/twice.db" ||
	fail "merging merged reports"
got=$(sqlite3 "$IT_TMP/twice.db" "SELECT group_concat(label || '>' || coalesce((SELECT label FROM runs f WHERE f.id = r.fleet_id), '-') || ':' || coalesce(fleet_runs, '-'), ' ') FROM (SELECT * FROM runs ORDER BY id) r")
[ "$got" = "shard0@h0@all>fleet@all:- shard1@h1@all>fleet@all:- fleet@all>-:2 shard0@h0@all2>fleet@all2:- shard1@h1@all2>fleet@all2:- fleet@all2>-:2" ] ||
	fail "merge of merges: $got"
# a merged report and a loose run: the new fleet sums the loose one only
"$RIOT" report merge "$IT_TMP/all.db" "$IT_TMP/full.db" -o "$IT_TMP/mixed.db" --label both ||
	fail "merging a merged report with a run"
got=$(sqlite3 "$IT_TMP/mixed.db" "SELECT group_concat(label || ':' || coalesce(fleet_runs, '-'), ' ') FROM runs; SELECT label FROM runs WHERE fleet_id = (SELECT id FROM runs WHERE label = 'both')" | tr '\n' '|')
[ "$got" = "shard0@h0@all:- shard1@h1@all:- fleet@all:2 full@full:- both:1|full@full|" ] ||
	fail "merge of a merged report and a run: $got"
expect_error() { { "$@" >/dev/null; } 2>&1; }
expect_error "$RIOT" report merge "$IT_TMP/all.db" -o "$IT_TMP/all2.db" | grep -q 'exists already' ||
	fail "merge onto an existing file"
echo notadb >"$IT_TMP/text.db"
expect_error "$RIOT" report merge "$IT_TMP/text.db" -o "$IT_TMP/x.db" | grep -q 'not a riot report' ||
	fail "merge of a non-report"
[ ! -e "$IT_TMP/x.db" ] || fail "a failed merge left its output"
"$RIOT" report merge -o "$IT_TMP/y.db" >/dev/null 2>&1
[ $? = 2 ] || fail "merge without inputs must be a usage error"

# a time already past: at once, late by as much
"$RIOT" replay "$LOG" --root "$IT_TMP/late" --no-block --start-at 1970-01-01T00:00:01Z --json \
	>"$IT_TMP/late.json" 2>"$IT_TMP/late.err" || fail "replay --start-at in the past"
grep -q '^riot: replay: --start-at was .* ago when init ended: starting at once$' "$IT_TMP/late.err" ||
	fail "no word of a late start: $(cat "$IT_TMP/late.err")"
python3 - "$IT_TMP/late.json" <<'PY' || fail "late start figures"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["start_at_ns"] == 10**9, j["start_at_ns"]
assert j["start_unix_ns"] - j["start_late_ns"] == 10**9, (j["start_unix_ns"], j["start_late_ns"])
assert j["start_late_ns"] > 1700000000 * 10**9, j["start_late_ns"]
PY
echo "two shards started together; fleet run is their exact sum"
