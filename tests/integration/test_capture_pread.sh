#!/usr/bin/env bash
# pread64/pwrite64: offsets, short reads at the end, a write past the end.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload pread
check_trace <<'PY'
p = t.path("pread.dat")
t.expect_seq("pread", t.main_calls(), [
    E("openat", ret=4, dirfd=AT_FDCWD, path=p, flags=O_RDWR, created=0, size=65536,
      ftype=S_IFREG, **t.file_ids("pread.dat")),
    E("pread64", fd=4, count=4096, off=8192, ret=4096, path=p),
    E("pread64", fd=4, count=4096, off=64536, ret=1000, path=p),
    E("pread64", fd=4, count=4096, off=70000, ret=0, path=p),
    E("pwrite64", fd=4, count=512, off=100000, ret=512, path=p),
    E("close", fd=4, ret=0, path=p),
])
t.eq("pread.dat size", os.path.getsize(p), 100512)
t.common()
PY
