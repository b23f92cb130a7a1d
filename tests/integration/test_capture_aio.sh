#!/usr/bin/env bash
# Linux AIO: io_setup, io_submit, io_getevents, io_pgetevents, io_destroy as
# syscalls, and one aio:* record per request the kernel took (not the iocb
# io_submit refused), with its fd, offset, length, iovecs, context and result,
# timed from its io_submit to the call that reaped it.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload aio
check_trace <<'PY'
p = t.path("aio.dat")
calls = t.main_calls()
t.expect_seq("aio syscalls", calls, [
    E("openat", ret=4, path=p, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1, size=0),
    E("io_setup", count=8, ret=0),
    E("io_submit", count=2, ret=1),
    E("io_getevents", count=1, ret=1),
    E("io_submit", count=1, ret=1),
    E("io_pgetevents", count=1, ret=1),
    E("io_submit", count=1, ret=1),
    E("io_getevents", count=1, ret=1),
    E("io_submit", count=1, ret=1),
    E("io_getevents", count=1, ret=1),
    E("io_destroy", ret=0),
    E("close", fd=4, ret=0, path=p),
])
reqs = [r for r in t.calls(tid=t.wpid, pid=t.wpid, asynchronous=True) if r["op"].startswith("aio:")]
t.expect_seq("aio requests", reqs, [
    E("aio:pwrite", fd=4, path=p, off=0, count=4096, flags=0, ret=4096),
    E("aio:pwritev", fd=4, path=p, off=4096, count=4096, iovcnt=2, flags=0, ret=4096),
    E("aio:fdsync", fd=4, path=p, flags=0, ret=0),
    E("aio:pread", fd=4, path=p, off=4096, count=4096, flags=0, ret=4096),
])
if len(calls) == 12 and len(reqs) == 4:
    ctx = calls[2].get("arg")
    t.true("io_submit context (arg) recorded and non-zero: %r" % ctx, isinstance(ctx, int) and ctx != 0)
    t.eq("every request's ctx is io_submit's context", [r.get("ctx") for r in reqs], [ctx] * 4)
    # submitted by the i-th io_submit, reaped by the call after it
    for i, r in enumerate(reqs):
        sub, reap = calls[2 + 2 * i], calls[3 + 2 * i]
        t.true("%s submitted within its io_submit (t %d in %d..%d)" % (r["op"], r["t"], sub["t"], sub["t"] + sub["dur"]),
               sub["t"] <= r["t"] <= sub["t"] + sub["dur"])
        t.true("%s completes within the call that reaped it (t+dur %d in %d..%d)"
               % (r["op"], r["t"] + r["dur"], reap["t"], reap["t"] + reap["dur"]),
               reap["t"] <= r["t"] + r["dur"] <= reap["t"] + reap["dur"])
t.eq("info: aio ops", {k: v for k, v in (t.info or {}).get("ops", {}).items() if k.startswith("aio:")},
     {"aio:pwrite": 1, "aio:pwritev": 1, "aio:fdsync": 1, "aio:pread": 1})
t.eq("aio.dat size", os.path.getsize(p), 8192)
t.common()
PY
