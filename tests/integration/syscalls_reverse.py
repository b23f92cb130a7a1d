"""tests/integration/syscalls_reverse.py: the kernel's syscalls against
bpf/syscalls.def, the other way round from test_syscalls_tracefs.sh: every
syscall tracepoint that takes an fd or a path is a row of the table or is
listed in bpf/syscalls.unrecorded, with its reason, as not recorded.

    python3 syscalls_reverse.py FORMATS_DIR DEF UNRECORDED

FORMATS_DIR is laid out as tracefs's events/syscalls: a directory
sys_enter_NAME with a `format` file for each syscall. A tracepoint is
covered if NAME is the event of a row of DEF (the row's name, or the event
RIOT_SYSCALL_EVENT gives it: newstat for stat) or a name listed in
UNRECORDED. Prints `NEW: NAME (args: ...)` for each one that takes an fd or
a path and is not covered, `CONTRADICTION: NAME ...` for each name listed in
UNRECORDED that is a row of DEF, and exits 1 if there is any; otherwise
prints a summary line starting `ok:`. Names of UNRECORDED that this kernel
has no tracepoint for are fine (other kernels, other architectures).

UNRECORDED: one syscall a line, `NAME REASON`: NAME its tracepoint name
(sys_enter_NAME), then blanks, then a one-line reason; `#` starts a
comment.

The rule: an argument is a field of the format after __syscall_nr (fields
whose name starts with `__` are the kernel's own, not arguments). A
syscall takes an fd or a path if one of its arguments is

  an fd: an argument of no pointer type named `fildes` or `mqdes` (a
    POSIX message queue descriptor is an fd on Linux), or whose name has a
    `_`-separated part ending in `fd` or starting with `fd`: fd, dfd, ufd,
    epfd, pidfd, oldfd, newfd, olddfd, newdfd, fd_in, fd_out, fdin, fdout,
    in_fd, out_fd, from_dfd, to_dfd, fs_fd, group_fd, fanotify_fd,
    ruleset_fd, mountdirfd, max_fd, kernel_fd, initrd_fd (but not nfds, a
    count). fds inside structures or arrays (poll's pollfd, select's
    fd_set, io_submit's iocbs, SCM_RIGHTS) are not arguments and not seen;
  a path: an argument of type `char *` or `const char *` (filename,
    pathname, path, oldname, newname, from_pathname, to_pathname,
    specialfile, special, new_root, put_old, dev_name, dir_name, library,
    name ...), except the strings that are known not to be paths:
    NOT_PATHS below, and `name` in the xattr calls (the attribute's name)
    and in sethostname and setdomainname (a host name). A string argument
    of a name never seen before counts as a path, so a new one is looked
    at rather than passed over.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import syscalls_def  # noqa: E402

# char * / const char * arguments that are not paths.
NOT_PATHS = {
    "buf": "data read or written (read, write, getcwd, syslog ...)",
    "ubuf": "random bytes (getrandom)",
    "list": "list of xattr names returned",
    "optval": "socket option value",
    "u_msg_ptr": "message of a POSIX message queue",
    "shmaddr": "address of a System V shared memory segment",
    "type": "filesystem type (mount)",
    "_fs_name": "filesystem type (fsopen)",
    "_key": "parameter name (fsconfig)",
    "_type": "key type (add_key, request_key)",
    "_description": "key description (add_key, request_key)",
    "_callout_info": "key callout data (request_key)",
    "u_name": "POSIX message queue name, looked up in the mqueue fs, not a path",
    "uname": "label of a memfd (memfd_create)",
    "uargs": "module parameters (init_module, finit_module)",
    "name_user": "module name (delete_module)",
    "cmdline_ptr": "kernel command line (kexec_file_load)",
}
NAME_NOT_PATH = {"sethostname", "setdomainname"}

FIELD = re.compile(r"^\s*field:(.*?);\s*offset:")
FD_NAMES = {"fildes", "mqdes"}


def args_of(fmt):
    """The (type, name) of each argument of a sys_enter format file."""
    out, seen_nr = [], False
    for line in fmt.splitlines():
        m = FIELD.match(line)
        if not m:
            continue
        decl = m.group(1).strip()
        d = re.match(r"^(.*?)\s*\b(\w+)\s*(\[[^\]]*\])?$", decl)
        if not d:
            continue
        typ, name = " ".join(d.group(1).split()), d.group(2)
        if name == "__syscall_nr":
            seen_nr = True
            continue
        if not seen_nr or name.startswith("__") or "__data_loc" in typ:
            continue
        out.append((typ, name))
    return out


def is_fd(syscall, typ, name):
    if "*" in typ or "[" in typ:
        return False
    if name in FD_NAMES:
        return True
    return any(p.endswith("fd") or p.startswith("fd") for p in name.split("_") if p)


def is_path(syscall, typ, name):
    if typ not in ("char *", "const char *"):
        return False
    if name in NOT_PATHS:
        return False
    if name == "name" and ("xattr" in syscall or syscall in NAME_NOT_PATH):
        return False
    return True


def takes_fd_or_path(syscall, args):
    return [f"{t} {n}" for t, n in args if is_fd(syscall, t, n) or is_path(syscall, t, n)]


def read_unrecorded(path):
    """{name: reason}; errors for malformed lines."""
    listed, errors = {}, []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            name = parts[0]
            reason = parts[1].strip() if len(parts) > 1 else ""
            if not re.fullmatch(r"\w+", name):
                errors.append(f"{path}:{i}: `{name}` is not a syscall name")
            elif not reason:
                errors.append(f"{path}:{i}: {name} has no reason")
            elif name in listed:
                errors.append(f"{path}:{i}: {name} is listed twice")
            else:
                listed[name] = reason
    return listed, errors


OTHER_ARCH_EVENTS = {"fadvise64_64": "fadvise64"}


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: syscalls_reverse.py FORMATS_DIR DEF UNRECORDED")
    fdir, defpath, unrec = argv[1:]
    rows = syscalls_def.rows(defpath)
    if not rows:
        sys.exit(f"no rows read from {defpath}")
    recorded = {}  # tracepoint name -> row name
    for name, _nr, event in rows:
        recorded[event] = name
    # Rows whose syscall another architecture's kernel names otherwise
    # (the asm-generic table of arm64: __NR_fadvise64 is sys_fadvise64_64,
    # which riot records by its number there).
    for event, name in OTHER_ARCH_EVENTS.items():
        if name in recorded.values():
            recorded.setdefault(event, name)
    listed, errors = read_unrecorded(unrec)

    for name in sorted(listed):
        if name in recorded:
            errors.append(f"CONTRADICTION: {name} is listed in {unrec} as not recorded, "
                          f"but is row {recorded[name]} of {defpath}")
        elif name in {n for n, _nr, _e in rows}:
            errors.append(f"CONTRADICTION: {name} is listed in {unrec} as not recorded, "
                          f"but is a row of {defpath}")

    try:
        entries = sorted(os.listdir(fdir))
    except OSError as e:
        sys.exit(f"cannot list {fdir}: {e}")
    n = n_rec = n_listed = 0
    new = []
    for d in entries:
        if not d.startswith("sys_enter_"):
            continue
        sc = d[len("sys_enter_"):]
        fpath = os.path.join(fdir, d, "format")
        try:
            with open(fpath) as f:
                fmt = f.read()
        except OSError as e:
            sys.exit(f"cannot read {fpath}: {e}")
        n += 1
        args = args_of(fmt)
        if not takes_fd_or_path(sc, args):
            continue
        if sc in recorded:
            n_rec += 1
        elif sc in listed:
            n_listed += 1
        else:
            new.append(f"NEW: {sc} (args: {', '.join(f'{t} {a}' for t, a in args)})")
    if n == 0:
        sys.exit(f"no sys_enter_*/format in {fdir}")

    for line in new:
        print(line)
    for line in errors:
        print(line)
    if new:
        print(f"FAIL: new syscalls taking an fd or a path: {len(new)}; make each a row of "
              f"{defpath} or list it in {unrec} with the reason it is not recorded")
    if new or errors:
        return 1
    print(f"ok: {n_rec + n_listed} syscall tracepoints take an fd or a path: "
          f"{n_rec} recorded, {n_listed} listed as not recorded ({n} syscall tracepoints)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
