#!/usr/bin/env bash
# open, openat, openat2 (struct open_how), creat: flags, modes, created, size at open.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload open
check_trace <<'PY'
p1, p2, p3 = t.path("open1.dat"), t.path("open2.dat"), t.path("open3.dat")
RESOLVE_NO_SYMLINKS = 4
t.expect_seq("open", t.main_calls(), [
    E("open", ret=4, path=p1, path_raw=p1, flags=O_CREAT | O_WRONLY | O_EXCL, mode=0o640,
      created=1, size=0, ftype=S_IFREG, **t.file_ids("open1.dat")),
    E("write", fd=4, count=10, ret=10, path=p1),
    E("close", fd=4, ret=0, path=p1),
    E("openat", ret=4, dirfd=AT_FDCWD, path=p1, flags=O_RDONLY, created=0, size=10,
      ftype=S_IFREG, **t.file_ids("open1.dat")),
    E("close", fd=4, ret=0, path=p1),
    E("openat2", ret=4, dirfd=AT_FDCWD, path=p2, path_raw=p2, flags=O_CREAT | O_RDWR, mode=0o600,
      arg=RESOLVE_NO_SYMLINKS, created=1, size=0, ftype=S_IFREG, **t.file_ids("open2.dat")),
    E("close", fd=4, ret=0, path=p2),
    E("creat", ret=4, path=p3, path_raw=p3, mode=0o644, created=1, size=0, ftype=S_IFREG,
      **t.file_ids("open3.dat")),
    E("close", fd=4, ret=0, path=p3),
])
t.common()
PY
