#!/usr/bin/env bash
# vectored I/O: readv/writev, preadv/pwritev, preadv2/pwritev2 with iovcnt, offsets, RWF flags.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload vector
check_trace <<'PY'
p = t.path("vec.dat")
RWF_HIPRI, RWF_DSYNC = 1, 2
t.expect_seq("vector", t.main_calls(), [
    E("openat", ret=4, path=p, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o600, created=1, size=0),
    E("writev", fd=4, iovcnt=3, ret=600, path=p, off=ABSENT),
    E("pwritev", fd=4, iovcnt=2, off=4096, ret=1024, path=p),
    E("pwritev2", fd=4, iovcnt=1, off=8192, flags=RWF_DSYNC, ret=1000, path=p),
    E("preadv", fd=4, iovcnt=2, off=0, ret=8192, path=p),
    E("preadv2", fd=4, iovcnt=2, off=8192, flags=RWF_HIPRI, ret=1000, path=p),
    E("readv", fd=4, iovcnt=3, ret=600, path=p, off=ABSENT),
    E("close", fd=4, ret=0, path=p),
])
t.eq("vec.dat size", os.path.getsize(p), 9192)
t.common()
PY
