#!/usr/bin/env python3
"""scripts/layers.py: riot's include graph, folder by folder and file by file.

    python3 scripts/layers.py [TOP]           cycles, exit 1 if any
    python3 scripts/layers.py [TOP] --graph   the folder edges, one a line
    python3 scripts/layers.py [TOP] --cycles  the module cycles inside
                                              each folder, listed or not

A folder depends on another when one of its files includes one of the
other's headers. Includes of the project's headers are spelled from the top
of the tree ("formats/log.h"), so a grep finds every user of a header. Code
flows one way, down the layers of LAYERS: a folder includes only the
headers of folders in layers below its own, never of one beside it or
above (so the folder graph has no cycle), and no header may reach itself
through other headers.

Inside a folder, a module is a .c file with its same-named .h (a folder's
FOLDER_int.h and FOLDER.h are module FOLDER's, which may be headers
alone). Module A depends on module B of its folder when A's .c or .h
includes B's header or names a function B defines (its .c's functions
that are not static, its header's inline ones) inside a body or an
initializer: a scan of names, not of scopes, so a header declaring a
function is no use of it. Two modules that depend on each other, through others or not,
are one change: a cycle must be in ALLOWED_CYCLES with the reason it
stays, and every cycle listed there must still be one, so the list is
true.
"""
import os
import re
import sys

DIRS = ["lib", "bpf", "formats", "model", "convert", "anon", "capture", "top", "replay", "report", "inspect",
        "tests/unit", "tests/bin", "tests/fuzz", "benchmarks"]
# Lowest first; folders of one layer are independent of each other.
LAYERS = [["lib"], ["bpf"], ["formats"], ["model"], ["convert", "anon", "report"],
          ["capture", "inspect"], ["top"], ["replay"], ["."], ["tests", "benchmarks"]]
RANK = {d: i for i, layer in enumerate(LAYERS) for d in layer}
# The module cycles that stay (each the set of a strongly connected
# component, as --cycles prints it), and why.
# Only this tree's: another TOP (a test's) is checked with none allowed.
ALLOWED_CYCLES = [
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(top):
    out = ["riot.c"] if os.path.exists(os.path.join(top, "riot.c")) else []
    for d in DIRS:
        p = os.path.join(top, d)
        if os.path.isdir(p):
            out += sorted(os.path.join(d, f) for f in os.listdir(p)
                          if f.endswith((".c", ".h", ".def")))
    return out


def resolve(top, src, inc):
    """The project file an include names, or None (a generated or system
    header: build/*.skel.h, vmlinux.h's relatives)."""
    for cand in (os.path.normpath(os.path.join(os.path.dirname(src), inc)), os.path.normpath(inc)):
        if os.path.isfile(os.path.join(top, cand)):
            return cand
    return None


def spelled(top, src, inc):
    """How an include of a project header should be spelled: from the top
    of the tree ("formats/log.h"), whatever folder includes it. BPF
    programs are compiled alone and include their folder's headers by
    name."""
    if src.startswith("bpf/"):
        return inc
    dst = resolve(top, src, inc)
    return dst if dst else inc


def folder(path):
    return path.split("/")[0] if "/" in path else "."


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# A definition: a name and its parameters closed at the end of a line, its
# body's brace opening the next line (the kernel's style).
DEFINITION = re.compile(r'^([^\s#{}][^;{}()]*?)\b([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*\n\{', re.M)
NAME = re.compile(r'\b[A-Za-z_]\w*\b')


def module(path):
    """The module a file belongs to ("replay/plan"), or None."""
    d, f = os.path.split(path)
    stem, ext = os.path.splitext(f)
    if ext not in (".c", ".h") or f.endswith(".bpf.c") or f.endswith(".skel.h"):
        return None
    if d and stem == os.path.basename(d) + "_int":
        stem = os.path.basename(d)
    return f"{d}/{stem}" if d else stem


def used(body):
    """The names inside braces (function bodies, initializers): a
    prototype or a definition's own name uses nothing."""
    body = re.sub(r"\b(?:struct|union|enum)\s+\w+", " ", body)
    out, depth, start = set(), 0, 0
    for m in re.finditer(r"[{}]", body):
        if depth > 0:
            out |= set(NAME.findall(body, start, m.start()))
        depth += 1 if m.group() == "{" else -1
        start = m.end()
    return out


def module_cycles(top, srcs):
    """The strongly connected components of more than one module inside a
    folder: [(modules, [why, ...])]."""
    text, raw, defs = {}, {}, {}
    for src in srcs:
        m = module(src)
        if not m:
            continue
        raw[src] = open(os.path.join(top, src), errors="replace").read()
        text[src] = COMMENT.sub(" ", raw[src])
        for head, name in DEFINITION.findall(text[src]):
            if src.endswith(".h") or not re.search(r'\bstatic\b', head):
                defs.setdefault((folder(src), name), set()).add(m)
    edges, why = {}, {}

    def edge(a, b, reason):
        if a != b:
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), reason)

    for src, body in text.items():
        a = module(src)
        for inc in INCLUDE.findall(raw[src]):
            dst = resolve(top, src, inc)
            if dst and module(dst) and folder(dst) == folder(src):
                edge(a, module(dst), f"{src} includes {dst}")
        own = {n for _, n in DEFINITION.findall(body)}
        for name in sorted(used(body) - own):
            for b in sorted(defs.get((folder(src), name), ())):
                edge(a, b, f"{src} names {name}()")
    out = []
    for comp in sccs(set(edges) | {b for v in edges.values() for b in v}, edges):
        if len(comp) > 1:
            out.append((comp, [f"{a} -> {b}: {why[(a, b)]}" for a in comp for b in comp
                               if (a, b) in why]))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = args[0] if args else "."
    fedges, dedges, why, spelling = {}, {}, {}, []
    srcs = files(top)
    for src in srcs:
        text = open(os.path.join(top, src), errors="replace").read()
        for inc in INCLUDE.findall(text):
            dst = resolve(top, src, inc)
            if not dst:
                continue
            want = spelled(top, src, inc)
            if want != inc:
                spelling.append(f'include spelled "{inc}" in {src}: write "{want}"')
            if src.endswith((".h", ".def")):
                fedges.setdefault(src, set()).add(dst)
            a, b = folder(src), folder(dst)
            if a != b:
                dedges.setdefault(a, set()).add(b)
                why.setdefault((a, b), f"{src} includes {dst}")
    if "--graph" in sys.argv:
        for a in sorted(dedges):
            for b in sorted(dedges[a]):
                print(f"{a} -> {b}")
        return 0
    cycles = module_cycles(top, srcs)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    own = os.path.realpath(top) == os.path.realpath(here)
    allowed = {tuple(sorted(c)): r for c, r in ALLOWED_CYCLES} if own else {}
    if "--cycles" in sys.argv:
        for comp, links in cycles:
            r = allowed.get(tuple(comp))
            print("module cycle: " + " <-> ".join(comp) + (f" (allowed: {r})" if r else ""))
            for line in links:
                print("  " + line)
        return 0
    bad = len(spelling)
    for line in spelling:
        print(line)
    for a in sorted(dedges):
        for b in sorted(dedges[a]):
            if a in RANK and b in RANK and RANK[b] >= RANK[a]:
                bad += 1
                print(f"against the layers: {a} may not include {b} ({why[(a, b)]})")
    for comp in sccs(set(dedges) | {b for v in dedges.values() for b in v}, dedges):
        if len(comp) > 1:
            bad += 1
            links = [why[(a, b)] for a in comp for b in comp if (a, b) in why]
            print("folder cycle: " + " <-> ".join(comp) + " (" + "; ".join(links) + ")")
    for comp in sccs(set(fedges) | {b for v in fedges.values() for b in v}, fedges):
        if len(comp) > 1 or (comp[0] in fedges.get(comp[0], ())):
            bad += 1
            print("header cycle: " + " -> ".join(comp))
    found = {tuple(comp) for comp, _ in cycles}
    for comp, links in cycles:
        if tuple(comp) not in allowed:
            bad += 1
            print("module cycle: " + " <-> ".join(comp) + " (" + "; ".join(links) + ")")
    for comp in sorted(allowed):
        if comp not in found:
            bad += 1
            print("allowed cycle no longer found, take it off ALLOWED_CYCLES: " + " <-> ".join(comp))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
