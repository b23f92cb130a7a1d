#!/usr/bin/env bash
# fd operations: dup family, fcntl, lseek, fadvise64, close_range; dup'd fds resolve to the same file, closed ones to none.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload fdops
check_trace <<'PY'
p = t.path("fd.dat")
F_DUPFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC = 0, 3, 4, 1030
SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2
POSIX_FADV_SEQUENTIAL, CLOSE_RANGE_CLOEXEC = 2, 4
t.expect_seq("fdops", t.main_calls(), [
    E("openat", ret=4, path=p, flags=O_RDWR, size=8192),
    E("dup", fd=4, ret=5, path=p),
    E("dup2", fd=4, fd2=10, ret=10, path=p),
    E("dup3", fd=4, fd2=11, flags=O_CLOEXEC, ret=11, path=p),
    E("fcntl", fd=4, cmd=F_DUPFD, arg=20, ret=20, path=p),
    E("fcntl", fd=4, cmd=F_DUPFD_CLOEXEC, arg=30, ret=30, path=p),
    E("fcntl", fd=4, cmd=F_GETFL, arg=0, ret=O_RDWR | O_LARGEFILE, path=p),
    E("fcntl", fd=4, cmd=F_SETFL, arg=O_APPEND | O_NONBLOCK, ret=0, path=p),
    E("lseek", fd=4, off=100, cmd=SEEK_SET, ret=100, path=p),
    E("lseek", fd=5, off=50, cmd=SEEK_CUR, ret=150, path=p),
    E("lseek", fd=10, off=0, cmd=SEEK_END, ret=8192, path=p),
    E("lseek", fd=11, off=8000, cmd=SEEK_SET, ret=8000, path=p),
    E("read", fd=11, count=500, ret=192, path=p),
    E("write", fd=30, count=10, ret=10, path=p),
    E("fadvise64", fd=4, off=0, count=4096, cmd=POSIX_FADV_SEQUENTIAL, ret=0, path=p),
    E("close_range", fd=10, fd2=11, flags=0, ret=0),
    E("close_range", fd=20, fd2=30, flags=CLOSE_RANGE_CLOEXEC, ret=0),
    # fd 10 was closed by close_range: it names no file any more.
    E("read", fd=10, count=1, ret=-EBADF, path=ABSENT),
    E("close", fd=5, ret=0, path=p),
    E("close", fd=4, ret=0, path=p),
    # CLOSE_RANGE_CLOEXEC only marks: 20 and 30 are still open.
    E("close", fd=20, ret=0, path=p),
    E("close", fd=30, ret=0, path=p),
])
t.eq("fd.dat size", os.path.getsize(p), 8202)
t.common()
PY
