#!/usr/bin/env bash
# Linux AIO: io_submit is recorded with its context and count; io_setup/io_getevents are not in the table.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload aio
check_trace <<'PY'
p = t.path("aio.dat")
calls = t.main_calls()
t.expect_seq("aio", calls, [
    E("openat", ret=4, path=p, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1, size=0),
    E("io_submit", count=1, ret=1),
    E("close", fd=4, ret=0, path=p),
])
if len(calls) == 3:
    t.true("io_submit context (arg) recorded and non-zero: %r" % calls[1].get("arg"),
           isinstance(calls[1].get("arg"), int) and calls[1]["arg"] != 0)
t.eq("aio.dat size", os.path.getsize(p), 4096)
t.common()
PY
