#!/usr/bin/env bash
# truncate, ftruncate and fallocate (plain, keep-size, punch-hole): lengths, offsets, modes.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload trunc
check_trace <<'PY'
p = t.path("tr.dat")
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
t.expect_seq("trunc", t.main_calls(), [
    E("truncate", path=p, path_raw=p, off=5000, ret=0),
    E("openat", ret=4, path=p, flags=O_RDWR, size=5000, created=0),
    E("ftruncate", fd=4, off=20000, ret=0, path=p),
    E("fallocate", fd=4, flags=0, off=0, count=65536, ret=0, path=p),
    E("fallocate", fd=4, flags=FALLOC_FL_KEEP_SIZE, off=65536, count=4096, ret=0, path=p),
    E("fallocate", fd=4, flags=FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off=0, count=4096,
      ret=0, path=p),
    E("close", fd=4, ret=0, path=p),
])
t.eq("tr.dat size", os.path.getsize(p), 65536)
t.common()
PY
