#!/usr/bin/env bash
# mmap of a file, msync, munmap: fd, offset, length, prot, flags, the address through all three.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload mmap
check_trace <<'PY'
p = t.path("mm.dat")
PROT_RW, MAP_SHARED, MS_SYNC = 3, 1, 4
calls = t.main_calls()
t.expect_seq("mmap", calls, [
    E("openat", ret=4, path=p, flags=O_RDWR, size=16384),
    E("mmap", fd=4, arg=0, count=8192, cmd=PROT_RW, flags=MAP_SHARED, off=4096, path=p),
    E("msync", count=8192, flags=MS_SYNC, ret=0),
    E("munmap", count=8192, ret=0),
    E("close", fd=4, ret=0, path=p),
])
if len(calls) == 5:
    addr = calls[1].get("ret")
    t.true("mmap returned an address, got %r" % addr, isinstance(addr, int) and addr > 0)
    t.eq("msync address", calls[2].get("arg"), addr)
    t.eq("munmap address", calls[3].get("arg"), addr)
t.common()
PY
