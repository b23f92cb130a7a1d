#!/usr/bin/env bash
# stat family and access checks: st_size, file type, inode and device from the kernel's answer.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload stat
check_trace <<'PY'
p, l = t.path("st.dat"), t.path("st.lnk")
f, lk = t.file_ids("st.dat"), t.file_ids("st.lnk")
AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS = 0x100, 0x7ff
t.expect_seq("stat", t.main_calls(), [
    E("stat", ret=0, path=p, path_raw=p, size=1234, ftype=S_IFREG, **f),
    E("lstat", ret=0, path=l, path_raw=l, size=6, ftype=S_IFLNK, **lk),
    E("openat", ret=4, path=p, flags=O_RDONLY, size=1234, ftype=S_IFREG, **f),
    E("fstat", fd=4, ret=0, path=p, size=1234, ftype=S_IFREG, **f),
    E("close", fd=4, ret=0, path=p),
    E("newfstatat", dirfd=AT_FDCWD, path=l, flags=0, ret=0, size=1234, ftype=S_IFREG, **f),
    E("newfstatat", dirfd=AT_FDCWD, path=l, flags=AT_SYMLINK_NOFOLLOW, ret=0, size=6,
      ftype=S_IFLNK, **lk),
    E("statx", dirfd=AT_FDCWD, path=p, flags=0, mode=STATX_BASIC_STATS, ret=0, size=1234,
      ftype=S_IFREG, **f),
    E("access", path=p, path_raw=p, mode=4, ret=0),
    E("faccessat", dirfd=AT_FDCWD, path=p, mode=2, ret=0),
    E("faccessat2", dirfd=AT_FDCWD, path=l, mode=0, flags=AT_SYMLINK_NOFOLLOW, ret=0),
])
t.common()
PY
