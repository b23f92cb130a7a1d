#!/usr/bin/env bash
# failed calls: ENOENT, EBADF, EEXIST as negative ret, with the paths and fds as passed and no stat or open facts.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload errors
check_trace <<'PY'
miss, nof, d, f = t.path("missing/none"), t.path("nofile"), t.path("er_dir"), t.path("er.dat")
t.expect_seq("errors", t.main_calls(), [
    E("open", path=miss, path_raw=miss, flags=O_RDONLY, ret=-ENOENT, size=ABSENT, ino=ABSENT),
    E("openat", dirfd=AT_FDCWD, path=nof, flags=O_RDONLY, ret=-ENOENT, size=ABSENT, ino=ABSENT),
    E("stat", path=nof, ret=-ENOENT, size=ABSENT, ino=ABSENT, ftype=ABSENT),
    E("unlink", path=nof, ret=-ENOENT),
    E("read", fd=99, count=10, ret=-EBADF, path=ABSENT),
    E("close", fd=99, ret=-EBADF, path=ABSENT),
    E("fstat", fd=98, ret=-EBADF, size=ABSENT, ino=ABSENT),
    E("dup2", fd=97, fd2=5, ret=-EBADF),
    E("mkdir", path=d, mode=0o755, ret=0),
    E("mkdir", path=d, mode=0o755, ret=-EEXIST),
    E("open", path=f, flags=O_CREAT | O_EXCL | O_WRONLY, mode=0o644, ret=4, created=1),
    E("close", fd=4, ret=0, path=f),
    E("open", path=f, flags=O_CREAT | O_EXCL | O_WRONLY, mode=0o644, ret=-EEXIST, size=ABSENT),
    E("write", fd=4, count=1, ret=-EBADF, path=ABSENT),
    E("rmdir", path=d, ret=0),
])
t.common()
PY
