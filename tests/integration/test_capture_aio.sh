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
    E("io_setup", count=8, ret=0),
    E("io_submit", count=1, ret=1),
    E("io_getevents", count=1, ret=1),
    E("io_destroy", ret=0),
    E("close", fd=4, ret=0, path=p),
])
if len(calls) == 6:
    t.true("io_submit context (arg) recorded and non-zero: %r" % calls[2].get("arg"),
           isinstance(calls[2].get("arg"), int) and calls[2]["arg"] != 0)
    t.eq("io_getevents and io_destroy name io_submit's context",
         (calls[3].get("arg"), calls[4].get("arg")), (calls[2].get("arg"),) * 2)
t.eq("aio.dat size", os.path.getsize(p), 4096)
t.common()
PY
