#!/usr/bin/env bash
# test_replay_async: the program's own asynchronous I/O (io_uring:*, aio:*
# requests, mmap:* pages), from logs written by mklog, replayed by both
# engines and paced or not: each ring or AIO context keeps its captured
# in-flight depth (16 overlapping requests: depth 16, exactly), its link
# chains (a failed head cancels the rest; a write then a hole punched over
# it leaves zeros), O_DIRECT (an unaligned request fails as captured), the
# same bytes at the same offsets as the same requests made as pwrite64
# calls, and every hostile path refused; 300 contexts share 256 threads;
# mmap pages are a pwrite and a pread of the mapped file's same ranges.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture

mk() { "$BIN/mklog" -o "$IT_TMP/$1.riot" "$IT_TMP/$1.mklog" || fail "mklog $1"; }

# jcheck WHAT: runs the Python on stdin with r (the replay's JSON) and bad
# (a list to add failures to); fails the test naming WHAT when bad is not
# empty.
jcheck() {
	local body
	body=$(cat)
	python3 - "$IT_TMP/replay.json" "$1" <<PY || fail "$1"
import json, sys
r, bad = json.load(open(sys.argv[1])), []
$body
for b in bad:
    print(sys.argv[2] + ": " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# ctx 7: 16 writes of 4 KiB every other 4 KiB block, submitted 100 ns
# apart, each in flight 1 ms (depth 1..16), then a chain of three; ctx 8
# (AIO): 4 writes overlapping (depth 4) and an fsync after they completed
# (depth 1); ctx 9: 3 reads one after the other (depth 1 each).
# KIND=uring writes them as requests, KIND=sync as the same pwrite64 calls.
gen() {
	local kind=$1 w=io_uring:write a=aio:pwrite x
	[ "$kind" = sync ] && w=pwrite64 a=pwrite64
	echo "snap_proc pid=100 cwd=/d"
	echo "mkdir path=/d/w mode=0755 ret=0 t=1000"
	echo "openat dirfd=AT_FDCWD path=/d/w/f flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1 t=2000"
	echo "openat dirfd=AT_FDCWD path=/d/w/g flags=O_RDWR|O_CREAT mode=0644 ret=4 size=0 ftype=reg created=1 t=3000"
	for i in $(seq 0 15); do
		x=""
		[ "$kind" = uring ] && x="ctx=7 flags=0"
		echo "$w fd=3 off=$((i * 8192)) count=4096 ret=4096 t=$((10000 + i * 100)) dur=1000000 $x"
	done
	for i in 0 1 2 3; do
		x=""
		[ "$kind" = uring ] && x="ctx=8 flags=0"
		echo "$a fd=4 off=$((i * 65536)) count=65536 ret=65536 t=$((2000000 + i * 100)) dur=500000 $x"
	done
	if [ "$kind" = uring ]; then
		echo "aio:fsync ctx=8 fd=4 ret=0 t=3000000 dur=100"
		for i in 0 1 2; do
			echo "io_uring:read ctx=9 fd=4 off=$((i * 4096)) count=4096 flags=0 ret=4096 t=$((4000000 + i * 1000)) dur=100"
		done
	fi
	echo "close fd=3 ret=0 t=5000000"
	echo "close fd=4 ret=0 t=5000100"
}
gen uring >"$IT_TMP/depth.mklog"
gen sync >"$IT_TMP/twin.mklog"
mk depth
mk twin

replay_json "$IT_TMP/twin.riot" "$IT_TMP/root-twin" --engine sync --no-block
for e in sync uring; do
	for speed in 0 1; do
		root=$IT_TMP/root-depth-$e-$speed
		replay_json "$IT_TMP/depth.riot" "$root" --engine "$e" --speed "$speed" --no-block
		jcheck "$e speed $speed: depth replay" <<'PY'
def want(k, v):
    if r.get(k) != v:
        bad.append("%s = %r, want %r" % (k, r.get(k), v))
want("divergences", 0)
want("skipped", 0)
want("unreplayable", 0)
want("bytes_written", 16 * 4096 + 4 * 65536)
want("bytes_read", 3 * 4096)
want("async_requests", 16 + 4 + 1 + 3)
want("async_depth_captured_max", 16)
want("async_depth_replayed_max", 16)
want("async_depth_captured_p50", r.get("async_depth_replayed_p50"))
streams = sorted((s["ctx"], s["requests"], s["depth_captured_max"], s["depth_replayed_max"])
                 for s in r.get("async_streams", []))
if streams != [(7, 16, 16, 16), (8, 5, 4, 4), (9, 3, 1, 1)]:
    bad.append("async_streams %r" % streams)
# each stream's span, from its first issue to its last completion, lies
# within the run
for s in r.get("async_streams", []):
    if not 0 <= s["first_ns"] < s["last_ns"] <= r["elapsed_ns"]:
        bad.append("stream %r: span %r..%r in a run of %r" % (s["ctx"], s["first_ns"],
                                                             s["last_ns"], r["elapsed_ns"]))
for name, n in (("io_uring:write", 16), ("aio:pwrite", 4), ("aio:fsync", 1), ("io_uring:read", 3)):
    s = r["syscalls"].get(name, {})
    if s.get("issued") != n or s.get("errors"):
        bad.append("%s: %r, want %d issued" % (name, s, n))
PY
		for f in f g; do
			cmp -s "$root/d/w/$f" "$IT_TMP/root-twin/d/w/$f" ||
				fail "$e speed $speed: /d/w/$f differs from the same writes made as pwrite64"
		done
		# size exact, written blocks hold data, the blocks between them none
		python3 - "$root/d/w/f" <<'PY' || fail "$e speed $speed: bytes of /d/w/f"
import sys
b = open(sys.argv[1], "rb").read()
assert len(b) == 15 * 8192 + 4096, len(b)
for i in range(16):
    assert b[i * 8192:i * 8192 + 4096].count(0) < 4096, "block %d not written" % i
    if i < 15:
        assert b[i * 8192 + 4096:(i + 1) * 8192] == bytes(4096), "gap %d written" % i
PY
		echo "$e speed $speed: depth 16/4/1 per context replayed as captured, same bytes as pwrite64"
	done
done

# Links and O_DIRECT. A write on a file opened read-only that failed
# (EBADF) and the fsync linked to it it cancelled did no I/O: both are
# accounted as captured, not issued (formats/semantics.def); a write linked
# to a hole punched over it (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
# leaves zeros; an O_DIRECT write of 100 bytes that failed with EINVAL is
# accounted too, one of 4 KiB from an aligned buffer succeeds.
cat >"$IT_TMP/link.mklog" <<'EOF'
snap_proc pid=100 cwd=/d
mkdir path=/d/l mode=0755 ret=0
openat dirfd=AT_FDCWD path=/d/l/ro flags=O_RDONLY|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1
io_uring:write ctx=1 fd=3 off=0 count=4096 flags=IOSQE_IO_LINK ret=-EBADF t=100000 dur=100
io_uring:fsync ctx=1 fd=3 flags=0 ret=-125 t=100010 dur=100
openat dirfd=AT_FDCWD path=/d/l/p flags=O_RDWR|O_CREAT mode=0644 ret=4 size=0 ftype=reg created=1 t=200000
io_uring:write ctx=1 fd=4 off=0 count=16384 flags=IOSQE_IO_LINK ret=16384 t=300000 dur=100
io_uring:fallocate ctx=1 fd=4 off=4096 count=8192 mode=3 flags=IOSQE_IO_LINK ret=0 t=300010 dur=100
io_uring:fsync ctx=1 fd=4 flags=IOSQE_IO_DRAIN ret=0 t=300020 dur=100
openat dirfd=AT_FDCWD path=/d/l/direct flags=O_RDWR|O_CREAT|O_DIRECT mode=0644 ret=5 size=0 ftype=reg created=1 t=400000
io_uring:write ctx=1 fd=5 off=0 count=100 flags=0 ret=-EINVAL t=500000 dur=100
io_uring:write ctx=1 fd=5 off=0 count=4096 flags=0 ret=4096 t=500100 dur=100
EOF
mk link
for e in sync uring; do
	root=$IT_TMP/root-link-$e
	replay_json "$IT_TMP/link.riot" "$root" --engine "$e" --no-block
	jcheck "$e: links and O_DIRECT" <<'PY'
if r["divergences"]:
    bad.append("divergences: %r" % {k: v["examples"] for k, v in r["syscalls"].items() if v["examples"]})
for name, n, acc in (("io_uring:write", 2, 2), ("io_uring:fsync", 1, 1), ("io_uring:fallocate", 1, 0)):
    s = r["syscalls"].get(name, {})
    if s.get("issued") != n or s.get("errors") != 0 or s.get("failed_as_captured") != acc:
        bad.append("%s: %r, want %d issued, 0 errors, %d failed as captured" % (name, s, n, acc))
PY
	python3 - "$root/d/l/p" <<'PY' || fail "$e: the linked write and hole punch"
import sys
b = open(sys.argv[1], "rb").read()
assert len(b) == 16384, len(b)
assert b[4096:12288] == bytes(8192), "the hole was punched before the write"
assert b[:4096].count(0) < 4096 and b[12288:].count(0) < 4096, "write missing"
PY
	[ "$(stat -c %s "$root/d/l/direct")" = 4096 ] || fail "$e: O_DIRECT file size $(stat -c %s "$root/d/l/direct")"
	echo "$e: link chains cancel and order as captured, O_DIRECT kept"
done

# Hostile paths: a request on a file under /sys, on the root's marker
# through a symlink to the top, on files and names reached through a
# symlink to a directory outside the root: refused or kept inside the
# root; nothing outside changes. Registered files (IOSQE_FIXED_FILE) and
# mmap pages the model cannot name are skipped as unresolved; an mmap page
# capture found no mapping for (no ctx, no path) as a page of an unknown
# mapping.
mkdir -p "$IT_TMP/outside"
echo keep >"$IT_TMP/outside/victim"
cat >"$IT_TMP/hostile.mklog" <<EOF
snap_proc pid=100 cwd=/
openat dirfd=AT_FDCWD path=/sys/kernel/x flags=O_RDWR ret=3 size=0 ftype=reg created=0
io_uring:write ctx=1 fd=3 off=0 count=4096 flags=0 ret=4096
symlink path=/l path2=/ ret=0
openat dirfd=AT_FDCWD path=/l/.riot-root flags=O_RDWR ret=4 size=0 ftype=reg created=0
io_uring:write ctx=1 fd=4 off=0 count=4096 flags=0 ret=4096
aio:pwrite ctx=2 fd=4 off=0 count=4096 flags=0 ret=4096
mkdir path=/e mode=0755 ret=0
symlink path=/e/out path2=$IT_TMP/outside ret=0
openat dirfd=AT_FDCWD path=/e/out/new flags=O_RDWR|O_CREAT mode=0644 ret=5 size=0 ftype=reg created=1
io_uring:write ctx=1 fd=5 off=0 count=4096 flags=0 ret=4096
io_uring:unlinkat ctx=1 dirfd=AT_FDCWD path=/e/out/victim flags=0 ret=0
io_uring:renameat ctx=1 dirfd=AT_FDCWD path=/e/out/new dirfd2=AT_FDCWD path2=/e/out/victim flags=0 ret=0
io_uring:write ctx=1 fd=0 off=0 count=4096 flags=IOSQE_FIXED_FILE ret=4096
mmap:write ctx=140000000 off=0 count=4096 ret=4096 ino=5 dev=7
mmap:read ctx=0 off=0 count=4096 ret=4096 ino=6 dev=7
EOF
mk hostile
for e in sync uring; do
	root=$IT_TMP/root-hostile-$e
	replay_json "$IT_TMP/hostile.riot" "$root" --engine "$e" --no-block
	jcheck "$e: hostile asynchronous requests" <<'PY'
want = {"under /proc, /sys or /dev": 2, "refused path": 3, "unresolved fd or cwd": 2,
        "mmap page of an unknown mapping": 1}
got = {k: r["skip_reasons"].get(k, 0) for k in want}
if got != want:
    bad.append("skip reasons %r, want %r" % (got, want))
for name, n in (("io_uring:write", 1), ("io_uring:unlinkat", 1), ("io_uring:renameat", 1)):
    s = r["syscalls"].get(name, {})
    if s.get("issued") != n:
        bad.append("%s: %r, want %d issued" % (name, s, n))
PY
	[ "$(cat "$IT_TMP/outside/victim")" = keep ] || fail "$e: a file outside the root changed"
	[ "$(ls "$IT_TMP/outside")" = victim ] || fail "$e: outside the root: $(ls "$IT_TMP/outside")"
	[ -f "$root/.riot-root" ] || fail "$e: the root's marker is gone"
	echo "$e: hostile paths of asynchronous requests refused or kept in the root"
done

# More contexts than threads: 300 rings of one write each (a log may name
# any number); 256 threads serve them, every write lands.
{
	echo "snap_proc pid=100 cwd=/d"
	echo "openat dirfd=AT_FDCWD path=/d/many flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1"
	for i in $(seq 0 299); do
		echo "io_uring:write ctx=$((1000 + i)) fd=3 off=$((i * 4096)) count=4096 flags=0 ret=4096"
	done
} >"$IT_TMP/many.mklog"
mk many
for e in sync uring; do
	replay_json "$IT_TMP/many.riot" "$IT_TMP/root-many-$e" --engine "$e" --no-block
	jcheck "$e: 300 contexts" <<'PY'
a = r.get("async_streams", [])
if (len(a), sum(s["contexts"] for s in a), sum(s["requests"] for s in a)) != (256, 300, 300):
    bad.append("async_streams: %d threads, %d contexts, %d requests, want 256, 300, 300"
               % (len(a), sum(s.get("contexts", 0) for s in a), sum(s["requests"] for s in a)))
if r["bytes_written"] != 300 * 4096 or r["divergences"]:
    bad.append("bytes_written %d, divergences %d" % (r["bytes_written"], r["divergences"]))
PY
	[ "$(stat -c %s "$IT_TMP/root-many-$e/d/many")" = $((300 * 4096)) ] || fail "$e: /d/many size"
	echo "$e: 300 contexts on 256 threads, every write replayed"
done

# mmap pages: a shared mapping of /d/m (mmap, then its fd closed), a page
# written through it and one read, replayed as a pwrite and a pread of the
# same ranges of the file the mapping maps (the same bytes as pwrite64).
for kind in mmap twin; do
	{
		echo "snap_proc pid=100 cwd=/d"
		echo "openat dirfd=AT_FDCWD path=/d/m flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1"
		echo "ftruncate fd=3 off=65536 ret=0"
		if [ "$kind" = mmap ]; then
			echo "mmap arg=0 count=65536 cmd=3 flags=1 fd=3 off=0 ret=0x7f0000000000"
			echo "close fd=3 ret=0"
			echo "mmap:write ctx=0x7f0000000000 off=8192 count=4096 ret=4096"
			echo "mmap:read ctx=0x7f0000000000 off=0 count=4096 ret=4096"
		else
			echo "pwrite64 fd=3 off=8192 count=4096 ret=4096"
			echo "pread64 fd=3 off=0 count=4096 ret=4096"
			echo "close fd=3 ret=0"
		fi
	} >"$IT_TMP/$kind-m.mklog"
	mk "$kind-m"
done
replay_json "$IT_TMP/twin-m.riot" "$IT_TMP/root-twin-m" --engine sync --no-block
for e in sync uring; do
	replay_json "$IT_TMP/mmap-m.riot" "$IT_TMP/root-mmap-$e" --engine "$e" --no-block
	jcheck "$e: mmap pages" <<'PY'
for name in ("mmap:write", "mmap:read"):
    s = r["syscalls"].get(name, {})
    if s.get("issued") != 1 or s.get("bytes") != 4096 or s.get("errors"):
        bad.append("%s: %r, want 1 issued, 4096 bytes" % (name, s))
if r["divergences"] or r["bytes_written"] != 4096 or r["bytes_read"] != 4096:
    bad.append("divergences %d, bytes %d read, %d written" % (r["divergences"], r["bytes_read"], r["bytes_written"]))
PY
	cmp -s "$IT_TMP/root-mmap-$e/d/m" "$IT_TMP/root-twin-m/d/m" ||
		fail "$e: /d/m differs from the same page written by pwrite64"
	echo "$e: mmap pages replayed as a pwrite and a pread of the same ranges"
done

# A thread's pwrite64 calls and its ring's reads alternating on one file,
# 40 of each: each read waits for the thread's write before it, each write
# for the read before it (the same file). A uring worker waiting for a
# read sleeps in its own ring, where the ring's thread must wake it: no
# wait may end at the worker's 10 ms backstop with the read it waited for
# long done (missed_wakeups; 37 of 40 before they woke it). The sync
# engine's threads sleep on the op itself.
{
	echo "snap_proc pid=100 cwd=/d"
	echo "mkdir path=/d/w mode=0755 ret=0 t=1000"
	echo "openat dirfd=AT_FDCWD path=/d/w/f flags=O_RDWR|O_CREAT mode=0644 ret=3 size=0 ftype=reg created=1 t=2000"
	for i in $(seq 0 39); do
		echo "pwrite64 fd=3 off=$((i * 4096)) count=4096 ret=4096 t=$((10000 + i * 20000)) dur=1000"
		echo "io_uring:read ctx=9 fd=3 off=$((i * 4096)) count=4096 flags=0 ret=4096 t=$((15000 + i * 20000)) dur=1000"
	done
} >"$IT_TMP/pingpong.mklog"
mk pingpong
for e in sync uring; do
	replay_json "$IT_TMP/pingpong.riot" "$IT_TMP/root-pp-$e" --engine "$e" --no-block
	jcheck "$e: a thread and its ring in turns" <<'PY'
w, rd = r["syscalls"].get("pwrite64", {}), r["syscalls"].get("io_uring:read", {})
if w.get("issued") != 40 or rd.get("issued") != 40 or r["divergences"]:
    bad.append("pwrite64 %r, io_uring:read %r, divergences %d" % (w, rd, r["divergences"]))
if r["missed_wakeups"] != 0:
    bad.append("%d waits ended at the backstop with their op done" % r["missed_wakeups"])
PY
	echo "$e: a thread and its ring in turns, 80 ops, no missed wake-up"
done
