#!/usr/bin/env bash
# fsync, fdatasync, sync_file_range, syncfs, sync.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload sync
check_trace <<'PY'
p = t.path("sy.dat")
SYNC_FILE_RANGE_WRITE = 2
t.expect_seq("sync", t.main_calls(), [
    E("openat", ret=4, path=p, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1, size=0),
    E("write", fd=4, count=4096, ret=4096, path=p),
    E("fsync", fd=4, ret=0, path=p),
    E("fdatasync", fd=4, ret=0, path=p),
    E("sync_file_range", fd=4, off=0, count=4096, flags=SYNC_FILE_RANGE_WRITE, ret=0, path=p),
    E("syncfs", fd=4, ret=0, path=p),
    E("sync", ret=0),
    E("close", fd=4, ret=0, path=p),
])
t.common()
PY
