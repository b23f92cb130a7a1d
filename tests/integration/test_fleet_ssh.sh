#!/usr/bin/env bash
# examples/fleet-ssh.sh over real ssh to four hosts (an OpenSSH server on
# 127.0.0.2 ... 127.0.0.5, tests/integration/fleet_lib.sh), twice: a fleet
# replaying onto "this" storage and one onto "that" (two roots), each
# merged by the recipe into this.db and that.db. Then compare takes each
# fleet as one run:
# - riot compare this.db that.db: two groups, fleet@this and fleet@that
#   (the same label "fleet" from two databases is two storages, not
#   repeats), each a fleet of its 4 shards, which never appear as runs or
#   winners; every figure of both with its shards' range (~ in text,
#   shard_range in JSON, the range holding each shard's own figure);
# - the same from one report merging both (riot report merge this.db
#   that.db): the same two fleets, no third one summing all 8 shards;
# - riot compare this.db: the one fleet with its shards' spread;
# - --html: each fleet with its shards as a distribution.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
. "$(dirname "$0")/fleet_lib.sh"
EXAMPLES=$IT_DIR/../../examples
sshd_up 4
LOG=$IT_TMP/app.riot
python3 "$IT_DIR/fleet_log.py" 32 | "$BIN/mklog" -o "$LOG" || fail "mklog"
mkdir -p "$IT_TMP/remote"
# "this" with the device view, "that" without
for st in this that; do
	args=--no-block
	[ $st = that ] || args=
	SSH=$FLEET_SSH RIOT=$RIOT LEAD=3 REMOTE_DIR=$IT_TMP/remote RIOT_ARGS=$args \
		sh "$EXAMPLES/fleet-ssh.sh" "$LOG" "$IT_TMP/$st/root" "$IT_TMP/$st.db" h0 h1 h2 h3 \
		>"$IT_TMP/$st.out" 2>&1 || fail "fleet-ssh.sh ($st): $(cat "$IT_TMP/$st.out")"
done
"$RIOT" report merge "$IT_TMP/this.db" "$IT_TMP/that.db" -o "$IT_TMP/both.db" ||
	fail "merging the two merged reports"

"$RIOT" compare "$IT_TMP/this.db" "$IT_TMP/that.db" --json >"$IT_TMP/cmp.json" ||
	fail "compare of two merged reports"
"$RIOT" compare "$IT_TMP/both.db" --json >"$IT_TMP/both.json" || fail "compare of both.db"
"$RIOT" compare "$IT_TMP/this.db" --json >"$IT_TMP/one.json" || fail "compare of one fleet"
python3 - "$IT_TMP" <<'PY' || fail "fleet comparison"
import json, sqlite3, sys
tmp = sys.argv[1]
bad = []
def check(name, groups, shards):
    j = json.load(open("%s/%s.json" % (tmp, name)))
    got = [(g["label"], g["runs"]) for g in j["groups"]]
    if got != [(g, 1) for g in groups]:
        bad.append("%s: groups %s" % (name, got))
    for r, pre in zip(j["runs"], shards):
        want = ["shard%d@h%d%s" % (k, k, pre) for k in range(4)]
        if r.get("shards") != want:
            bad.append("%s: %s has shards %s, not %s" % (name, r["label"], r.get("shards"), want))
    # every figure: a range per group, holding each shard's value
    rows = 0
    for table in ("run", "classes", "syscalls"):
        for op, metrics in j[table].items():
            for m, row in metrics.items():
                rows += 1
                if row["winner"] not in groups + [None]:
                    bad.append("%s: %s %s winner %s" % (name, op, m, row["winner"]))
                if len(row["shard_range"]) != len(groups):
                    bad.append("%s: %s %s range %s" % (name, op, m, row["shard_range"]))
                for rg in row["shard_range"]:
                    if rg is not None and not rg[0] <= rg[1]:
                        bad.append("%s: %s %s range %s" % (name, op, m, rg))
    if rows < 20:
        bad.append("%s: %d rows" % (name, rows))
    return j
j = check("cmp", ["fleet@this", "fleet@that"], ["", ""])
check("both", ["fleet@this", "fleet@that"], ["@this", "@that"])
check("one", ["fleet"], [""])
# the range of the fleet's "all" p99 is that of the shards' own p99s
c = sqlite3.connect(tmp + "/this.db")
p99 = [r[0] for r in c.execute("SELECT lat_p99_ns FROM classes WHERE class = 'all' AND run_id IN "
                               "(SELECT id FROM runs WHERE fleet_id IS NOT NULL)")]
rg = j["classes"]["all"]["p99"]["shard_range"][0]
if len(p99) != 4 or rg != [min(p99), max(p99)]:
    bad.append("all p99: range %s, shards %s" % (rg, p99))
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
"$RIOT" compare "$IT_TMP/this.db" "$IT_TMP/that.db" >"$IT_TMP/cmp.txt" || fail "compare (text)"
grep -q '^  #1 fleet@this: replay of log' "$IT_TMP/cmp.txt" &&
	grep -q '^  #2 fleet@that: replay of log' "$IT_TMP/cmp.txt" &&
	[ "$(grep -c '^     fleet of 4 runs: shard0@h0, shard1@h1, shard2@h2, shard3@h3' "$IT_TMP/cmp.txt")" = 2 ] ||
	fail "compare's runs: $(head -n 12 "$IT_TMP/cmp.txt")"
# shards are named only in the runs' list, never in a table
[ "$(grep -c 'shard[0-9]' "$IT_TMP/cmp.txt")" = 2 ] || fail "a shard in the tables: $(grep 'shard[0-9]' "$IT_TMP/cmp.txt")"
sed -n '/^  all /,/total time/p' "$IT_TMP/cmp.txt" |
	grep -qE '^ +p99 +[0-9.]+ [mun]?s ~[0-9]+% +[0-9.]+ [mun]?s ~[0-9]+% ' ||
	fail "no spread beside the figures: $(grep -A 5 '^  all' "$IT_TMP/cmp.txt")"
sed -n '/^per class/,/^$/p' "$IT_TMP/cmp.txt" | head -n 8
# the device view of a shard is the device's, shared with its fleet; the
# fleet's counts each device once: the most one shard of the host saw,
# over all the shards' bytes written
python3 - "$IT_TMP/this.db" <<'PY' || fail "device views of the shards"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
bad = []
shards = c.execute("SELECT id, label, device_shared, device_other_writers FROM runs "
                   "WHERE fleet_id IS NOT NULL").fetchall()
# other writers: counted where riot sees every process of the host, else
# unknown (NULL)
for rid, label, shared, others in shards:
    if shared != 1:
        bad.append("%s: device_shared %s, other writers %s" % (label, shared, others))
fid, wrote = c.execute("SELECT id, bytes_written FROM runs WHERE fleet_runs = 4").fetchone()
for dev, wb, wa in c.execute("SELECT dev, write_bytes, write_amplification FROM devices "
                             "WHERE run_id = ?", (fid,)):
    m = c.execute("SELECT max(write_bytes), count(*) FROM devices WHERE dev = ? AND run_id IN "
                  "(SELECT id FROM runs WHERE fleet_id = ?)", (dev, fid)).fetchone()
    if (wb, 4) != m or abs(wa - wb / wrote) > 1e-9:
        bad.append("fleet device %d: %s bytes, wa %s; shards' most %s, wrote %d" % (dev, wb, wa, m, wrote))
if c.execute("SELECT count(*) FROM devices WHERE run_id = ?", (fid,)).fetchone()[0] < 1:
    bad.append("the fleet has no device")
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
"$RIOT" report show "$IT_TMP/this.db" --run shard1@h1 >"$IT_TMP/show1" || fail "report show of a shard"
grep -q "^device traffic: the device's in the window, shared, not this run's alone: a shard of 4, whose fleet writes the same storage" "$IT_TMP/show1" ||
	fail "a shard's device view does not say it is shared: $(grep -A 3 -i 'device traffic\|amplification' "$IT_TMP/show1")"
grep -qE '^write amplification: [0-9.]+ for the device in the window, shared \(.* reached the device; this run wrote .* to files\); the fleet.s, once per device: riot report merge$' "$IT_TMP/show1" ||
	fail "a shard's write amplification: $(grep amplification "$IT_TMP/show1")"
grep -A 40 'what reached the storage' "$IT_TMP/show1" | grep -E '^(device|write amp)'
"$RIOT" compare "$IT_TMP/this.db" "$IT_TMP/that.db" --html "$IT_TMP/cmp.html" ||
	fail "compare --html"
for st in this that; do
	grep -q "fleet fleet@$st: its 4 shards as a distribution" "$IT_TMP/cmp.html" ||
		fail "the page has no distribution of fleet@$st's shards"
done
echo "two fleets of 4 ssh hosts compared as two runs, shards as their spread"
