"""tests/integration/heavy_check.py: checks what a capture of the workload's
`heavy` scenario holds, however much of it was written.

    python3 heavy_check.py DUMP_JSONL INFO_JSON WPID HEAVY_PATH

heavy opens HEAVY_PATH (fd 4), then issues pread64 number i with count
1 + (i*7919) % 4096 and offset (i*104729) % 2^20. Every recorded pread64
must be the next one of that series; a gap is allowed only where the log
has drop records covering it. The info totals must agree with the dump.
"""
import collections
import json
import sys


def main():
    dump, info_path, wpid, heavy = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    recs = [json.loads(l) for l in open(dump) if l.strip()]
    info = json.load(open(info_path))
    sysc = sorted((r for r in recs if r.get("type") == "syscall"), key=lambda r: r["t"])
    procs = [r for r in recs if r.get("type") == "proc"]
    dropped = sum(r.get("count", 0) for r in recs if r.get("type") == "drop")
    fails = []
    if info.get("events") != len(sysc) + len(procs):
        fails.append("info events %r, dump has %d syscall + %d proc records"
                     % (info.get("events"), len(sysc), len(procs)))
    ops = collections.Counter(r["op"] for r in sysc)
    if dict(info.get("ops") or {}) != dict(ops):
        fails.append("info ops %r, dump %r" % (info.get("ops"), dict(ops)))
    if info.get("drops") != dropped:
        fails.append("info drops %r, drop records sum to %d" % (info.get("drops"), dropped))
    others = [r for r in sysc if r.get("pid") != wpid]
    if others:
        fails.append("%d records of other processes, first %s" % (len(others), others[0]))
    if not sysc or sysc[0]["op"] != "openat" or sysc[0].get("path") != heavy or sysc[0].get("ret") != 4:
        fails.append("first record is not the openat of %s returning 4: %s"
                     % (heavy, sysc[0] if sysc else None))
    preads = [r for r in sysc if r["op"] == "pread64"]
    if set(ops) - {"openat", "pread64", "close"}:
        fails.append("unexpected ops: %r" % dict(ops))
    if len(preads) < 1000:
        fails.append("only %d pread64 records" % len(preads))
    i = 0
    skipped = 0
    for n, r in enumerate(preads):
        # The next matching i at or after the expected one.
        j = i
        while j - i <= dropped - skipped:
            if r.get("count") == 1 + (j * 7919) % 4096 and r.get("off") == (j * 104729) % (1 << 20):
                break
            j += 1
        else:
            fails.append("pread64 record %d (%s) is not call %d of the series (drops %d)"
                         % (n, json.dumps(r, sort_keys=True), i, dropped))
            break
        skipped += j - i
        want_ret = min(r["count"], (1 << 20) - r["off"])
        if r.get("fd") != 4 or r.get("path") != heavy or r.get("ret") != want_ret:
            fails.append("pread64 record %d: %s" % (n, json.dumps(r, sort_keys=True)))
            break
        i = j + 1
    for f in fails:
        print("FAIL: " + f)
    if fails:
        sys.exit(1)
    print("ok: %d pread64 in series order, %d dropped" % (len(preads), dropped))


if __name__ == "__main__":
    main()
