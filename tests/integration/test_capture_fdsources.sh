#!/usr/bin/env bash
# fds the capture did not see made (tests/bin/fdsources.c): one received
# over a unix socket with SCM_RIGHTS, one taken with pidfd_getfd, one
# opened with io_uring's IORING_OP_OPENAT while the io_uring requests are
# not recorded (--ops names the syscalls only, as on a kernel without the
# io_uring tracepoints; test_capture_uring_ops.sh has them recorded).
# Each is introduced at its first
# use by a snap_fd record naming its path, flags and file position, so
# `riot info` counts no unresolved fd operation, `riot dump` shows every
# operation on them with its path, and both replay engines replay them
# with no divergence and no unresolved skip, writing the captured bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
[ -x "$BIN/fdsources" ] || fail "$BIN/fdsources is missing"

W=$IT_TMP/w
LOG=$IT_TMP/cap.riot
mkdir -p "$W"
SYSCALLS=$(python3 "$IT_DIR/syscalls_def.py" "$IT_DIR/../../bpf/syscalls.def" rows | cut -d' ' -f1 | paste -sd,)
"$RIOT" capture -q -o "$LOG" --ops "$SYSCALLS" -- "$BIN/fdsources" "$W" >/dev/null 2>"$IT_TMP/cap.err" </dev/null ||
	{ cat "$IT_TMP/cap.err" >&2; fail "riot capture -- fdsources exited $?"; }
dump_log "$LOG"

python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$W" <<'PY' || fail "trace check failed (log: $LOG)"
import json, os, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
info = json.load(open(sys.argv[2]))
w = sys.argv[3]
bad = []

def eq(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))

eq("riot info: unresolved fd operations", info.get("unresolved_fds"), 0)
O_ACCMODE, O_RDWR, O_WRONLY, O_CLOEXEC, S_IFREG = 3, 2, 1, 0o2000000, 0o100000

def ops(path, names):
    return [(r["op"], r.get("off"), r.get("count"), r.get("ret")) for r in recs
            if r.get("type") == "syscall" and r.get("op") in names and r.get("path") == path]

def intro(path):
    """the snap_fd records naming path after the start"""
    return [r for r in recs if r.get("type") == "snap_fd" and r.get("path") == path]

io = ("read", "write", "pread64", "pwrite64", "lseek", "fsync", "close")
passed, getfd, uring = w + "/passed.dat", w + "/getfd.dat", w + "/uring.dat"
# SCM_RIGHTS: the child's fd is introduced before its first pwrite64
s = intro(passed)
eq("passed.dat: introductions", len(s), 1)
if s:
    eq("passed.dat: access mode", s[0]["flags"] & O_ACCMODE, O_RDWR)
    eq("passed.dat: ftype", s[0]["ftype"], S_IFREG)
    eq("passed.dat: ino", s[0]["ino"], os.stat(passed).st_ino)
# the parent's close of its copy races the child's calls: apart
got = ops(passed, io)
eq("passed.dat ops of the child", [o for o in got if o[0] != "close"],
   [("pwrite64", 0, 4096, 4096), ("pwrite64", 8192, 1000, 1000),
    ("pread64", 0, 4096, 4096)])
eq("passed.dat closes", [o for o in got if o[0] == "close"], [("close", None, None, 0)])
# pidfd_getfd: the fd is close-on-exec, write-only, at offset 0
s = intro(getfd)
eq("getfd.dat: introductions", len(s), 1)
if s:
    eq("getfd.dat: access mode", s[0]["flags"] & O_ACCMODE, O_WRONLY)
    eq("getfd.dat: close-on-exec", s[0]["flags"] & O_CLOEXEC, O_CLOEXEC)
    eq("getfd.dat: pos", s[0]["pos"], 0)
eq("getfd.dat ops", ops(getfd, io),
   [("write", None, 3000, 3000), ("fsync", None, None, 0), ("close", None, None, 0)])
# io_uring's openat: plain read/write/fsync on the fd it returned
s = intro(uring)
eq("uring.dat: introductions", len(s), 1)
if s:
    eq("uring.dat: access mode", s[0]["flags"] & O_ACCMODE, O_RDWR)
    eq("uring.dat: pos", s[0]["pos"], 0)
eq("uring.dat ops", ops(uring, io),
   [("write", None, 5000, 5000), ("lseek", 0, None, 0), ("read", None, 5000, 5000),
    ("fsync", None, None, 0), ("close", None, None, 0)])
# each introduction comes before the first operation on its fd
for path in (passed, getfd, uring):
    first = min((i for i, r in enumerate(recs) if r.get("type") == "syscall" and
                 r.get("path") == path and r.get("op") != "openat" and
                 not (r.get("op") == "close" and path == passed)), default=-1)
    at = [i for i, r in enumerate(recs) if r.get("type") == "snap_fd" and r.get("path") == path]
    if not at or at[0] > first:
        bad.append("%s: not introduced before its first use" % path)
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "capture: the three fds are introduced at their first use, 0 unresolved"

# the path is walked across mounts: the files on a tmpfs mounted (in a
# mount namespace of the test's own) inside the work directory
M=$IT_TMP/mnt
mkdir -p "$M"
command -v unshare >/dev/null || fail "unshare (util-linux) is required"
unshare -m sh -c 'mount -t tmpfs riot-test "$1" && mkdir "$1/x" &&
	"$2" capture -q -o "$3" --ops "$5" -- "$4" "$1/x" >/dev/null' sh "$M" "$RIOT" "$IT_TMP/mnt.riot" \
	"$BIN/fdsources" "$SYSCALLS" 2>"$IT_TMP/cap.err" </dev/null ||
	{ cat "$IT_TMP/cap.err" >&2; fail "riot capture -- fdsources on a tmpfs exited $?"; }
"$RIOT" dump --format jsonl "$IT_TMP/mnt.riot" >"$IT_TMP/mnt.jsonl" || fail "riot dump of the tmpfs capture"
"$RIOT" info --json "$IT_TMP/mnt.riot" >"$IT_TMP/mnt.info" || fail "riot info of the tmpfs capture"
python3 - "$IT_TMP/mnt.jsonl" "$IT_TMP/mnt.info" "$M/x" <<'PY' || fail "paths across a mount"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
x = sys.argv[3]
found = sorted(r["path"] for r in recs if r.get("type") == "snap_fd" and
               r.get("t") != 0 and r.get("path", "").startswith(x + "/"))
want = [x + "/getfd.dat", x + "/passed.dat", x + "/uring.dat"]
unres = json.load(open(sys.argv[2])).get("unresolved_fds")
if found != want or unres != 0:
    print("  introduced %r (want %r), %r unresolved" % (found, want, unres), file=sys.stderr)
    sys.exit(1)
PY
echo "capture: paths walked across a tmpfs mount"

want="3000 getfd.dat
9192 passed.dat
5000 uring.dat"
for e in sync uring; do
	root=$IT_TMP/root-$e
	replay_json "$LOG" "$root" --engine "$e" --report "$IT_TMP/$e.db"
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e: divergences"; }
	[ "$(jget skip_reasons 'unresolved fd or cwd')" = 0 ] ||
		{ cat "$IT_TMP/replay.json" >&2; fail "$e: unresolved skips"; }
	same_counts "$IT_TMP/info.json"
	# the bytes each file saw in the replay: pwrite64 4096 + 1000 and
	# pread64 4096; write 3000; write 5000 and read 5000
	python3 - "$IT_TMP/$e.db" "$W" <<'PY' || fail "$e: bytes per file"
import sqlite3, sys
db, w = sys.argv[1], sys.argv[2]
got = {p: (r, wr) for p, r, wr in sqlite3.connect(db).execute(
    "SELECT path, bytes_read, bytes_written FROM files WHERE path LIKE ?", (w + "/%",))}
want = {w + "/passed.dat": (4096, 5096), w + "/getfd.dat": (0, 3000),
        w + "/uring.dat": (5000, 5000)}
if got != want:
    print("  replayed (read, written) per file: %r, want %r" % (got, want), file=sys.stderr)
    sys.exit(1)
PY
	got=$(cd "$root$W" && stat -c '%s %n' getfd.dat passed.dat uring.dat)
	[ "$got" = "$want" ] || fail "$e: replayed files: $got"
	echo "replay ($e): no divergence, no unresolved skip, the files' bytes as captured"
done
