#!/usr/bin/env bash
# relative paths: against the start cwd from the snapshot, after chdir, after fchdir, with .. and .
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload cwd
check_trace <<'PY'
cw, sub, f = t.path("cw"), t.path("cw/sub"), t.path("cw/sub/f.dat")
t.expect_seq("cwd", t.main_calls(), [
    E("access", path=f, path_raw="cw/sub/f.dat", mode=0, ret=0),
    E("chdir", path=cw, path_raw="cw", ret=0),
    E("open", ret=4, path=f, path_raw="sub/f.dat", flags=O_RDONLY, size=300, created=0,
      **t.file_ids("cw/sub/f.dat")),
    E("read", fd=4, count=1000, ret=300, path=f),
    E("close", fd=4, ret=0, path=f),
    E("openat", ret=4, dirfd=AT_FDCWD, path=sub, path_raw="sub", flags=O_RDONLY | O_DIRECTORY,
      ftype=S_IFDIR),
    E("fchdir", fd=4, ret=0, path=sub),
    E("close", fd=4, ret=0, path=sub),
    E("stat", path=f, path_raw="f.dat", ret=0, size=300),
    E("stat", path=f, path_raw="../sub/./f.dat", ret=0, size=300),
    E("mkdir", path=t.path("cw/sub/new"), path_raw="new", mode=0o755, ret=0),
    E("rename", path=t.path("cw/sub/new"), path_raw="new", path2=t.path("cw/new2"),
      path2_raw="../new2", ret=0),
    E("chdir", path=cw, path_raw="..", ret=0),
    E("rmdir", path=t.path("cw/new2"), path_raw="new2", ret=0),
    E("chdir", path=W, path_raw=W, ret=0),
])
t.common()
PY
