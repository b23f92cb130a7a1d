#!/usr/bin/env bash
# read/write through one fd: counts, bytes, sizes at open, resolved paths.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload rw
check_trace <<'PY'
p = t.path("rw.dat")
ids = t.file_ids("rw.dat")
t.expect_seq("rw", t.main_calls(), [
    E("openat", ret=4, dirfd=AT_FDCWD, path=p, path_raw=p, flags=O_CREAT | O_RDWR | O_TRUNC,
      mode=0o644, created=1, size=0, ftype=S_IFREG, **ids),
    E("write", fd=4, count=4096, ret=4096, path=p),
    E("write", fd=4, count=4096, ret=4096, path=p),
    E("write", fd=4, count=100, ret=100, path=p),
    E("close", fd=4, ret=0, path=p),
    E("openat", ret=4, dirfd=AT_FDCWD, path=p, flags=O_RDONLY, mode=0, created=0, size=8292,
      ftype=S_IFREG, **ids),
    E("read", fd=4, count=8192, ret=8192, path=p),
    E("read", fd=4, count=8192, ret=100, path=p),
    E("read", fd=4, count=8192, ret=0, path=p),
    E("close", fd=4, ret=0, path=p),
])
t.common()
PY
