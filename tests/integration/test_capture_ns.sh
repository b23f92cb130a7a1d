#!/usr/bin/env bash
# namespace calls: mkdir, rename, link, symlink, readlink, mknod, unlink, rmdir and their *at forms.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload ns
check_trace <<'PY'
n = lambda x: t.path("ns/" + x) if x else t.path("ns")
RENAME_NOREPLACE, AT_REMOVEDIR = 1, 0x200
t.expect_seq("ns", t.main_calls(), [
    E("mkdir", path=n(""), path_raw=n(""), mode=0o755, ret=0),
    E("mkdirat", dirfd=AT_FDCWD, path=n("sub"), mode=0o700, ret=0),
    E("open", path=n("f1"), flags=O_CREAT | O_WRONLY, mode=0o644, created=1, ret=4),
    E("close", fd=4, ret=0, path=n("f1")),
    E("rename", path=n("f1"), path_raw=n("f1"), path2=n("f2"), path2_raw=n("f2"), ret=0),
    E("renameat", dirfd=AT_FDCWD, path=n("f2"), dirfd2=AT_FDCWD, path2=n("sub/f3"), ret=0),
    E("renameat2", dirfd=AT_FDCWD, path=n("sub/f3"), dirfd2=AT_FDCWD, path2=n("f4"),
      flags=RENAME_NOREPLACE, ret=0),
    E("link", path=n("f4"), path2=n("h1"), ret=0),
    E("linkat", dirfd=AT_FDCWD, path=n("f4"), dirfd2=AT_FDCWD, path2=n("h2"), flags=0, ret=0),
    # A symlink target is text, stored as passed.
    E("symlink", path=n("s1"), path_raw=n("s1"), path2_raw="f4", ret=0),
    E("symlinkat", dirfd=AT_FDCWD, path=n("s2"), path2_raw="/nonexistent/target", ret=0),
    E("readlink", path=n("s1"), count=256, ret=2, path2_raw="f4"),
    E("readlinkat", dirfd=AT_FDCWD, path=n("s2"), count=256, ret=19,
      path2_raw="/nonexistent/target"),
    E("mknod", path=n("fifo"), mode=S_IFIFO | 0o644, arg=0, ret=0),
    E("mknodat", dirfd=AT_FDCWD, path=n("fifo2"), mode=S_IFIFO | 0o600, arg=0, ret=0),
    E("unlink", path=n("h1"), ret=0),
    E("unlink", path=n("h2"), ret=0),
    E("unlink", path=n("s1"), ret=0),
    E("unlink", path=n("s2"), ret=0),
    E("unlink", path=n("fifo"), ret=0),
    E("unlinkat", dirfd=AT_FDCWD, path=n("fifo2"), flags=0, ret=0),
    E("unlinkat", dirfd=AT_FDCWD, path=n("f4"), flags=0, ret=0),
    E("rmdir", path=n("sub"), path_raw=n("sub"), ret=0),
    E("unlinkat", dirfd=AT_FDCWD, path=n(""), flags=AT_REMOVEDIR, ret=0),
])
t.true("ns/ is gone after the run", not os.path.exists(n("")))
t.common()
PY
