#!/usr/bin/env bash
# riot replay --shard K/N and riot init --shard K/N: the N shards of a log
# together issue exactly the operations of one whole replay (per syscall:
# ops, issued, bytes; per process and per path: ops and bytes; per captured
# thread: its stream and its operation count), every process in exactly
# one shard with all its threads, no divergence; the N inits' trees
# partition the whole tree's files (each directory in every shard). Bad
# K/N and bad --start-at times are usage errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
LOG=$IT_TMP/fleet.riot
python3 "$IT_DIR/fleet_log.py" | "$BIN/mklog" -o "$LOG" || fail "mklog"

# usage errors: one line, exit 2, nothing made
for bad in 2/2 0/0 -1/2 a/2 1/2/3 1/ /2 0x1/2 "1 /2"; do
	for cmd in replay init; do
		"$RIOT" "$cmd" "$LOG" --root "$IT_TMP/never" --shard "$bad" >/dev/null 2>"$IT_TMP/err"
		rc=$?
		[ "$rc" = 2 ] || fail "$cmd --shard '$bad' exited $rc, expected 2"
		grep -q "^riot: $cmd: --shard wants K/N with 0 <= K < N <= 65536, got '$bad'\$" "$IT_TMP/err" ||
			fail "$cmd --shard '$bad': $(cat "$IT_TMP/err")"
	done
done
for bad in now 2026-12-03T16:00:00 2026-13-01T00:00:00Z 1.5e9 -5 ""; do
	"$RIOT" replay "$LOG" --root "$IT_TMP/never" --start-at "$bad" >/dev/null 2>"$IT_TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "--start-at '$bad' exited $rc, expected 2"
	grep -q "^riot: replay: --start-at wants an RFC 3339 time with its zone" "$IT_TMP/err" ||
		fail "--start-at '$bad': $(cat "$IT_TMP/err")"
done
[ ! -e "$IT_TMP/never" ] || fail "a usage error made the root"

# the whole replay, on its own root
"$RIOT" replay "$LOG" --root "$IT_TMP/full" --no-block --json --report "$IT_TMP/full.db" \
	--label full >"$IT_TMP/full.json" 2>"$IT_TMP/full.err" || fail "whole replay: $(cat "$IT_TMP/full.err")"
"$RIOT" replay "$LOG" --dry-run | grep '^stream ' | sed 's/^stream [0-9]*: //' | sort >"$IT_TMP/full.streams"
"$RIOT" init "$LOG" --dry-run | grep -v '^init:' | sort >"$IT_TMP/full.tree"
[ "$(wc -l <"$IT_TMP/full.streams")" = 34 ] || fail "whole plan: $(wc -l <"$IT_TMP/full.streams") streams, expected 34"

for n in 2 3; do
	: >"$IT_TMP/union.streams"
	: >"$IT_TMP/union.files"
	jsons=() dbs=()
	for k in $(seq 0 $((n - 1))); do
		# the plan of a shard: its streams, whole
		"$RIOT" replay "$LOG" --dry-run --shard "$k/$n" | grep '^stream ' |
			sed 's/^stream [0-9]*: //' >>"$IT_TMP/union.streams"
		# the tree of a shard: every directory, its share of the files
		"$RIOT" init "$LOG" --dry-run --shard "$k/$n" | grep -v '^init:' | sort >"$IT_TMP/tree.$k"
		diff <(grep '^dir ' "$IT_TMP/full.tree") <(grep '^dir ' "$IT_TMP/tree.$k") >/dev/null ||
			fail "init shard $k/$n: directories differ from the whole tree's"
		grep -v '^dir ' "$IT_TMP/tree.$k" >>"$IT_TMP/union.files"
		# each shard onto a root with the whole tree (init without
		# --shard), so its result does not wait for the others
		root=$IT_TMP/root-$k-$n
		"$RIOT" init "$LOG" --root "$root" >/dev/null || fail "init $root"
		"$RIOT" replay "$LOG" --root "$root" --no-init --no-block --shard "$k/$n" --json \
			--report "$IT_TMP/s$k-$n.db" --label "s$k" >"$IT_TMP/s$k-$n.json" 2>"$IT_TMP/err" ||
			fail "replay --shard $k/$n: $(cat "$IT_TMP/err")"
		jsons+=("$IT_TMP/s$k-$n.json")
		dbs+=("$IT_TMP/s$k-$n.db")
	done
	diff "$IT_TMP/full.streams" <(sort "$IT_TMP/union.streams") ||
		fail "$n shards: the union of their streams is not the whole plan's"
	diff <(grep -v '^dir ' "$IT_TMP/full.tree") <(sort "$IT_TMP/union.files") ||
		fail "$n shards: their files are not the whole tree's, each once"
	python3 - "$IT_TMP/full.json" "$IT_TMP/full.db" "$n" "${jsons[@]}" "${dbs[@]}" <<'PY' || fail "$n shards: the union is not the whole replay"
import json, sqlite3, sys
full = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
shards = [json.load(open(p)) for p in sys.argv[4:4 + n]]
dbs = sys.argv[4 + n:]
bad = []
assert full["divergences"] == 0, full["divergences"]
for s in shards:
    if s["divergences"]:
        bad.append("shard %s/%s: %d divergences" % (s["shard_k"], s["shard_n"], s["divergences"]))
for key in ("ops", "issued", "bytes_read", "bytes_written", "streams"):
    got = sum(s[key] for s in shards)
    if got != full[key]:
        bad.append("%s: whole %d, shards %d" % (key, full[key], got))
for sys_ in set(full["syscalls"]) | {k for s in shards for k in s["syscalls"]}:
    for key in ("ops", "issued", "bytes", "errors"):
        want = full["syscalls"].get(sys_, {}).get(key, 0)
        got = sum(s["syscalls"].get(sys_, {}).get(key, 0) for s in shards)
        if want != got:
            bad.append("%s %s: whole %d, shards %d" % (sys_, key, want, got))
# per process and per path: what the whole replay did, summed over shards,
# each process in one shard only
def rows(db, sql):
    c = sqlite3.connect(db)
    return c.execute(sql).fetchall()
q_proc = "SELECT pid, ops, bytes_read, bytes_written FROM processes"
q_file = "SELECT path, ops, bytes_read, bytes_written FROM files"
want_p = sorted(rows(sys.argv[2], q_proc))
got_p = sorted(r for db in dbs for r in rows(db, q_proc))
if want_p != got_p:
    bad.append("processes: whole %s, shards %s" % (want_p, got_p))
want_f = {}
for p, o, r, w in rows(sys.argv[2], q_file):
    want_f[p] = (o, r, w)
got_f = {}
for db in dbs:
    for p, o, r, w in rows(db, q_file):
        a = got_f.get(p, (0, 0, 0))
        got_f[p] = (a[0] + o, a[1] + r, a[2] + w)
if want_f != got_f:
    bad.append("files: whole %s, shards %s" % (want_f, got_f))
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	echo "$n shards: the union of their operations is the whole replay's"
done
echo ok
