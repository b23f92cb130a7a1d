"""tests/integration/syscalls_def.py: the rows of bpf/syscalls.def for the
shell tests.

    python3 syscalls_def.py DEF rows     name nr tracepoint-event, one a line
"""
import re
import sys


def rows(path):
    text = open(path).read()
    events = dict(re.findall(r"^RIOT_SYSCALL_EVENT\((\w+),\s*(\w+)\)", text, re.M))
    out = []
    for name, nr in re.findall(r"^RIOT_SYSCALL\((\w+),\s*(\d+),", text, re.M):
        out.append((name, int(nr), events.get(name, name)))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] != "rows":
        sys.exit("usage: syscalls_def.py DEF rows")
    for name, nr, event in rows(sys.argv[1]):
        print(name, nr, event)
