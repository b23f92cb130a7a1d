#!/usr/bin/env python3
"""scripts/touches.py: ARCHITECTURE.md's claims of the files a change
touches, checked against the tree.

    python3 scripts/touches.py [TOP]          exit 1 on a false claim
    python3 scripts/touches.py [TOP] --list   each claim and its files

The table that follows the line `<!-- touches -->` in TOP/ARCHITECTURE.md
has a row per kind of change: its first cell the change, its second the
files it touches, each in backquotes (a NAME or KIND in capitals stands
for the new thing's name). Every kind in KINDS has a row; every file a
row names exists (a name with a placeholder matches at least one file,
the ones its kind already has); a row names at most MAX_FILES files. The
row of a new report column belongs to report/'s column layer, which
needs more: it is skipped when it names more.
"""
import glob
import os
import re
import sys

MAX_FILES = 3
# Each kind of change the page must say the files of: a word its row's
# first cell holds.
KINDS = {"syscall": "a new syscall", "engine": "a new replay engine",
         "converter": "a new converter", "report column": "a new report column",
         "chart": "a new chart"}
PLACEHOLDER = re.compile(r"NAME|KIND")


def claims(text):
    """[(change, [files])] of the table after the marker."""
    lines = text.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "<!-- touches -->")
    except StopIteration:
        return None
    out, seen = [], False
    for line in lines[start + 1:]:
        if not line.startswith("|"):
            if seen:
                break
            continue
        seen = True
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0] == "change":
            continue
        files = [f for f in re.findall(r"`([^`]+)`", cells[1]) if "/" in f]
        out.append((cells[0], files))
    return out


def is_report_column(change):
    return "report" in change and ("column" in change or "table" in change)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = args[0] if args else "."
    path = os.path.join(top, "ARCHITECTURE.md")
    rows = claims(open(path, errors="replace").read())
    if rows is None:
        print("ARCHITECTURE.md: no <!-- touches --> table")
        return 1
    if "--list" in sys.argv:
        for change, files in rows:
            print(f"{len(files)}  {change}: " + ", ".join(files))
        return 0
    bad = []
    for kind, words in KINDS.items():
        if not any(words in change or (kind == "report column" and is_report_column(change))
                   for change, _ in rows):
            bad.append(f"no row says what {words} touches")
    for change, files in rows:
        if is_report_column(change) and len(files) > MAX_FILES:
            continue
        if not files:
            bad.append(f"{change}: names no file")
        if len(files) > MAX_FILES and any(w in change for w in KINDS.values()):
            bad.append(f"{change}: {len(files)} files, more than {MAX_FILES}")
        for f in files:
            if PLACEHOLDER.search(f):
                if not glob.glob(os.path.join(top, PLACEHOLDER.sub("*", f))):
                    bad.append(f"{change}: no file is like {f}")
            elif not os.path.exists(os.path.join(top, f)):
                bad.append(f"{change}: {f} does not exist")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
