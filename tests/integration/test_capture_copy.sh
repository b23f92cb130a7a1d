#!/usr/bin/env bash
# copy_file_range, sendfile, splice: both fds, offsets read from the user pointers or absent.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload copy
check_trace <<'PY'
src, dst = t.path("cp.src"), t.path("cp.dst")
t.expect_seq("copy", t.main_calls(), [
    E("openat", ret=4, path=src, flags=O_RDONLY, size=10000, created=0),
    E("openat", ret=5, path=dst, flags=O_CREAT | O_WRONLY | O_TRUNC, mode=0o644, created=1, size=0),
    E("copy_file_range", fd=4, fd2=5, off=1000, off2=0, count=4096, flags=0, ret=4096, path=src),
    E("copy_file_range", fd=4, fd2=5, off=ABSENT, off2=ABSENT, count=3000, flags=0, ret=3000,
      path=src),
    E("sendfile", fd=4, fd2=5, off=5000, count=2000, ret=2000, path=src),
    E("sendfile", fd=4, fd2=5, off=ABSENT, count=1000, ret=1000, path=src),
    E("pipe2", ret=0, fd=6, fd2=7),
    E("splice", fd=4, off=0, fd2=7, off2=ABSENT, count=4096, flags=0, ret=4096, path=src),
    E("splice", fd=6, off=ABSENT, fd2=5, off2=20000, count=4096, flags=0, ret=4096),
    E("close", fd=7, ret=0),
    E("close", fd=6, ret=0),
    E("close", fd=5, ret=0, path=dst),
    E("close", fd=4, ret=0, path=src),
])
t.eq("cp.dst size", os.path.getsize(dst), 24096)
t.common()
PY
