#!/usr/bin/env bash
# File operations submitted through io_uring (tests/bin/uring_ops.c), each
# recorded as an io_uring:<opcode> record with its ring, path, offset,
# count and result, and resolved like its syscall twin: an fd the ring
# opened names its file for later requests and syscalls, a direct
# descriptor (openat into a registered-file slot) for the fixed-file
# requests on that slot, and dirfd-relative paths resolve against dirfd.
. "$(dirname "$0")/lib.sh"
require_capture
[ -x "$BIN/uring_ops" ] || fail "$BIN/uring_ops is missing"

W=$IT_TMP/w
LOG=$IT_TMP/cap.riot
WPID=0
mkdir -p "$W"
"$RIOT" capture -q -o "$LOG" -- "$BIN/uring_ops" "$W" >/dev/null 2>"$IT_TMP/cap.err" </dev/null ||
	{ cat "$IT_TMP/cap.err" >&2; fail "riot capture -- uring_ops exited $?"; }
dump_log "$LOG"
check_trace <<'PY'
ex = t.procs("exec")
t.wpid = ex[0]["pid"] if ex else -1
a, b, c, d = (t.path(x) for x in ("a.dat", "b.dat", "c.dat", "d"))
AT_FDCWD, FIXED, STATX_SIZE = -100, 1, 0x200
ring = [r for r in t.calls(pid=t.wpid, asynchronous=True)
        if r["op"].startswith("io_uring:") or r["op"] == "pwrite64"]
t.expect_seq("uring_ops", ring, [
    E("io_uring:openat", dirfd=AT_FDCWD, path=a, path_raw=a, flags=O_CREAT | O_RDWR | O_TRUNC | 0o100000,
      mode=0o644, ret=5, created=1, size=0, fd=ABSENT, ctx=1),
    E("io_uring:write", fd=5, path=a, off=0, count=4096, ret=4096, flags=0, ctx=1),
    E("io_uring:read", fd=5, path=a, off=0, count=4096, ret=4096, flags=0, ctx=1),
    E("io_uring:fsync", fd=5, path=a, cmd=0, ret=0, ctx=1),
    E("pwrite64", fd=5, path=a, off=100, count=10, ret=10),
    E("io_uring:close", fd=5, path=a, flags=0, ret=0, ctx=1),
    E("io_uring:statx", dirfd=4, path=a, path_raw="a.dat", flags=0, cmd=STATX_SIZE, ret=0, ctx=1),
    E("io_uring:openat", dirfd=4, path=b, path_raw="b.dat", flags=O_CREAT | O_RDWR | O_TRUNC | 0o100000,
      mode=0o600, fd=2, ret=0, ctx=1),
    E("io_uring:write", fd=2, path=b, off=4096, count=8192, ret=8192, ctx=1, size=12288),
    E("io_uring:read", fd=2, path=b, off=4196, count=100, ret=100, ctx=1),
    E("io_uring:fallocate", fd=2, path=b, off=0, count=65536, mode=0, ret=0, ctx=1),
    E("io_uring:close", fd=2, path=b, flags=FIXED, ret=0, ctx=1),
    E("io_uring:renameat", dirfd=4, path=a, dirfd2=4, path2=c, flags=0, ret=0, ctx=1),
    E("io_uring:unlinkat", dirfd=4, path=c, flags=0, ret=0, ctx=1),
    E("io_uring:mkdirat", dirfd=4, path=d, mode=0o755, ret=0, ctx=1),
])
if len(ring) == 15:
    # one file object per open: the ring's fd, the syscall on it, and the
    # direct descriptor's requests name the object their open made
    t.eq("a.dat: one file object", len({r.get("file") for r in ring[0:6]}), 1)
    t.eq("b.dat: one file object", len({r.get("file") for r in ring[7:12]}), 1)
    t.true("fixed-file requests carry IOSQE_FIXED_FILE",
           all(r["flags"] & FIXED for r in ring[8:12]))
    t.eq("b.dat facts on its requests", (ring[9].get("ino"), ring[9].get("dev")),
         (os.stat(b).st_ino, os.stat(b).st_dev))
t.eq("b.dat size", os.path.getsize(b), 65536)
t.true("d is a directory", os.path.isdir(d))
t.eq("info: unresolved fd operations", t.info.get("unresolved_fds"), 0)
t.check_info()
PY

# the report and the replay's summary name the requests as dump and info do
"$RIOT" report "$LOG" -o "$IT_TMP/r.db" >/dev/null 2>"$IT_TMP/report.err" ||
	fail "riot report exited $?: $(cat "$IT_TMP/report.err")"
mkdir -p "$IT_TMP/root"
"$RIOT" replay "$LOG" --root "$IT_TMP/root" --json >"$IT_TMP/replay.json" 2>"$IT_TMP/replay.err" ||
	fail "riot replay exited $?: $(head -c 800 "$IT_TMP/replay.err")"
python3 - "$IT_TMP/r.db" "$IT_TMP/replay.json" <<'PY' || fail "io_uring names in the report or the replay summary"
import json, sqlite3, sys
want = {"io_uring:openat": (2, 0), "io_uring:write": (2, 12288), "io_uring:read": (2, 4196),
        "io_uring:fsync": (1, 0), "io_uring:close": (2, 0), "io_uring:statx": (1, 0),
        "io_uring:fallocate": (1, 0), "io_uring:renameat": (1, 0), "io_uring:unlinkat": (1, 0),
        "io_uring:mkdirat": (1, 0)}
got = {s: (n, b) for s, n, b in sqlite3.connect(sys.argv[1]).execute(
    "SELECT sys, count, bytes FROM syscalls WHERE sys LIKE 'io_uring:%'")}
ok = got == want
if not ok:
    print("  report: %r, want %r" % (got, want), file=sys.stderr)
rep = json.load(open(sys.argv[2]))["syscalls"]
names = {k: v.get("ops") for k, v in rep.items() if k.startswith("io_uring:")}
if names != {k: v[0] for k, v in want.items()}:
    print("  replay --json syscalls: %r" % names, file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
echo "report and replay --json name the io_uring requests"
