#!/usr/bin/env bash
# the xattr family on a file and a symlink: names, sizes, flags, EPERM and ENODATA returns.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload xattr
check_trace <<'PY'
p, l = t.path("xa.dat"), t.path("xa.lnk")
XATTR_CREATE = 1
t.expect_seq("xattr", t.main_calls(), [
    E("setxattr", path=p, path_raw=p, path2_raw="user.riot", count=6, flags=0, ret=0),
    E("lsetxattr", path=p, path2_raw="user.l", count=1, flags=XATTR_CREATE, ret=0),
    E("lsetxattr", path=l, path2_raw="user.l", count=1, flags=0, ret=-EPERM),
    E("openat", ret=4, path=p, flags=O_RDWR),
    E("fsetxattr", fd=4, path=p, path2_raw="user.f", count=3, flags=0, ret=0),
    E("getxattr", path=p, path2_raw="user.riot", count=64, ret=6),
    E("getxattr", path=p, path2_raw="user.none", count=64, ret=-ENODATA),
    E("lgetxattr", path=p, path2_raw="user.l", count=64, ret=1),
    E("fgetxattr", fd=4, path=p, path2_raw="user.f", count=64, ret=3),
    # "user.riot\0user.l\0user.f\0"
    E("listxattr", path=p, count=256, ret=24),
    E("llistxattr", path=l, count=256, ret=0),
    E("flistxattr", fd=4, path=p, count=256, ret=24),
    E("removexattr", path=p, path2_raw="user.riot", ret=0),
    E("lremovexattr", path=p, path2_raw="user.l", ret=0),
    E("fremovexattr", fd=4, path=p, path2_raw="user.f", ret=0),
    E("fremovexattr", fd=4, path=p, path2_raw="user.f", ret=-ENODATA),
    E("close", fd=4, ret=0, path=p),
])
t.common()
PY
