#!/usr/bin/env bash
# the engine table: riot replay --help lists every engine with its help and
# says which is the default; an unknown --engine is a usage error (exit 2)
# that names the engines; the default engine is the one the summary, the
# JSON and the report name when --engine is not given.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
"$RIOT" replay --help >"$IT_TMP/help" || fail "riot replay --help exited $?"
sed -n '/^Engines (--engine):$/,$p' "$IT_TMP/help" >"$IT_TMP/engines"
[ "$(grep -cE '^  [a-z_]+ ' "$IT_TMP/engines")" = 2 ] ||
	fail "--help lists $(grep -cE '^  [a-z_]+ ' "$IT_TMP/engines") engines, expected 2: $(cat "$IT_TMP/engines")"
grep -qE '^  sync +\(default\) ' "$IT_TMP/engines" || fail "--help: sync is not listed as the default"
grep -qE '^  uring +' "$IT_TMP/engines" || fail "--help does not list uring"
rc=0
"$RIOT" replay "$IT_TMP/none.riot" --root "$IT_TMP/r" --engine nosuch >"$IT_TMP/out" 2>"$IT_TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "--engine nosuch exited $rc, expected 2"
[ "$(head -1 "$IT_TMP/err")" = "riot: replay: --engine 'nosuch' is none of the engines: sync, uring" ] ||
	fail "--engine nosuch said: $(cat "$IT_TMP/err")"
[ ! -e "$IT_TMP/r" ] || fail "--engine nosuch touched the root"
"$BIN/replay_gen" pacing -o "$IT_TMP/p.riot" || fail "replay_gen pacing"
replay_json "$IT_TMP/p.riot" "$IT_TMP/root" --report "$IT_TMP/r.db" --label dflt
[ "$(jget engine)" = sync ] || fail "the default engine is $(jget engine), expected sync"
replay_json "$IT_TMP/p.riot" "$IT_TMP/root2" --engine io_uring --report "$IT_TMP/r.db" --label u
[ "$(jget engine)" = uring ] || fail "--engine io_uring ran $(jget engine)"
got=$(python3 -c 'import sqlite3,sys; print(" ".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT replay_engine FROM runs ORDER BY id")))' "$IT_TMP/r.db")
[ "$got" = "sync io_uring" ] || fail "report engines: '$got', expected 'sync io_uring'"
echo "engines: $(grep -E '^  [a-z_]+ ' "$IT_TMP/engines" | awk '{print $1}' | tr '\n' ' ')"

# Eight streams on one uring worker: each stat, rename, unlink and create
# runs either on the worker (when its stream is the only busy one) or on
# the pool's blocking threads, never through io_uring's io-wq; the tree
# and results are those of the sync engine.
"$BIN/replay_gen" meta --threads 8 -n 50 -o "$IT_TMP/meta.riot" || fail "replay_gen meta"
replay_json "$IT_TMP/meta.riot" "$IT_TMP/meta-u" --engine uring --workers 1
python3 - "$IT_TMP/replay.json" <<'PY' || fail "uring with 8 streams: calls went through io-wq"
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
if r["divergences"]:
    bad.append("divergences %d" % r["divergences"])
for k in ("stat", "rename", "unlink", "openat"):
    v = r["syscalls"][k]
    if v["issued"] != 400 or v.get("fallbacks", 0) + v.get("inline", 0) != 400 or not v.get("fallbacks"):
        bad.append("%s: issued %d, pool %d, inline %d" % (k, v["issued"], v.get("fallbacks", 0),
                                                        v.get("inline", 0)))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "uring, 8 streams on one worker: stat, rename, unlink, create all on blocking threads"

# Two threads of one process taking turns on one file (each pwrite64 of the
# same block waits for the other thread's before it): on one uring worker only one of them
# can run at a time, so each write runs on the worker as the blocking call
# (inline), none on the pool: a stream waiting for an op does not make the
# worker serve several streams at once.
{
	echo "snap_proc pid=100 cwd=/d"
	echo "mkdir path=/d/w mode=0755 ret=0"
	echo "openat dirfd=AT_FDCWD path=/d/w/f flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1"
	for i in $(seq 0 49); do
		echo "pwrite64 tid=100 fd=3 off=0 count=4096 ret=4096"
		echo "pwrite64 tid=101 fd=3 off=0 count=4096 ret=4096"
	done
} >"$IT_TMP/turns.mklog"
"$BIN/mklog" -o "$IT_TMP/turns.riot" "$IT_TMP/turns.mklog" || fail "mklog turns"
replay_json "$IT_TMP/turns.riot" "$IT_TMP/turns-u" --engine uring --workers 1 --no-block
python3 - "$IT_TMP/replay.json" <<'PY' || fail "uring, two threads in turns: writes left the worker"
import json, sys
r = json.load(open(sys.argv[1]))
w = r["syscalls"]["pwrite64"]
if (w["issued"], w.get("inline", 0), w.get("fallbacks", 0), r["divergences"]) != (100, 100, 0, 0):
    sys.exit("pwrite64 %r, divergences %d: want 100 issued, 100 inline, 0 on the pool"
             % (w, r["divergences"]))
PY
[ "$(stat -c %s "$IT_TMP/turns-u/d/w/f")" = 4096 ] || fail "uring, two threads in turns: /d/w/f is not 4096 bytes"
echo "uring, two threads in turns on one worker: 100 writes, all run inline"

# Two threads of one process reading files of their own at once (cached:
# init wrote them): both can run, so a uring worker serving both cannot
# block for one. Each pread64 still runs on the worker, as the program's
# call with RWF_NOWAIT (a cached read never waits), and each close of a
# file it holds a real fd of: none through the ring, where a read was
# measured from its submission to its reaping behind the other's.
{
	echo "snap_proc pid=100 cwd=/d"
	for t in 100 101; do
		echo "openat tid=$t dirfd=AT_FDCWD path=/d/f$t flags=O_RDONLY ret=$((t - 97)) size=65536 ftype=reg created=0"
	done
	for i in $(seq 0 15); do
		for t in 100 101; do
			echo "pread64 tid=$t fd=$((t - 97)) off=$((i * 4096)) count=4096 ret=4096"
		done
	done
	echo "close tid=100 fd=3 ret=0"
	echo "close tid=101 fd=4 ret=0"
} >"$IT_TMP/both.mklog"
"$BIN/mklog" -o "$IT_TMP/both.riot" "$IT_TMP/both.mklog" || fail "mklog both"
replay_json "$IT_TMP/both.riot" "$IT_TMP/both-u" --engine uring --workers 1 --no-block
python3 - "$IT_TMP/replay.json" <<'PY' || fail "uring, two threads reading at once: reads or closes left the worker"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["syscalls"]
got = {k: (s[k]["issued"], s[k].get("inline", 0), s[k]["bytes"]) for k in ("pread64", "close")}
want = {"pread64": (32, 32, 32 * 4096), "close": (2, 2, 0)}
if got != want or r["divergences"]:
    sys.exit("(issued, inline, bytes) %r, divergences %d: want %r" % (got, r["divergences"], want))
PY
echo "uring, two threads reading at once on one worker: 32 preads and 2 closes run inline"

# Threads of one process sharing files. Under uring each captured thread
# gets a worker of its own by default, and a file one thread opened is the
# one the other uses, renamed or unlinked meanwhile (opened again by its
# path, it would be missed): thread 100 creates /d/a and /d/u, renames /d/a
# to /d/b and unlinks /d/u; thread 101 then writes 8 blocks to each, thread
# 102 a ninth to /d/b; thread 100 closes both. Strict order, so the writes
# come after the rename.
{
	echo "snap_proc pid=100 cwd=/d"
	echo "openat tid=100 dirfd=AT_FDCWD path=/d/a flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1"
	echo "openat tid=100 dirfd=AT_FDCWD path=/d/u flags=O_RDWR|O_CREAT mode=0644 ret=4 size=0 ftype=reg created=1"
	echo "rename tid=100 path=/d/a path2=/d/b ret=0"
	echo "unlink tid=100 path=/d/u ret=0"
	for i in $(seq 0 7); do
		echo "pwrite64 tid=101 fd=3 off=$((i * 4096)) count=4096 ret=4096"
		echo "pwrite64 tid=101 fd=4 off=$((i * 4096)) count=4096 ret=4096"
	done
	echo "pwrite64 tid=102 fd=3 off=32768 count=4096 ret=4096"
	echo "close tid=100 fd=3 ret=0"
	echo "close tid=100 fd=4 ret=0"
} >"$IT_TMP/share.mklog"
"$BIN/mklog" -o "$IT_TMP/share.riot" "$IT_TMP/share.mklog" || fail "mklog share"
for e in sync uring; do
	rm -rf "$IT_TMP/share-$e"
	replay_json "$IT_TMP/share.riot" "$IT_TMP/share-$e" --engine $e --order strict --no-block
	python3 - "$IT_TMP/replay.json" $e <<'PY' || fail "$e, threads sharing files: wrong counts"
import json, sys
r, e = json.load(open(sys.argv[1])), sys.argv[2]
s = r["syscalls"]
got = (r["workers"], r["divergences"], r.get("reopened", 0), s["pwrite64"]["issued"],
       s["pwrite64"]["bytes"], s["close"]["issued"])
want = (3, 0, 0, 17, 17 * 4096, 2)
if got != want:
    sys.exit("%s: (workers, divergences, reopened, pwrite64 issued, bytes, closes) %r, want %r"
             % (e, got, want))
PY
	[ "$(cd "$IT_TMP/share-$e/d" && ls | tr '\n' ' ')" = "b " ] ||
		fail "$e, threads sharing files: /d holds $(ls "$IT_TMP/share-$e/d"), expected b"
	[ "$(stat -c %s "$IT_TMP/share-$e/d/b")" = 36864 ] ||
		fail "$e, threads sharing files: /d/b is $(stat -c %s "$IT_TMP/share-$e/d/b") bytes, expected 36864"
done
# The same with --workers 2: two of the threads share a worker, and the
# files are the same ones.
rm -rf "$IT_TMP/share-w2"
replay_json "$IT_TMP/share.riot" "$IT_TMP/share-w2" --engine uring --workers 2 --order strict --no-block
[ "$(jget workers) $(jget divergences) $(jget syscalls pwrite64 bytes)" = "2 0 69632" ] ||
	fail "uring --workers 2, threads sharing files: workers, divergences, bytes $(jget workers) $(jget divergences) $(jget syscalls pwrite64 bytes), want 2 0 69632"
[ "$(cd "$IT_TMP/share-w2/d" && ls | tr '\n' ' ')" = "b " ] && [ "$(stat -c %s "$IT_TMP/share-w2/d/b")" = 36864 ] ||
	fail "uring --workers 2, threads sharing files: /d is not b of 36864 bytes"
echo "sync and uring, 3 threads sharing a renamed and an unlinked file: a worker each (2 with --workers 2), 17 writes, /d/b 36864 bytes"
