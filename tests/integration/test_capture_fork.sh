#!/usr/bin/env bash
# fork, clone(SIGCHLD) and vfork+exec children: proc records with parent and child, the copied fd table, exit codes, exec of /bin/true.
. "$(dirname "$0")/lib.sh"
require_capture
capture_workload fork
check_trace <<'PY'
sh, fc, cc = t.path("fk_shared.dat"), t.path("fk_child.dat"), t.path("cl_child.dat")
SIGCHLD, CLONE_VM, CLONE_VFORK, CLONE_THREAD = 17, 0x100, 0x4000, 0x10000
forks = t.procs("fork", pid=WPID)
t.eq("fork records of the workload", len(forks), 3)
kids = [r.get("child_pid") for r in forks]
for r in forks:
    t.eq("fork record parent tid", r.get("tid"), WPID)
    t.eq("fork record child_tid == child_pid", r.get("child_tid"), r.get("child_pid"))
while len(kids) < 3:
    kids.append(-1)
if len(forks) == 3:
    t.eq("fork() clone_flags", forks[0].get("clone_flags"), SIGCHLD)
    t.eq("clone(SIGCHLD) clone_flags", forks[1].get("clone_flags"), SIGCHLD)
    t.eq("vfork() clone_flags", forks[2].get("clone_flags"), CLONE_VM | CLONE_VFORK | SIGCHLD)
t.expect_seq("parent", t.main_calls(), [
    E("openat", ret=4, path=sh, flags=O_CREAT | O_RDWR | O_TRUNC, mode=0o644, created=1),
    E("fork", ret=kids[0]),
    E("pwrite64", fd=4, count=50, off=100, ret=50, path=sh),
    E("close", fd=4, ret=0, path=sh),
    E("clone", flags=SIGCHLD, ret=kids[1]),
    E("vfork", ret=kids[2]),
])
# The fork child writes through the fd it inherited, then to a file of its own.
t.expect_seq("fork child", t.calls(tid=kids[0]), [
    E("pwrite64", pid=kids[0], fd=4, count=100, off=0, ret=100, path=sh),
    E("openat", pid=kids[0], ret=5, path=fc, created=1),
    E("write", pid=kids[0], fd=5, count=111, ret=111, path=fc),
    E("close", pid=kids[0], fd=5, ret=0, path=fc),
])
t.expect_seq("clone child", t.calls(tid=kids[1]), [
    E("openat", pid=kids[1], ret=4, path=cc, created=1),
    E("write", pid=kids[1], fd=4, count=222, ret=222, path=cc),
    E("close", pid=kids[1], fd=4, ret=0, path=cc),
])
vk = t.calls(tid=kids[2])
t.true("vfork child made syscalls", len(vk) > 0)
if vk:
    t.expect_seq("vfork child's first call", vk[:1], [E("execve", pid=kids[2], ret=0)])
    # The old image's memory is gone at a successful execve's exit: capture
    # takes the path from the exec event, and it must be there and right.
    for k in ("path", "path_raw"):
        t.eq("execve " + k, vk[0].get(k), "/bin/true")
ex = t.procs("exec")
t.eq("exec records", [(r.get("pid"), r.get("path"), r.get("comm")) for r in ex],
     [(kids[2], "/bin/true", "true")])
codes = {r.get("pid"): r.get("exit_code") for r in t.procs("exit")}
t.eq("exit codes (wait status)", {k: codes.get(k) for k in kids}, {kids[0]: 7 << 8, kids[1]: 0, kids[2]: 0})
t.eq("processes traced", t.traced_pids(), {WPID} | set(kids))
t.eq("fk_shared.dat size", os.path.getsize(sh), 150)
t.common()
PY
