#!/usr/bin/env bash
# an fd opened before the capture started: found in the start state (path, position, size) and resolved.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload prefd
check_trace <<'PY'
p = t.path("prefd.dat")
ids = t.file_ids("prefd.dat")
t.expect_seq("prefd", t.main_calls(), [
    E("read", fd=3, count=500, ret=500, path=p),
    E("pwrite64", fd=3, count=100, off=6000, ret=100, path=p),
    E("fstat", fd=3, ret=0, size=6100, ftype=S_IFREG, path=p, **ids),
    E("lseek", fd=3, off=0, cmd=1, ret=1500, path=p),
])
t.common()
PY
