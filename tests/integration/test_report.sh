#!/usr/bin/env bash
# test_report: `riot report` on generated logs. Its counts equal `riot
# info`'s; its percentiles agree with a brute-force computation over the
# events it kept; several labelled runs share a database; `report show`
# and `compare` read them back (compare's ratios recomputed here); bad
# input is one line on stderr and exit 1. Needs no root.
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-report-it.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_error CMD...: exit 1 and exactly one line on stderr, "riot: ...".
expect_error() {
	"$@" >"$T/err.out" 2>"$T/err.txt"
	local rc=$?
	[ $rc -eq 1 ] || fail "$* exited $rc, expected 1: $(cat "$T/err.txt")"
	[ "$(wc -l <"$T/err.txt")" -eq 1 ] || fail "$* printed more than one line: $(cat "$T/err.txt")"
	grep -q '^riot: ' "$T/err.txt" || fail "$* error not in riot's form: $(cat "$T/err.txt")"
	cat "$T/err.txt"
}

"$BIN/genlog" --shape all -n 30000 --seed 3 -o "$T/a.riot" || fail "genlog a"
"$BIN/genlog" --shape mixed -n 20000 --seed 4 -o "$T/b.riot" || fail "genlog b"
"$RIOT" info --json "$T/a.riot" >"$T/a.json" || fail "riot info a"
"$RIOT" info --json "$T/b.riot" >"$T/b.json" || fail "riot info b"

"$RIOT" report "$T/a.riot" -o "$T/r.db" --label cap-a --events >"$T/out" ||
	fail "riot report a: $(cat "$T/out")"
"$RIOT" report "$T/b.riot" -o "$T/r.db" --label cap-b >"$T/out" || fail "riot report b"
"$RIOT" report "$T/b.riot" -o "$T/r.db" >"$T/out" || fail "riot report b, derived label"
"$RIOT" report show "$T/r.db" --json >"$T/show.json" || fail "report show --json"
"$RIOT" report show "$T/r.db" >"$T/show.txt" || fail "report show"
"$RIOT" report show "$T/r.db" --run cap-b >"$T/show-b.txt" || fail "report show --run"
"$RIOT" compare "$T/r.db" cap-a cap-b --json >"$T/cmp.json" || fail "compare --json"
"$RIOT" compare "$T/r.db" cap-a cap-b >"$T/cmp.txt" || fail "compare"

python3 - "$T" <<'PY' || fail "report contents"
import json, math, sqlite3, sys
T = sys.argv[1]
db = sqlite3.connect(T + "/r.db")
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")

runs = {r[0]: r for r in db.execute("SELECT label, id, ops, errors, proc_events, bytes_read, "
                                    "bytes_written, duration_ns, dropped_events FROM runs")}
eq("labels", sorted(runs), ["cap-a", "cap-b", "capture"])
for label, info_file in (("cap-a", "a.json"), ("cap-b", "b.json"), ("capture", "b.json")):
    info = json.load(open(f"{T}/{info_file}"))
    _, rid, ops, errors, proc, rd, wr, dur, drops = runs[label]
    eq(f"{label} ops", ops, info["syscalls"])
    eq(f"{label} errors", errors, info["errors"])
    eq(f"{label} proc events", proc, info["records"].get("proc", 0))
    eq(f"{label} bytes read", rd, info["bytes_read"])
    eq(f"{label} bytes written", wr, info["bytes_written"])
    eq(f"{label} duration", dur, info["duration_ns"])
    eq(f"{label} drops", drops, info["drops"])
    per = {s: (c, e) for s, c, e in db.execute(
        "SELECT sys, count, errors FROM syscalls WHERE run_id = ?", (rid,))}
    eq(f"{label} per-syscall counts", {s: c for s, (c, e) in per.items()}, info["ops"])
    eq(f"{label} per-syscall errors", {s: e for s, (c, e) in per.items() if e}, info["op_errors"])
    eq(f"{label} classes all", db.execute("SELECT count FROM classes WHERE run_id = ? AND "
                                          "class = 'all'", (rid,)).fetchone()[0], info["syscalls"])
    eq(f"{label} file ops", db.execute("SELECT sum(ops) FROM files WHERE run_id = ?",
                                       (rid,)).fetchone()[0], info["syscalls"])
    eq(f"{label} errno counts", db.execute("SELECT sum(count) FROM errors WHERE run_id = ?",
                                           (rid,)).fetchone()[0] or 0, info["errors"])

# percentiles against the kept events, brute force
rid = runs["cap-a"][1]
eq("events kept", db.execute("SELECT count(*) FROM events WHERE run_id = ?", (rid,)).fetchone()[0],
   runs["cap-a"][2])
eq("no events for cap-b", db.execute("SELECT count(*) FROM events WHERE run_id = ?",
                                     (runs["cap-b"][1],)).fetchone()[0], 0)
lat = {}
for sys_name, l in db.execute("SELECT n.name, e.lat_ns FROM events e JOIN syscall_names n "
                              "ON n.id = e.sys WHERE run_id = ?", (rid,)):
    lat.setdefault(sys_name, []).append(l)
checked = 0
for row in db.execute("SELECT sys, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns, "
                      "lat_min_ns, lat_sum_ns FROM syscalls WHERE run_id = ?", (rid,)):
    name, got = row[0], row[1:5]
    xs = sorted(lat[name])
    eq(f"{name} max", row[5], xs[-1])
    eq(f"{name} min", row[6], xs[0])
    eq(f"{name} sum", row[7], sum(xs))
    for q, g in zip((0.5, 0.9, 0.99, 0.999), got):
        want = xs[max(1, math.ceil(q * len(xs))) - 1]
        if not (want <= g <= want + want // 64 + 1):
            bad.append(f"{name} p{q}: {g} not within a bucket of {want}")
        checked += 1
    if list(got) != sorted(got) or got[3] > row[5]:
        bad.append(f"{name} percentiles not monotone: {got} max {row[5]}")
if checked < 40:
    bad.append(f"only {checked} percentiles checked")

# show --json carries the same numbers
show = json.load(open(T + "/show.json"))
eq("show runs", [r["label"] for r in show["runs"]], ["cap-a", "cap-b", "capture"])
eq("show ops", show["runs"][0]["ops"], runs["cap-a"][2])
eq("show read count", show["runs"][1]["syscalls"]["read"]["count"],
   db.execute("SELECT count FROM syscalls WHERE run_id = ? AND sys = 'read'",
              (runs["cap-b"][1],)).fetchone()[0])

# compare's ratios, recomputed from the database; rates are over the time
# spent in the class's calls; printed with 6 significant digits,
# nanoseconds exactly. Winners only beyond 5 % (no repeats here).
cmp = json.load(open(T + "/cmp.json"))
eq("compare runs", [r["label"] for r in cmp["runs"]], ["cap-a", "cap-b"])
ida, idb = runs["cap-a"][1], runs["cap-b"][1]
def verdict(va, vb, lower_better):
    hi, lo = max(va, vb), min(va, vb)
    if hi - lo <= 0.05 * hi:
        return None
    return "cap-a" if (va < vb) == lower_better else "cap-b"
for cls in ("data_read", "all"):
    (ca, ba, pa, sa), (cb, bb, pb, sb) = [db.execute(
        "SELECT count, bytes, lat_p99_ns, lat_sum_ns FROM classes WHERE run_id = ? AND class = ?",
        (i, cls)).fetchone() for i in (ida, idb)]
    m = cmp["classes"][cls]
    va, vb = ca * 1e9 / sa, cb * 1e9 / sb
    if not (math.isclose(m["ops/s"]["values"][0], va, rel_tol=1e-5) and
            math.isclose(m["ops/s"]["ratios"][0], vb / va, rel_tol=1e-5)):
        bad.append(f"{cls} ops/s {m['ops/s']} != {va}, {vb}")
    eq(f"{cls} ops/s winner", m["ops/s"]["winner"], verdict(va, vb, False))
    ta, tb = ba * 1e9 / sa / 1048576, bb * 1e9 / sb / 1048576
    if not math.isclose(m["MiB/s"]["ratios"][0], tb / ta, rel_tol=1e-5):
        bad.append(f"{cls} MiB/s ratio {m['MiB/s']['ratios'][0]} != {tb / ta}")
    if not math.isclose(m["p99"]["ratios"][0], pb / pa, rel_tol=1e-5):
        bad.append(f"{cls} p99 ratio {m['p99']['ratios'][0]} != {pb / pa}")
    eq(f"{cls} total time", m["total time"]["values"], [sa, sb])
    eq(f"{cls} total winner", m["total time"]["winner"], verdict(sa, sb, True))
    eq(f"{cls} total verdict", m["total time"]["verdict"],
       "winner" if verdict(sa, sb, True) else "within noise")
eq("different logs: no elapsed winner", cmp["run"]["run"]["elapsed"]["verdict"], "none")
eq("compare syscalls", "read" in cmp["syscalls"] and "fsync" in cmp["syscalls"], True)
eq("no fidelity between captures", cmp["fidelity"], [])
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

grep -q '^run [0-9]*: cap-b (capture)' "$T/show-b.txt" || fail "show --run cap-b: $(head -3 "$T/show-b.txt")"
grep -q '^  read ' "$T/show-b.txt" || fail "show lacks the read row"
[ "$(grep -c '^run [0-9]*: ' "$T/show.txt")" -eq 3 ] || fail "show lists $(grep -c '^run ' "$T/show.txt") runs, expected 3"
grep -q '^per class' "$T/cmp.txt" || fail "compare text lacks the class table"

# compare A.db B.db: a run from each database
"$RIOT" report "$T/a.riot" -o "$T/one.db" --label only-a >/dev/null || fail "report one.db"
"$RIOT" report "$T/b.riot" -o "$T/two.db" --label only-b >/dev/null || fail "report two.db"
"$RIOT" compare "$T/one.db" "$T/two.db" --json >"$T/cmp2.json" || fail "compare A.db B.db"
python3 -c 'import json,sys; r=[x["label"] for x in json.load(open(sys.argv[1]))["runs"]]; sys.exit(r != ["only-a","only-b"])' \
	"$T/cmp2.json" || fail "compare A.db B.db runs"

# bad input: one line, exit 1
echo "this is not a database, just some text that is long enough" >"$T/text.db"
expect_error "$RIOT" report show "$T/text.db" | grep -q 'not a riot report' || fail "text file"
expect_error "$RIOT" report "$T/b.riot" -o "$T/text.db" | grep -q 'not a riot report' || fail "report into text"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t(x)"); c.commit()' "$T/other.db"
expect_error "$RIOT" compare "$T/other.db" "$T/r.db" | grep -q 'not a riot report' || fail "other sqlite"
cp "$T/r.db" "$T/newer.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE meta SET value = 99 WHERE key = \"schema_version\""); c.commit()' "$T/newer.db"
expect_error "$RIOT" report show "$T/newer.db" | grep -q 'newer riot' || fail "newer schema"
expect_error "$RIOT" report "$T/b.riot" -o "$T/newer.db" | grep -q 'newer riot' || fail "report into newer"
# the schema version this riot writes: the one schema.sql's first line names
V=$(sed -n '1s/.*(schema version \([0-9][0-9]*\)).*/\1/p' "$(dirname "$0")/../../report/schema.sql")
[ -n "$V" ] || fail "no schema version on schema.sql's first line"
# a report of schema version 1 (no timing columns, no device tables) takes
# new runs: it is brought to version 3, and its old runs are kept
# (this schema without what versions 2 and 3 added, and one run)
python3 - "$T/v1.db" "$(dirname "$0")/../../report/schema.sql" <<'PY' || fail "making a version 1 report"
import re, sqlite3, sys
sql = open(sys.argv[2]).read()
sql = re.sub(r"\t-- version 8 \(an older.*?gap_p99_ns INTEGER,\n", "", sql, flags=re.S)
sql = sql[:sql.index("-- Added in version 3")]
sql = re.sub(r"(delay_max_ns INTEGER),([^\n]*\n)\t-- version 4.*?\n\);", r"\1\2);", sql, flags=re.S)
assert "fleet_runs" not in sql
sql = sql.replace("events_kept INTEGER NOT NULL,", "events_kept INTEGER NOT NULL")
sql = re.sub(r"\n\t-- paced replays \(version 2\).*?delay_max_ns INTEGER[^\n]*\n", "\n", sql, flags=re.S)
assert "timing_kept" not in sql
c = sqlite3.connect(sys.argv[1])
c.executescript(sql)
c.execute("INSERT INTO meta VALUES ('application', 'riot'), ('schema_version', '1')")
c.execute("INSERT INTO runs (label, kind, created_unix, duration_ns, ops, errors, proc_events, "
          "bytes_read, bytes_written, busy_ns, dropped_events, unresolved_fds, unknown_cwd, "
          "truncated_paths, timeline_late, events_kept) VALUES ('old', 'capture', 1, 1, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)")
c.commit()
PY
before=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$T/v1.db")
"$RIOT" report show "$T/v1.db" >/dev/null || fail "report show of a version 1 report"
"$RIOT" report "$T/b.riot" -o "$T/v1.db" --label after-v1 >/dev/null || fail "report into a version 1 report"
got=$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select value from meta where key = \"schema_version\"").fetchone()[0], c.execute("select count(*) from runs").fetchone()[0], c.execute("select count(*) from runs where timing_kept is null").fetchone()[0])' "$T/v1.db")
[ "$got" = "$V $((before + 1)) $((before + 1))" ] || fail "version 1 report after a new run: '$got', expected '$V $((before + 1)) $((before + 1))'"
# a report of version 2 (no device tables) is brought to version 3: the
# tables appear and show reads it
python3 - "$T/v2.db" "$(dirname "$0")/../../report/schema.sql" <<'PY' || fail "making a version 2 report"
import re, sqlite3, sys
sql = open(sys.argv[2]).read()
sql = re.sub(r"\t-- version 8 \(an older.*?gap_p99_ns INTEGER,\n", "", sql, flags=re.S)
sql = sql[:sql.index("-- Added in version 3")]
sql = re.sub(r"(delay_max_ns INTEGER),([^\n]*\n)\t-- version 4.*?\n\);", r"\1\2);", sql, flags=re.S)
assert "fleet_runs" not in sql
c = sqlite3.connect(sys.argv[1])
c.executescript(sql)
c.execute("INSERT INTO meta VALUES ('application', 'riot'), ('schema_version', '2')")
c.commit()
PY
"$RIOT" report "$T/b.riot" -o "$T/v2.db" --label v2-a >/dev/null || fail "report into a version 2 report"
"$RIOT" report show "$T/v2.db" >/dev/null || fail "report show of a version 2 report"
got=$(sqlite3 "$T/v2.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT count(*) FROM runs; SELECT count(*) FROM sqlite_master WHERE name IN ('devices', 'device_depth')" | tr '\n' ' ')
[ "$got" = "$V 1 2 " ] || fail "version 2 report after a new run: '$got', expected '$V 1 2 '"
# a report of version 3 gains the columns of version 4 in place (start_late_ns,
# shard, fleet_runs), its runs kept
python3 - "$T/v3.db" "$(dirname "$0")/../../report/schema.sql" <<'PY' || fail "making a version 3 report"
import re, sqlite3, sys
sql = open(sys.argv[2]).read()
sql = re.sub(r"\t-- version 8 \(an older.*?gap_p99_ns INTEGER,\n", "", sql, flags=re.S)
sql = re.sub(r"(delay_max_ns INTEGER),([^\n]*\n)\t-- version 4.*?\n\);", r"\1\2);", sql, flags=re.S)
assert "fleet_runs" not in sql
c = sqlite3.connect(sys.argv[1])
c.executescript(sql)
c.execute("INSERT INTO meta VALUES ('application', 'riot'), ('schema_version', '3')")
c.execute("INSERT INTO runs (label, kind, created_unix, duration_ns, ops, errors, proc_events, "
          "bytes_read, bytes_written, busy_ns, dropped_events, unresolved_fds, unknown_cwd, "
          "truncated_paths, timeline_late, events_kept) VALUES ('old3', 'capture', 1, 1, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)")
c.commit()
PY
"$RIOT" report "$T/b.riot" -o "$T/v3.db" --label v3-a >/dev/null || fail "report into a version 3 report"
got=$(sqlite3 "$T/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT group_concat(label) FROM runs; SELECT count(*) FROM runs WHERE start_late_ns IS NULL AND shard IS NULL AND fleet_runs IS NULL" | tr '\n' ' ')
[ "$got" = "$V old3,v3-a 2 " ] || fail "version 3 report after a new run: '$got', expected '$V old3,v3-a 2 '"
# old_report DB VERSION LAST NEW: a report of schema VERSION (schema.sql
# without the columns after LAST, from the comment "-- version NEW" on)
# with one capture run, old<VERSION>.
old_report() {
	python3 - "$1" "$(dirname "$0")/../../report/schema.sql" "$2" "$3" "$4" <<'PY' || fail "making a version $2 report"
import re, sqlite3, sys
db, schema, version, last, new = sys.argv[1:]
sql = open(schema).read()
sql = re.sub(r"\t-- version 8 \(an older.*?gap_p99_ns INTEGER,\n", "", sql, flags=re.S)
sql = re.sub(r"(%s [A-Z]+),(.*?)\t-- version %s.*?\n\);" % (last, new), r"\1\2);", sql, flags=re.S)
assert "-- version %s" % new not in sql and last in sql
c = sqlite3.connect(db)
c.executescript(sql)
c.execute("INSERT INTO meta VALUES ('application', 'riot'), ('schema_version', ?)", (version,))
c.execute("INSERT INTO runs (label, kind, created_unix, duration_ns, ops, errors, proc_events, "
          "bytes_read, bytes_written, busy_ns, dropped_events, unresolved_fds, unknown_cwd, "
          "truncated_paths, timeline_late, events_kept) VALUES (?, 'capture', 1, 1, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)", ("old" + version,))
c.commit()
PY
}
# a report of version 4 gains probe_ns (version 5) in place, its runs kept
old_report "$T/v4.db" 4 fleet_runs 5
"$RIOT" report "$T/b.riot" -o "$T/v4.db" --label v4-a >/dev/null || fail "report into a version 4 report"
"$RIOT" report show "$T/v4.db" >/dev/null || fail "report show of a version 4 report"
got=$(sqlite3 "$T/v4.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT group_concat(label) FROM runs; SELECT label FROM runs WHERE probe_ns IS NULL" | tr '\n' ' ')
[ "$got" = "$V old4,v4-a old4 v4-a " ] || fail "version 4 report after a new run: '$got', expected '$V old4,v4-a old4 v4-a '"
# a report of version 5 gains the replay timing columns (version 6) in
# place, its runs kept; a replay stored into it fills them
old_report "$T/v5.db" 5 probe_ns 6
"$RIOT" replay "$T/b.riot" --root "$T/root-v5" --timing think --report "$T/v5.db" --label v5-think \
	>/dev/null 2>&1 || fail "replay into a version 5 report"
got=$(sqlite3 "$T/v5.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT group_concat(label) FROM runs; SELECT label FROM runs WHERE predicted_ns IS NULL; SELECT replay_timing, predicted_ns > 0, captured_ns > 0, unreliable IN (0, 1) FROM runs WHERE label = 'v5-think'" | tr '\n' ' ')
[ "$got" = "$V old5,v5-think old5 think|1|1|1 " ] || fail "version 5 report after a replay: '$got', expected '$V old5,v5-think old5 think|1|1|1 '"
# a report of version 6 gains fleet_id and the device sharing columns
# (version 7); an old merge's one fleet run gets its members: the other
# runs of its kind
old_report "$T/v6.db" 6 warning 7
sqlite3 "$T/v6.db" "INSERT INTO runs (label, kind, created_unix, duration_ns, ops, errors, proc_events, bytes_read, bytes_written, busy_ns, dropped_events, unresolved_fds, unknown_cwd, truncated_paths, timeline_late, events_kept, fleet_runs) VALUES ('s0@a', 'replay', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL), ('s1@b', 'replay', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL), ('fleet', 'replay', 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2)" ||
	fail "an old merge's runs"
"$RIOT" report "$T/b.riot" -o "$T/v6.db" --label v6-a >/dev/null || fail "report into a version 6 report"
got=$(sqlite3 "$T/v6.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT group_concat(label || '>' || coalesce((SELECT label FROM runs f WHERE f.id = r.fleet_id), '-'), ' ') FROM runs r" | tr '\n' ' ')
[ "$got" = "$V old6>- s0@a>fleet s1@b>fleet fleet>- v6-a>- " ] || fail "version 6 report after a new run: '$got'"
# a report of version 7 gains the classes' think time columns and the
# stacks table (version 8); its runs are kept, with no think time
python3 - "$T/v7.db" "$(dirname "$0")/../../report/schema.sql" <<'PY' || fail "making a version 7 report"
import re, sqlite3, sys
sql = open(sys.argv[2]).read()
sql = re.sub(r"\t-- version 8 \(an older.*?gap_p99_ns INTEGER,\n", "", sql, flags=re.S)
sql = sql[:sql.index("-- Added in version 8")]
assert "gap_count" not in sql and "stacks" not in sql
c = sqlite3.connect(sys.argv[1])
c.executescript(sql)
c.execute("INSERT INTO meta VALUES ('application', 'riot'), ('schema_version', '7')")
c.execute("INSERT INTO runs (label, kind, created_unix, duration_ns, ops, errors, proc_events, "
          "bytes_read, bytes_written, busy_ns, dropped_events, unresolved_fds, unknown_cwd, "
          "truncated_paths, timeline_late, events_kept) VALUES ('old7', 'capture', 1, 1, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)")
c.execute("INSERT INTO classes VALUES (1, 'all', 1, 0, 0, 5, 5, 5, 5, 5, 5)")
c.commit()
PY
"$RIOT" report show "$T/v7.db" >/dev/null || fail "report show of a version 7 report"
"$RIOT" report "$T/b.riot" -o "$T/v7.db" --label v7-a >/dev/null || fail "report into a version 7 report"
got=$(sqlite3 "$T/v7.db" "SELECT value FROM meta WHERE key = 'schema_version'; SELECT group_concat(label) FROM runs; SELECT count(*) FROM classes WHERE run_id = 1 AND gap_count IS NULL; SELECT count(*) > 0 FROM stacks s JOIN runs r ON r.id = s.run_id WHERE r.label = 'v7-a'; SELECT count(*) FROM stacks s JOIN runs r ON r.id = s.run_id WHERE r.label = 'old7'" | tr '\n' ' ')
[ "$got" = "$V old7,v7-a 1 1 0 " ] || fail "version 7 report after a new run: '$got', expected '$V old7,v7-a 1 1 0 '"
"$RIOT" report show "$T/v7.db" >/dev/null || fail "report show of an upgraded version 7 report"
expect_error "$RIOT" report show "$T/r.db" --run nosuch | grep -q "no run 'nosuch'" || fail "unknown run"
expect_error "$RIOT" compare "$T/r.db" cap-a nosuch | grep -q "no run 'nosuch'" || fail "compare unknown run"
expect_error "$RIOT" report show "$T/missing.db" | grep -q 'No such file' || fail "missing db"
expect_error "$RIOT" report "$T/b.riot" -o "$T/r.db" --label cap-a | grep -q 'exists already' || fail "duplicate label"
expect_error "$RIOT" compare "$T/one.db" | grep -q 'at least two runs' || fail "one run"
expect_error "$RIOT" report "$T/text.db" -o "$T/x.db" >/dev/null || fail "report of a non-log"
[ ! -e "$T/x.db" ] || [ "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$T/x.db")" = 0 ] ||
	fail "a failed report left a run behind"
"$RIOT" report >/dev/null 2>&1
[ $? -eq 2 ] || fail "usage error must exit 2"
echo "ok"
