#!/usr/bin/env bash
# chmod/chown/utimensat families: modes, uids, gids, flags, an EOPNOTSUPP return.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload attr
check_trace <<'PY'
p, l = t.path("at.dat"), t.path("at.lnk")
AT_SYMLINK_NOFOLLOW = 0x100
t.expect_seq("attr", t.main_calls(), [
    E("chmod", path=p, path_raw=p, mode=0o600, ret=0),
    E("openat", ret=4, path=p, flags=O_RDONLY),
    E("fchmod", fd=4, mode=0o640, ret=0, path=p),
    E("fchmodat", dirfd=AT_FDCWD, path=p, mode=0o644, ret=0),
    E("fchmodat2", dirfd=AT_FDCWD, path=p, mode=0o604, flags=0, ret=0),
    E("fchmodat2", dirfd=AT_FDCWD, path=l, mode=0o600, flags=AT_SYMLINK_NOFOLLOW, ret=-EOPNOTSUPP),
    E("chown", path=p, uid=1000, gid=1000, ret=0),
    E("fchown", fd=4, uid=0, gid=0, ret=0, path=p),
    E("lchown", path=l, uid=1001, gid=1001, ret=0),
    # uid -1 (leave unchanged) as the kernel's 32-bit uid_t.
    E("fchownat", dirfd=AT_FDCWD, path=p, uid=0xffffffff, gid=1002, flags=0, ret=0),
    E("utimensat", dirfd=AT_FDCWD, path=p, flags=0, ret=0),
    E("utimensat", dirfd=AT_FDCWD, path=l, flags=AT_SYMLINK_NOFOLLOW, ret=0),
    E("close", fd=4, ret=0, path=p),
])
st = os.stat(p)
t.eq("at.dat mode", stat.S_IMODE(st.st_mode), 0o604)
t.eq("at.dat owner", (st.st_uid, st.st_gid), (0, 1002))
t.eq("at.dat mtime", st.st_mtime_ns, 1000000000 * 10**9 + 500)
t.common()
PY
