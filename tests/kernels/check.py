#!/usr/bin/env python3
"""tests/kernels/check.py RESULTS RIOT TOP: judges what suite.sh left for
each kernel of `make kernels` (RESULTS/NAME/out, in RESULTS/order's order,
the running kernel first) and prints one line per kernel: whether capture
loaded, how many programs, its fallbacks, and each check. Exit 1 when any
check failed on any kernel.

Checks:
  version   `riot version` says capture works exactly when `riot capture
            --check` does, with the same fallbacks, and the logs state them
  counts    workload `all` (every class riot records) exited 0 after its own
            checks of each call's result; captured with no drops; its
            records per syscall and request kind equal the running
            kernel's, but for the kinds a fallback of this kernel leaves out
  tree      a tree written by 4 threads and a shell (files, modes, a
            symlink) replays to the same names, types, modes, sizes and
            link targets
  block     4 MiB written and fsynced under `riot capture --block`: the
            report's device saw at least that much written
  loop      LOOP_CALLS preads at full speed, every one recorded, no drops
  syscalls  every syscall tracepoint taking an fd or a path is a row of
            bpf/syscalls.def or listed in bpf/syscalls.unrecorded
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

RES, RIOT, TOP = sys.argv[1:4]
# What each fallback leaves out of the records: their kinds (riot info's
# op names) are not compared with the running kernel's.
DROPS = {
    "no-io-uring": lambda op: op.startswith("io_uring:"),
    "no-mmap-fault": lambda op: op == "mmap:read",
    "no-fault-around": lambda op: op == "mmap:read",
    "no-fault-address": lambda op: op.startswith("mmap:"),
    "no-mmap-write": lambda op: op == "mmap:write",
    "no-find-vma": lambda op: op in ("mmap", "munmap", "mremap", "madvise", "msync"),
}


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def rc_of(out, name):
    s = read(os.path.join(out, name + ".rc")).strip()
    return int(s) if s.lstrip("-").isdigit() else None


# arm64 (asm-generic) has no legacy calls: tests/bin/workload makes the
# *at call, dup3, clone or utimensat there. Counts are compared with these
# folded into the call they become.
GENERIC = {
    "open": "openat", "creat": "openat", "stat": "newfstatat", "lstat": "newfstatat",
    "mkdir": "mkdirat", "rmdir": "unlinkat", "unlink": "unlinkat", "rename": "renameat",
    "link": "linkat", "symlink": "symlinkat", "readlink": "readlinkat", "chmod": "fchmodat",
    "chown": "fchownat", "lchown": "fchownat", "access": "faccessat", "dup2": "dup3",
    "fork": "clone", "vfork": "clone", "getdents": "getdents64", "utime": "utimensat",
    "utimes": "utimensat", "futimesat": "utimensat", "mknod": "mknodat",
}


def fold_generic(ops):
    out = {}
    for op, n in ops.items():
        op = GENERIC.get(op, op)
        out[op] = out.get(op, 0) + n
    return out


def own_mmap_reads(log):
    """mmap:read records of the files the workload made in its directory
    (WORK/w): the pages of the programs themselves (the workload's data
    segment, its forked child's exec of busybox) that fault in depend on
    what of them is in the page cache and on fault-around, not on
    capture."""
    p = subprocess.run([RIOT, "dump", "--format", "jsonl", "--type", "syscall", log],
                       capture_output=True, text=True)
    n = 0
    for line in p.stdout.splitlines():
        if '"mmap:read"' in line:
            r = json.loads(line)
            if r.get("op") == "mmap:read" and "/w/" in (r.get("path") or ""):
                n += 1
    return n


def info(log):
    p = subprocess.run([RIOT, "info", "--json", log], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)


class Kernel:
    def __init__(self, name, arch):
        self.name, self.arch = name, arch
        self.out = os.path.join(RES, name, "out")
        self.checks = {}
        self.why = []
        self.loaded = None
        self.fallbacks = None
        self.wl = None

    def check(self, name, ok, why=""):
        self.checks[name] = ok
        if not ok and why:
            self.why.append(f"{name}: {why}")


def judge(k, ref):
    out = k.out
    if os.path.exists(os.path.join(RES, k.name, "console.int3.log")):
        k.why.append("note: run twice, the first guest's kernel oopsed on an int3 of its "
                     "text patching (console.int3.log)")
    if not os.path.isdir(out):
        err = read(os.path.join(RES, k.name, "error")).strip() or "the guest left no results"
        tail = read(os.path.join(RES, k.name, "console.log"))[-600:]
        k.why.append(err + (": " + tail.replace("\n", " | ") if tail and not read(os.path.join(RES, k.name, "error")) else ""))
        for c in ("version", "counts", "tree", "block", "loop", "syscalls"):
            k.checks[c] = False
        return
    check = read(os.path.join(out, "check.txt"))
    m = re.search(r"works, (\d+) of (\d+) programs loaded", check)
    k.loaded = f"{m.group(1)}/{m.group(2)}" if m else None
    k.fallbacks = sorted(re.findall(r"^  ([a-z-]+) ", check, re.M))
    if not m:
        k.why.append("capture --check: " + " ".join(check.split())[-300:])
    try:
        v = json.loads(read(os.path.join(out, "version.json")))
    except ValueError:
        v = {}
    fb = sorted(x for x in (v.get("capture_fallbacks") or "").split(",") if x)
    k.wl = info(os.path.join(out, "wl.riot"))
    logfb = None
    if k.wl:
        logfb = sorted(x for x in (k.wl["header"].get("fallbacks") or "").split(",") if x)
    ok = v.get("capture") is (m is not None) and (m is None or fb == k.fallbacks) and \
        (m is None or logfb == k.fallbacks)
    k.check("version", ok, f"version says capture={v.get('capture')} fallbacks={fb}, "
            f"--check {'works' if m else 'fails'} with {k.fallbacks}, the log states {logfb}")

    wl, why = k.wl, []
    if rc_of(out, "wl") != 0:
        why.append(f"workload exited {rc_of(out, 'wl')}: {read(os.path.join(out, 'wl.err'))[-300:]}")
    if rc_of(out, "wl.cap") != 0:
        why.append(f"capture exited {rc_of(out, 'wl.cap')}: {read(os.path.join(out, 'wl.cap.err'))[-300:]}")
    if not wl:
        why.append("no readable log")
    else:
        if wl["drops"]:
            why.append(f"{wl['drops']} drops")
        if ref is not None and ref.wl:
            skip = [DROPS[f] for f in k.fallbacks if f in DROPS]
            # io_getevents interrupted by pending task work is called
            # again (tests/bin/workload.c): the calls that reaped count
            mine, theirs = dict(wl["ops"]), dict(ref.wl["ops"])
            for op in ("io_getevents", "io_pgetevents"):
                for ops, v in ((mine, wl), (theirs, ref.wl)):
                    if op in ops:
                        ops[op] -= v.get("op_errors", {}).get(op, 0)
            for ops, kk in ((mine, k), (theirs, ref)):
                if "mmap:read" in ops:
                    ops["mmap:read"] = own_mmap_reads(os.path.join(kk.out, "wl.riot"))
            if k.arch != ref.arch:
                mine, theirs = fold_generic(mine), fold_generic(theirs)
            for op in sorted(set(mine) | set(theirs)):
                if any(s(op) for s in skip):
                    continue
                if mine.get(op, 0) != theirs.get(op, 0):
                    why.append(f"{op} {mine.get(op, 0)} (running kernel {theirs.get(op, 0)})")
    k.check("counts", not why, "; ".join(why))

    orig, rep = read(os.path.join(out, "tree.orig")), read(os.path.join(out, "tree.replay"))
    why = [f"{s} exited {rc_of(out, s)}" for s in ("tree.cap", "tree.init", "tree") if rc_of(out, s) != 0]
    if not orig.strip() or "\nl " not in "\n" + orig:
        why.append("the captured tree is empty or has no symlink")
    elif orig != rep:
        a, b = set(orig.splitlines()), set(rep.splitlines())
        why.append(f"trees differ: only captured {sorted(a - b)[:4]}, only replayed {sorted(b - a)[:4]}")
    k.check("tree", not why, "; ".join(why))

    why = []
    if rc_of(out, "block") != 0:
        why.append(f"capture --block exited {rc_of(out, 'block')}: "
                   f"{read(os.path.join(out, 'block.out'))[-300:]}")
    else:
        db = os.path.join(RES, k.name, "block.db")
        p = subprocess.run([RIOT, "report", os.path.join(out, "block.riot"), "-o", db],
                           capture_output=True, text=True)
        rows = []
        if p.returncode == 0:
            with sqlite3.connect(db) as c:
                rows = c.execute("select name, write_reqs, write_bytes from devices").fetchall()
        if not rows:
            why.append(f"no device in the report: {p.stderr[-300:]}")
        elif max(r[2] or 0 for r in rows) < 64 * 65536 or not any(r[1] for r in rows):
            why.append(f"the device saw less than the 4 MiB fsynced: {rows}")
    k.check("block", not why, "; ".join(why))

    lp = info(os.path.join(out, "loop.riot"))
    n = int(read(os.path.join(RES, "loop_calls"), "0") or 0)
    why = []
    if rc_of(out, "loop") != 0 or not lp:
        why.append(f"capture of the loop exited {rc_of(out, 'loop')}")
    else:
        if lp["drops"]:
            why.append(f"{lp['drops']} drops")
        if lp["ops"].get("pread64", 0) != n:
            why.append(f"{lp['ops'].get('pread64', 0)} preads recorded of {n}")
    k.check("loop", not why, "; ".join(why))

    p = subprocess.run([sys.executable, os.path.join(TOP, "tests/integration/syscalls_reverse.py"),
                        os.path.join(out, "formats"), os.path.join(TOP, "bpf/syscalls.def"),
                        os.path.join(TOP, "bpf/syscalls.unrecorded")], capture_output=True, text=True)
    k.check("syscalls", p.returncode == 0,
            " ".join(l for l in p.stdout.splitlines() if not l.startswith("ok"))[:400])


def main():
    order = [l.split() for l in read(os.path.join(RES, "order")).splitlines() if l.strip()]
    kernels = [Kernel(name, arch) for name, arch, *_ in order]
    ref = None
    for k in kernels:
        judge(k, ref)
        if ref is None:
            ref = k
    bad = 0
    for k in kernels:
        fails = [c for c, ok in k.checks.items() if not ok]
        bad += bool(fails) or k.loaded is None
        checks = " ".join(f"{c} {'ok' if ok else 'FAIL'}" for c, ok in k.checks.items())
        print(f"{'PASS' if not fails and k.loaded else 'FAIL'}  {k.name:<28} {k.arch:<7} "
              f"loaded {k.loaded or 'no':<6} fallbacks: {','.join(k.fallbacks or []) or 'none'}")
        print(f"      {checks}")
        for w in k.why:
            print(f"      {w}")
    print(f"kernels: {len(kernels) - bad} passed, {bad} failed")
    return 1 if bad else 0


sys.exit(main())
