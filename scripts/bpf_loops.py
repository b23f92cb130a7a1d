#!/usr/bin/env python3
"""scripts/bpf_loops.py OBJ...: finds, in compiled BPF objects, the loops a
verifier before Linux 6.4 refuses: those closed by a fall-through (an
instruction that is not a jump, or a call, leading into the loop's head).
Such a verifier walks the program depth first and accepts a back edge only
from a jump ("back-edge from insn N to N+1" on Debian 12's 6.1 when clang
entered a rotated loop in its middle). Each function of the object is
walked as the verifier walks its program: non-jumps fall through, calls
return to the next instruction, jumps go where they say (conditional ones
both ways). Prints each such loop and exits 1; exits 0 when there is none.
"""
import re
import subprocess
import sys

GOTO = re.compile(r"(?:if .* )?goto ([+-]\d+)")


def disassemble(obj):
    """{section: {insn index: text}} and [(section, function, first insn)]."""
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    sec, cur, insns, funcs = None, None, {}, []
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            sec, cur = m.group(1), None
            insns[sec] = {}
            continue
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            if not m.group(1).startswith("LBB"):
                cur = m.group(1)
                funcs.append([sec, cur, None])
            continue
        m = re.match(r"^\s+(\d+):\s+(.*)$", line)
        if m and sec:
            i = int(m.group(1))
            insns[sec][i] = m.group(2)
            if cur and funcs and funcs[-1][2] is None:
                funcs[-1][2] = i
    return insns, funcs


def loops_by_fallthrough(code, start):
    idx = sorted(code)
    nxt = dict(zip(idx, idx[1:]))

    def edges(t):
        s = code[t]
        if s.startswith("exit"):
            return []
        m = GOTO.match(s)
        if m:
            to = t + int(m.group(1)) + 1
            return [(to, True)] if s.startswith("goto") else [(nxt.get(t), True), (to, True)]
        return [(nxt.get(t), False)]

    state, found = {start: 1}, []
    stack = [(start, iter(edges(start)))]
    while stack:
        t, it = stack[-1]
        for w, by_jump in it:
            if w is None:
                continue
            if state.get(w) == 1:
                if not by_jump:
                    found.append((t, w))
                continue
            if w not in state:
                state[w] = 1
                stack.append((w, iter(edges(w))))
                break
        else:
            state[t] = 2
            stack.pop()
    return found


def main(objs):
    bad = 0
    for obj in objs:
        insns, funcs = disassemble(obj)
        for sec, name, start in funcs:
            if start is None:
                continue
            for t, w in loops_by_fallthrough(insns[sec], start):
                print(f"{obj}: {name}: a loop closed by a fall-through from insn {t} "
                      f"({insns[sec][t]}) into insn {w}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: bpf_loops.py OBJ...")
    sys.exit(main(sys.argv[1:]))
