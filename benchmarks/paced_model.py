#!/usr/bin/env python3
"""benchmarks/paced_model.py: could a replayer at the floor's cost keep a
trace's schedule at a given speed?

usage: riot dump LOG | paced_model.py FLOOR_NS_PER_OP SPEED...

A model, not a replay: each captured thread's calls are issued in order,
each when it is due (its captured start over SPEED) or when the thread's
call before it has ended, whichever is later. A data call (read, write
and their p and v forms) costs FLOOR_NS_PER_OP scaled by its captured
duration against the mean of the trace's data calls (a long call stays
long); any other call costs its captured duration. FLOOR_NS_PER_OP is
replay_floor --measure's elapsed over its calls: the least a replayer that
times each call spends on one, with no machinery of its own. Prints, per
SPEED, "SPEED p50_ns p99_ns max_ns late_share" of the lateness (late_share:
the share of calls over 1 ms late). A trace whose p99 here is over 50 us
is due faster, somewhere, than any measuring replayer issues it.
"""
import sys

DATA = {"read", "write", "pread64", "pwrite64", "readv", "writev",
        "preadv", "pwritev", "preadv2", "pwritev2"}


def main():
    floor = float(sys.argv[1])
    speeds = [float(s) for s in sys.argv[2:]]
    calls = []
    for line in sys.stdin:
        if not line.startswith("syscall "):
            continue
        f = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "t" not in f or "dur" not in f:
            continue
        calls.append((int(f["t"]), f["tid"], int(f["dur"]), f["op"] in DATA))
    if not calls:
        sys.exit("paced_model: no calls in the dump")
    calls.sort()
    data = [d for _, _, d, is_data in calls if is_data]
    scale = floor / (sum(data) / len(data)) if data and sum(data) else 1.0
    t0 = calls[0][0]
    for speed in speeds:
        done, late = {}, []
        for t, tid, dur, is_data in calls:
            due = (t - t0) / speed
            start = max(due, done.get(tid, 0.0))
            late.append(start - due)
            done[tid] = start + (dur * scale if is_data else dur)
        late.sort()
        n = len(late)
        over = sum(1 for x in late if x > 1e6)
        print("%g %.0f %.0f %.0f %.4f" % (speed, late[n // 2], late[min(n - 1, int(n * 0.99))],
                                          late[-1], over / n))


main()
