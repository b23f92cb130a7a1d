#!/usr/bin/env bash
# *at calls relative to an open directory fd, AT_EMPTY_PATH, a path through ..
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload dirfd
check_trace <<'PY'
df = t.path("df")
i, o = df + "/in.dat", df + "/out.dat"
AT_REMOVEDIR, AT_EMPTY_PATH, STATX_SIZE = 0x200, 0x1000, 0x200
t.expect_seq("dirfd", t.main_calls(), [
    E("openat", ret=4, dirfd=AT_FDCWD, path=df, flags=O_RDONLY | O_DIRECTORY, ftype=S_IFDIR,
      **t.file_ids("df")),
    E("openat", ret=5, dirfd=4, path=i, path_raw="in.dat", flags=O_RDONLY, size=777,
      ftype=S_IFREG, **t.file_ids("df/in.dat")),
    E("read", fd=5, count=1000, ret=777, path=i),
    E("close", fd=5, ret=0, path=i),
    E("newfstatat", dirfd=4, path=i, path_raw="in.dat", flags=0, ret=0, size=777, ftype=S_IFREG),
    E("newfstatat", dirfd=4, path=df, flags=AT_EMPTY_PATH, ret=0, ftype=S_IFDIR),
    E("mkdirat", dirfd=4, path=df + "/sub", path_raw="sub", mode=0o755, ret=0),
    E("openat", ret=5, dirfd=4, path=o, path_raw="sub/../out.dat", flags=O_CREAT | O_WRONLY,
      mode=0o644, created=1, size=0),
    E("write", fd=5, count=33, ret=33, path=o),
    E("close", fd=5, ret=0, path=o),
    E("renameat", dirfd=4, path=o, path_raw="out.dat", dirfd2=4, path2=df + "/sub/out2.dat",
      path2_raw="sub/out2.dat", ret=0),
    E("linkat", dirfd=4, path=i, dirfd2=4, path2=df + "/sub/in.lnk", flags=0, ret=0),
    E("symlinkat", dirfd=4, path=df + "/sym", path_raw="sym", path2_raw="in.dat", ret=0),
    E("readlinkat", dirfd=4, path=df + "/sym", count=64, ret=6, path2_raw="in.dat"),
    E("fchmodat", dirfd=4, path=i, mode=0o600, ret=0),
    E("fchownat", dirfd=4, path=i, uid=0, gid=0, flags=0, ret=0),
    E("faccessat", dirfd=4, path=i, mode=4, ret=0),
    E("utimensat", dirfd=4, path=i, flags=0, ret=0),
    E("statx", dirfd=4, path=i, flags=0, mode=STATX_SIZE, ret=0, size=777),
    E("unlinkat", dirfd=4, path=df + "/sym", flags=0, ret=0),
    E("unlinkat", dirfd=4, path=df + "/sub/in.lnk", flags=0, ret=0),
    E("unlinkat", dirfd=4, path=df + "/sub/out2.dat", flags=0, ret=0),
    E("unlinkat", dirfd=4, path=df + "/sub", flags=AT_REMOVEDIR, ret=0),
    E("close", fd=4, ret=0, path=df),
])
t.common()
PY
