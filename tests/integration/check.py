"""tests/integration/check.py: exact checks of a capture, as the integration
tests see it through `riot dump --format jsonl` and `riot info --json`.

    python3 check.py SNIPPET DUMP_JSONL INFO_JSON WORKDIR WPID WPPID

runs the Python in SNIPPET with `t` bound to a Trace of the workload run and
the names below in scope, then exits 0 when every check held, 1 otherwise,
after printing each failed check. A snippet states the exact syscall
sequence it expects (E(...) entries); fields it names must be equal, fields
set to ABSENT must be missing, fields it does not name are not checked.
"""
import collections
import json
import os
import stat
import sys

AT_FDCWD = -100
S_IFMT = stat.S_IFMT(0o177777)
S_IFREG = stat.S_IFREG
S_IFDIR = stat.S_IFDIR
S_IFLNK = stat.S_IFLNK
S_IFIFO = stat.S_IFIFO
O_RDONLY, O_WRONLY, O_RDWR = os.O_RDONLY, os.O_WRONLY, os.O_RDWR
O_CREAT, O_EXCL, O_TRUNC = os.O_CREAT, os.O_EXCL, os.O_TRUNC
O_APPEND, O_NONBLOCK = os.O_APPEND, os.O_NONBLOCK
O_DIRECTORY, O_CLOEXEC, O_LARGEFILE = os.O_DIRECTORY, os.O_CLOEXEC, 0o100000
ENOENT, EBADF, EEXIST, EPERM, ENODATA, EOPNOTSUPP = 2, 9, 17, 1, 61, 95


class _Absent:
    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()


def E(op, **fields):
    """One expected syscall record."""
    fields["op"] = op
    return fields


class Trace:
    def __init__(self, dump, info, wdir, wpid, wppid):
        self.failures = []
        self.wdir = wdir
        self.wpid = wpid
        self.wppid = wppid
        self.recs = []
        with open(dump) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    self.recs.append(json.loads(line))
                except ValueError as e:
                    self.fail("dump line %d is not JSON (%s): %r" % (n, e, line[:200]))
        self.info = None
        if info:
            try:
                with open(info) as f:
                    self.info = json.load(f)
            except (OSError, ValueError) as e:
                self.fail("riot info --json output unreadable: %s" % e)
        # Entry time orders the calls of one thread; the sort is stable.
        self.sys = sorted((r for r in self.recs if r.get("type") == "syscall"),
                          key=lambda r: r.get("t", 0))
        self.proc = sorted((r for r in self.recs if r.get("type") == "proc"),
                           key=lambda r: r.get("t", 0))

    # ---- reporting ----

    def fail(self, msg):
        self.failures.append(msg)

    def eq(self, what, got, want):
        if got != want:
            self.fail("%s: expected %r, got %r" % (what, want, got))
        return got == want

    def true(self, what, cond):
        if not cond:
            self.fail(what)
        return cond

    def finish(self):
        if self.failures:
            for f in self.failures[:60]:
                print("FAIL: " + f)
            if len(self.failures) > 60:
                print("FAIL: ... %d more" % (len(self.failures) - 60))
            return 1
        print("ok: %d records checked" % len(self.recs))
        return 0

    # ---- selections ----

    def path(self, name):
        return os.path.join(self.wdir, name)

    def of_type(self, typ):
        return [r for r in self.recs if r.get("type") == typ]

    def calls(self, tid=None, pid=None, op=None, asynchronous=False):
        """Syscall records; the asynchronous requests ("aio:pread",
        "mmap:read", ...: page faults happen anywhere) only when asked for,
        by name or with asynchronous=True."""
        out = []
        for r in self.sys:
            if tid is not None and r.get("tid") != tid:
                continue
            if pid is not None and r.get("pid") != pid:
                continue
            if op is not None and r.get("op") != op:
                continue
            if op is None and not asynchronous and ":" in str(r.get("op")):
                continue
            out.append(r)
        return out

    def main_calls(self):
        """Syscalls of the workload's main thread, in order."""
        return self.calls(tid=self.wpid, pid=self.wpid)

    def procs(self, kind=None, pid=None):
        return [r for r in self.proc
                if (kind is None or r.get("kind") == kind)
                and (pid is None or r.get("pid") == pid)]

    # ---- checks ----

    def expect_seq(self, label, actual, expected):
        """actual must be exactly expected: same length, same ops in the
        same order, and every named field equal."""
        ops_a = [r.get("op") for r in actual]
        ops_e = [e["op"] for e in expected]
        if ops_a != ops_e:
            self.fail("%s: op sequence differs\n  expected (%d): %s\n  got      (%d): %s"
                      % (label, len(ops_e), " ".join(ops_e), len(ops_a), " ".join(ops_a)))
        for i, (a, e) in enumerate(zip(actual, expected)):
            if a.get("op") != e["op"]:
                continue
            for k, v in e.items():
                if v is ABSENT:
                    if k in a:
                        self.fail("%s[%d] %s: field %s should be absent, got %r"
                                  % (label, i, e["op"], k, a[k]))
                elif k not in a:
                    self.fail("%s[%d] %s: field %s missing (expected %r) in %s"
                              % (label, i, e["op"], k, v, json.dumps(a, sort_keys=True)))
                elif a[k] != v:
                    self.fail("%s[%d] %s: %s expected %r, got %r"
                              % (label, i, e["op"], k, v, a[k]))

    def traced_pids(self):
        """The workload and every process it forked, from the proc records."""
        pids = {self.wpid}
        changed = True
        while changed:
            changed = False
            for r in self.procs("fork"):
                c = r.get("child_pid")
                if r.get("pid") in pids and c not in pids:
                    pids.add(c)
                    changed = True
        return pids

    def common(self, exit_code=0, prefd=True):
        """What holds for every `capture -p WPID` of the workload: start
        state, only the workload's processes, no loss, the exit record, and
        info agreeing with the dump."""
        pids = self.traced_pids()
        for r in self.recs:
            if r.get("type") in ("syscall", "proc", "snap_proc", "snap_fd") and r.get("pid") not in pids:
                self.fail("record of a process the workload did not start: %s"
                          % json.dumps(r, sort_keys=True))
        drops = self.of_type("drop")
        self.eq("drop records", drops, [])
        sp = self.of_type("snap_proc")
        if self.eq("snap_proc pids", [r.get("pid") for r in sp], [self.wpid]):
            self.eq("snap_proc cwd", sp[0].get("cwd"), self.wdir)
            self.eq("snap_proc comm", sp[0].get("comm"), "workload")
            self.eq("snap_proc ppid", sp[0].get("ppid"), self.wppid)
        if prefd:
            # the start state (t 0); an fd found open there and used later
            # is introduced again at its first use, on the same file object
            start = [r for r in self.of_type("snap_fd") if r.get("t") == 0]
            fds = sorted(r.get("fd") for r in start if r.get("pid") == self.wpid)
            self.eq("snap_fd fds of the workload", fds, [0, 1, 2, 3])
            obj = {(r.get("pid"), r.get("fd")): r.get("file") for r in start}
            for r in self.of_type("snap_fd"):
                if r.get("t") != 0 and (r.get("pid"), r.get("fd")) in obj:
                    self.eq("snap_fd %d found in use: file object" % r.get("fd"),
                            r.get("file"), obj[(r.get("pid"), r.get("fd"))])
            f3 = [r for r in start if r.get("fd") == 3]
            if f3:
                p = self.path("prefd.dat")
                f3 = f3[0]
                self.eq("snap_fd 3 path", f3.get("path"), p)
                self.eq("snap_fd 3 pos", f3.get("pos"), 1000)
                self.eq("snap_fd 3 access mode", (f3.get("flags") or 0) & 3, O_RDWR)
                self.eq("snap_fd 3 ftype", f3.get("ftype"), S_IFREG)
                if os.path.exists(p):
                    st = os.stat(p)
                    self.eq("snap_fd 3 ino", f3.get("ino"), st.st_ino)
                    self.eq("snap_fd 3 dev", f3.get("dev"), st.st_dev)
                # The prefd scenario grows it to 6100 later; at the start
                # it held 5000 bytes.
                self.eq("snap_fd 3 size", f3.get("size"), 5000)
        ex = [r for r in self.procs("exit") if r.get("tid") == self.wpid]
        if self.eq("exit records of the workload's main thread", len(ex), 1):
            self.eq("workload exit_code", ex[0].get("exit_code"), exit_code << 8)
        self.check_info()

    def check_info(self):
        if self.info is None:
            return
        ops = collections.Counter(r.get("op") for r in self.sys)
        self.eq("info complete", self.info.get("complete"), True)
        self.eq("info drops", self.info.get("drops"), 0)
        # events counts syscall and proc records.
        self.eq("info events", self.info.get("events"), len(self.sys) + len(self.proc))
        self.eq("info ops", dict(self.info.get("ops") or {}), dict(ops))

    def file_ids(self, name):
        """ino and dev of WORKDIR/name as stat(2) gives them now."""
        st = os.lstat(self.path(name))
        return {"ino": st.st_ino, "dev": st.st_dev}


def main():
    snippet, dump, info, wdir, wpid, wppid = sys.argv[1:7]
    t = Trace(dump, info, wdir, int(wpid), int(wppid))
    env = dict(globals())
    env["t"] = t
    env["W"] = wdir
    env["WPID"] = int(wpid)
    with open(snippet) as f:
        code = compile(f.read(), "check snippet", "exec")
    try:
        exec(code, env)
    except Exception as e:  # a crash in a check is a failed check
        import traceback
        traceback.print_exc()
        t.fail("check raised %s: %s" % (type(e).__name__, e))
    sys.exit(t.finish())


if __name__ == "__main__":
    main()
