#!/usr/bin/env python3
"""scripts/largest.py: riot's largest source files and functions, by lines.

    python3 scripts/largest.py [TOP] [-n N]

The N (default 10) largest .c, .h and .def files of the tree (the
generated bpf/ARCH/vmlinux.h and build/ left out), then the N largest
functions: a definition's lines from its name to its closing brace, as the
kernel's style writes them (the body's braces alone on their lines in
column 0).
"""
import os
import re
import sys

SKIP_DIRS = {"build", ".git"}
DEFINITION = re.compile(r"^[A-Za-z_][^;{}()=]*?\b([A-Za-z_]\w*)\s*\(")


def sources(top):
    out = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for n in sorted(names):
            path = os.path.relpath(os.path.join(root, n), top)
            if n.endswith((".c", ".h", ".def")) and not n == "vmlinux.h" and not n.endswith(".skel.h"):
                out.append(path)
    return out


def functions(path, lines):
    """(lines, name, path:line) of each function defined in the file."""
    out, start, name = [], None, None
    for i, line in enumerate(lines):
        m = DEFINITION.match(line)
        if m and start is None and not line.rstrip().endswith(";"):
            start, name = i, m.group(1)
        elif start is not None and line.startswith("{") and i > start:
            pass
        elif start is not None and line.startswith("}"):
            if any(lines[j].startswith("{") for j in range(start, i)):
                out.append((i - start + 1, name, f"{path}:{start + 1}"))
            start = None
        elif start is not None and (line.rstrip().endswith(";") and not line.startswith(("\t", " "))):
            start = None
    return out


def main():
    args = sys.argv[1:]
    n = 10
    if "-n" in args:
        i = args.index("-n")
        n = int(args[i + 1])
        del args[i:i + 2]
    top = args[0] if args else "."
    files, funcs = [], []
    for path in sources(top):
        with open(os.path.join(top, path), errors="replace") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        files.append((len(lines), path))
        funcs += functions(path, lines)
    print("largest files (lines):")
    for count, path in sorted(files, key=lambda x: (-x[0], x[1]))[:n]:
        print(f"  {count:6d}  {path}")
    print("largest functions (lines):")
    for count, name, where in sorted(funcs, key=lambda x: (-x[0], x[2]))[:n]:
        print(f"  {count:6d}  {name}()  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
