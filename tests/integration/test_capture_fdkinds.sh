#!/usr/bin/env bash
# fds that name no file: pipe2, socketpair, eventfd2, epoll_create1,
# memfd_create and socket are recorded with the fds they made, so their
# uses count as operations on non-files, not as unresolved fds, in
# `riot info`; replay skips them as such, and its "unresolved fd or cwd"
# agrees with info (0): a read of an fd that was not open (EBADF) is
# neither: it did no I/O, and is accounted as captured, not issued.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
capture_workload fdkinds
check_trace <<'PY'
t.expect_seq("fdkinds", t.main_calls(), [
    E("pipe2", ret=0, fd=4, fd2=5, flags=O_CLOEXEC),
    E("write", fd=5, ret=10), E("read", fd=4, ret=10),
    E("socketpair", ret=0, fd=6, fd2=7),
    E("write", fd=6, ret=7), E("read", fd=7, ret=7),
    E("eventfd2", ret=8), E("write", fd=8, ret=8),
    E("epoll_create1", ret=9),
    E("memfd_create", ret=10, ftype=S_IFREG),
    E("pwrite64", fd=10, ret=100, off=0), E("fstat", fd=10, ret=0),
    E("socket", ret=11, ftype=0o140000),
] + [E("close", fd=fd, ret=0) for fd in range(4, 12)] + [
    E("read", fd=20, ret=-EBADF),
])
t.eq("info: unresolved fd operations", t.info.get("unresolved_fds"), 0)
# 2 on the pipe, 2 on the socket pair, 1 on the eventfd, 2 on the memfd,
# and the 8 closes
t.eq("info: operations on non-files", t.info.get("nonfile_fd_ops"), 15)
t.common(prefd=True)
PY
for e in uring sync; do
	replay_json "$LOG" "$IT_TMP/root-$e" --engine "$e"
	python3 - "$IT_TMP/replay.json" "$IT_TMP/info.json" <<'PY' || fail "replay ($e): skips disagree with riot info"
import json, sys
rep, info = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sk = rep.get("skip_reasons", {})
got = sk.get("unresolved fd or cwd", 0)
want = info["unresolved_fds"] + info["unknown_cwd"]
if got != want:
    sys.exit("FAIL: replay skipped %d as unresolved fd or cwd, info says %d" % (got, want))
if sk.get("pipe or socket", 0) < 7 or sk.get("fd not open (EBADF)", 0) != 0:
    sys.exit("FAIL: ops on non-files not skipped as such: %r" % sk)
if rep["syscalls"]["read"]["failed_as_captured"] != 1:
    sys.exit("FAIL: the read of no fd not accounted as captured: %r" % rep["syscalls"]["read"])
PY
done
