#!/usr/bin/env bash
# getdents64 and getdents on a directory of three files: exact byte counts.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload dir
check_trace <<'PY'
d = t.path("d")
ids = t.file_ids("d")
size = os.stat(d).st_size
seq = []
for op in ("getdents64", "getdents"):
    seq += [
        E("openat", ret=4, dirfd=AT_FDCWD, path=d, flags=O_RDONLY | O_DIRECTORY, created=0,
          ftype=S_IFDIR, size=size, **ids),
        # ".", "..", "a", "b", "c": five 24-byte records in either layout.
        E(op, fd=4, count=32768, ret=120, path=d),
        E(op, fd=4, count=32768, ret=0, path=d),
        E("close", fd=4, ret=0, path=d),
    ]
t.expect_seq("dir", t.main_calls(), seq)
t.common()
PY
