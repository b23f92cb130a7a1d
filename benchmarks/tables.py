#!/usr/bin/env python3
"""tables.py bench-results.json [--note TEXT] [--update FILE]: the figures of a
`make bench` run (bench-results.json: one flat object of named numbers,
written by benchmarks/run.sh) as markdown tables.

A few figures form grids (a row per syscall loop, a column per tool);
every other figure goes in its benchmark's table, named by the first word
of its name (capture_..., replay_..., report_...), with the unit its
name spells (unit_of). Prints the
tables, after the --note line when given; with --update, writes them
into FILE between the lines BEGIN and END below, leaving the rest of
FILE as it is."""
import argparse
import json
import re
import sys

BEGIN = "<!-- bench-results: made by benchmarks/tables.py from bench-results.json; make bench rewrites it -->"
END = "<!-- end of bench-results -->"

# (title, pattern with groups row and col, column order); a figure that
# matches goes in that grid, not in its benchmark's table
GRIDS = [
    ("Capture: ns per syscall of a loop untraced, and ns added by riot and its peers (peers.sh)",
     r"peers_capture_(?P<row>[a-z]+)_(?P<col>untraced|riot|bpftrace|perf|strace)(?:_added)?_ns",
     ["untraced", "riot", "bpftrace", "perf", "strace"]),
    ("Capture: ns per syscall of a loop, untraced and added (capture.sh)",
     r"capture_(?P<row>[a-z]+)_(?P<col>untraced|floor_added|clock_floor_added|riot_added)_ns",
     ["untraced", "floor_added", "clock_floor_added", "riot_added"]),
]

UNITS = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s", "pct": "%", "bytes": "bytes",
         "kib": "KiB", "mib": "MiB", "iops": "IOPS", "events": "events", "ops": "ops"}

def number(v):
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.1f}"

def unit_of(name):
    """The unit a figure's name spells: its last unit word (report_rss_kib_big:
    KiB), or X/Y around a "per" (events_per_s: events/s, ns_per_request:
    ns/request); empty for a ratio or a count."""
    words = name.split("_")
    if "per" in words:
        i = words.index("per")
        before = words[i - 1] if i > 0 else ""
        after = " ".join(UNITS.get(w, w) for w in words[i + 1:])
        return f"{UNITS.get(before, before)}/{after}"
    units = [UNITS[w] for w in words[1:] if w in UNITS]
    return units[-1] if units else ""

def render(figures):
    out = []
    left = dict(figures)
    for title, pattern, cols in GRIDS:
        rows = {}
        for name in sorted(figures):
            m = re.fullmatch(pattern, name)
            if m:
                rows.setdefault(m["row"], {})[m["col"]] = figures[name]
                del left[name]
        if not rows:
            continue
        out += [f"### {title}", "", "| loop | " + " | ".join(cols) + " |",
                "|---|" + "---:|" * len(cols)]
        for row in sorted(rows):
            out.append(f"| {row} | " + " | ".join(
                number(rows[row][c]) if c in rows[row] else "n/a" for c in cols) + " |")
        out.append("")
    groups = {}
    for name in sorted(left):
        groups.setdefault(name.split("_", 1)[0], []).append(name)
    for group in sorted(groups):
        out += [f"### {group}", "", "| figure | value | unit |", "|---|---:|---|"]
        for name in groups[group]:
            out.append(f"| {name} | {number(left[name])} | {unit_of(name)} |")
        out.append("")
    if not out:
        out = ["(no figures)", ""]
    return "\n".join(out)

def update(path, tables):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"tables.py: {path} has no {BEGIN!r} ... {END!r} lines")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(path, "w").write(head + BEGIN + "\n\n" + tables + "\n" + END + tail)

def main(argv):
    ap = argparse.ArgumentParser(prog="tables.py", description=__doc__.split("\n")[0])
    ap.add_argument("results", help="bench-results.json")
    ap.add_argument("--note", help="a line above the tables: where and when the run was")
    ap.add_argument("--update", metavar="FILE", help="write the tables into FILE between its marker lines")
    a = ap.parse_args(argv[1:])
    figures = json.load(open(a.results))
    if not isinstance(figures, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in figures.values()):
        sys.exit(f"tables.py: {a.results} is not one flat object of numbers")
    tables = render(figures)
    if a.note:
        tables = a.note + "\n\n" + tables
    if a.update:
        update(a.update, tables)
    else:
        sys.stdout.write(tables)

if __name__ == "__main__":
    main(sys.argv)
