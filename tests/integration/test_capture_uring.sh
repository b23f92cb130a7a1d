#!/usr/bin/env bash
# io_uring: the ring's mmaps, each io_uring_enter (fd, to_submit, min_complete, flags, ret),
# and the requests it submitted (io_uring:write, io_uring:read: fd, offset,
# count, result, ring), each timed from its submission inside the enter.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload uring
check_trace <<'PY'
p = t.path("ur.dat")
PROT_RW, MAP_SHARED_POPULATE, IORING_OFF_SQES, GETEVENTS = 3, 0x8001, 0x10000000, 1
# the main thread's syscalls and io_uring requests (page faults left out)
main = [r for r in t.calls(tid=t.wpid, pid=t.wpid, asynchronous=True)
        if not r["op"].startswith(("mmap:", "aio:"))]
t.expect_seq("uring", main, [
    E("io_uring_setup", ret=4),
    E("openat", ret=5, path=p, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1, size=0),
    E("mmap", fd=4, arg=0, off=0, cmd=PROT_RW, flags=MAP_SHARED_POPULATE),
    E("mmap", fd=4, arg=0, off=IORING_OFF_SQES, cmd=PROT_RW, flags=MAP_SHARED_POPULATE),
    E("io_uring_enter", fd=4, count=1, arg=1, flags=GETEVENTS, ret=1),
    E("io_uring:write", fd=5, off=0, count=4096, flags=0, ret=4096, ctx=1, path=p),
    E("io_uring_enter", fd=4, count=1, arg=1, flags=GETEVENTS, ret=1),
    E("io_uring:read", fd=5, off=0, count=4096, flags=0, ret=4096, ctx=1, path=p),
    E("munmap", ret=0),
    E("munmap", ret=0),
    E("close", fd=5, ret=0, path=p),
    E("close", fd=4, ret=0),
])
t.eq("ur.dat size (written through the ring)", os.path.getsize(p), 4096)
calls = main
if len(calls) == 12:
    for enter, req in ((calls[4], calls[5]), (calls[6], calls[7])):
        t.true("%s submitted and completed within its io_uring_enter" % req["op"],
               enter["t"] <= req["t"] and req["t"] + req["dur"] <= enter["t"] + enter["dur"])
t.common()
PY
