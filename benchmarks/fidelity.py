#!/usr/bin/env python3
"""benchmarks/fidelity.py: the tables of benchmarks/fidelity.sh.

usage: fidelity.py --default ENGINE --engines "E1 E2" --verdicts 0|1
                   --out BENCH_OUT PROG=REPORT.db...

Each REPORT.db is one program's riot report database, whose runs are
labelled cap-I (captures), same-E-I (replays onto the capture's
filesystem), ext4-E-I and xfs-E-I (replays onto loop mounts). Per class
the figures are the total time spent in syscalls and the p50 of the
class's busiest call, from the reports' per-syscall rows; "elapsed" is
the run's duration. Medians over the runs of a group; spread = (max -
min) / median.

A class is compared over the calls every run made and timed: a call the
capture timed and every replay issued. Calls a replay does not issue
(fcntl that only sets fd state, execve, mmap) and those a capture cannot
time (a page fault has no duration) would make a class of the capture
and one of a replay sums of different calls; they are listed, with
their captured count and time, and left out of every run alike.

Prints the self-replay table, the verdict table and the goals; appends
"name value" lines to BENCH_OUT.
"""
import argparse
import sqlite3
import statistics

CLASSES = ["data_read", "data_write", "sync", "metadata"]
# a syscall's class in the report (syscalls.class) -> the class compared
CLASS_OF = {"data_read": "data_read", "data_write": "data_write", "data_copy": "data_write",
            "sync": "sync", "open": "metadata", "fd": "metadata", "stat": "metadata",
            "dir": "metadata", "namespace": "metadata", "cwd": "metadata", "attr": "metadata",
            "xattr": "metadata"}
FIDELITY = 0.25     # each class within +-25 % of the capture
ENGINES_AGREE = 1.15    # engines within 15 % of each other


def fmt_ns(v):
    if v is None:
        return "-"
    if v >= 1e9:
        return "%.2f s" % (v / 1e9)
    if v >= 1e6:
        return "%.1f ms" % (v / 1e6)
    if v >= 1e3:
        return "%.1f us" % (v / 1e3)
    return "%d ns" % v


def fmt_x(v):
    return "-" if v is None else "%.2fx" % v


def fmt_pct(v):
    return "-" if v is None else "%.0f%%" % (100 * v)


class Group:
    """The runs of one label prefix: per metric, the values of each run."""

    def __init__(self):
        self.vals = {}

    def add(self, key, v):
        self.vals.setdefault(key, []).append(v)

    def median(self, key):
        v = self.vals.get(key)
        return statistics.median(v) if v else None

    def spread(self, key):
        v = self.vals.get(key)
        m = statistics.median(v) if v else 0
        return (max(v) - min(v)) / m if v and m else None


def load(path):
    """Groups of one program's runs, and the calls left out of its classes."""
    db = sqlite3.connect(path)
    runs = db.execute("SELECT id, label, duration_ns FROM runs ORDER BY id").fetchall()
    rows = {}   # run id -> {syscall: (class, count, lat_sum_ns, lat_p50_ns)}
    for rid, sysname, cls, count, lat_sum, p50 in db.execute(
            "SELECT run_id, sys, class, count, lat_sum_ns, lat_p50_ns FROM syscalls"):
        if cls in CLASS_OF and count:
            rows.setdefault(rid, {})[sysname] = (CLASS_OF[cls], count, lat_sum or 0, p50)
    db.close()
    label_of = {rid: label.rsplit("-", 1)[0] for rid, label, _ in runs}
    caps = [rid for rid in label_of if label_of[rid] == "cap"]
    replays = [rid for rid in label_of if label_of[rid] != "cap"]
    # the calls every run made, the capture timing them
    common = None
    for rid in caps:
        timed = {k for k, v in rows.get(rid, {}).items() if v[2] > 0}
        common = timed if common is None else common & timed
    for rid in replays:
        common = (common or set()) & set(rows.get(rid, {}))
    common = common or set()
    left_out = {}
    for rid in caps:
        for k, v in rows.get(rid, {}).items():
            if k not in common:
                n, t = left_out.get(k, (0, 0))
                left_out[k] = (max(n, v[1]), max(t, v[2]))
    groups = {}
    for rid, label, duration in runs:
        g = groups.setdefault(label_of[rid], Group())
        g.add("elapsed", duration)
        mine = rows.get(rid, {})
        for c in CLASSES:
            calls = [(v[1], v[2], v[3]) for k, v in mine.items() if k in common and v[0] == c]
            if not calls:
                continue
            g.add(c + ".ops", sum(n for n, _, _ in calls))
            g.add(c + ".total", sum(t for _, t, _ in calls))
            g.add(c + ".p50", max(calls)[2])     # the busiest call's p50
    return groups, left_out


def ratio(a, b):
    return a / b if a is not None and b else None


def within(r, tol):
    return r is not None and 1 - tol <= r <= 1 + tol


def engines_close(vals):
    vals = [v for v in vals if v is not None]
    if len(vals) < 2:
        return None
    lo, hi = min(vals), max(vals)
    return hi / lo if lo else None


def self_replay(progs, engines, default, emit):
    print("\nself-replay fidelity: replay onto the capture's filesystem, warm cache, speed 0;")
    print("median of the runs, ratio to the capture's median, spread (max-min)/median in ()")
    head = "%-7s %-10s %22s" % ("program", "class", "capture total / p50")
    for e in engines:
        head += " %30s" % (e + ": total, p50 ratio")
    head += " %9s %7s %7s" % ("engines", "+-25%", "15%")
    print(head)
    fid_met = fid_all = agree_met = agree_all = 0
    for p, (groups, left_out) in progs:
        cap = groups.get("cap")
        if not cap:
            continue
        if left_out:
            print("%-7s not compared (not issued by every replay, or not timed by the capture): %s" % (
                p, ", ".join("%s (%d, %s)" % (k, n, fmt_ns(t))
                             for k, (n, t) in sorted(left_out.items(), key=lambda kv: -kv[1][1]))))
        reps = {e: groups.get("same-" + e) for e in engines}
        # elapsed
        row = "%-7s %-10s %22s" % (p, "elapsed", "%s (%s)" % (fmt_ns(cap.median("elapsed")),
                                                             fmt_pct(cap.spread("elapsed"))))
        el = []
        for e in engines:
            g = reps[e]
            m = g.median("elapsed") if g else None
            el.append(m)
            r = ratio(m, cap.median("elapsed"))
            row += " %30s" % ("%s %s (%s)" % (fmt_ns(m), fmt_x(r), fmt_pct(g.spread("elapsed") if g else None)))
            emit("fidelity_%s_elapsed_%s_ratio" % (p, e), r)
        close = engines_close(el)
        ok = close is not None and close <= ENGINES_AGREE
        agree_all += 1
        agree_met += ok
        row += " %9s %7s %7s" % (fmt_x(close), "", "met" if ok else "NOT met")
        emit("fidelity_%s_engines_elapsed_max_over_min" % p, close)
        print(row)
        for c in CLASSES:
            if not cap.median(c + ".ops"):
                continue
            ct, cp = cap.median(c + ".total"), cap.median(c + ".p50")
            row = "%-7s %-10s %22s" % ("", c, "%s / %s (%s)" % (fmt_ns(ct), fmt_ns(cp),
                                                                fmt_pct(cap.spread(c + ".total"))))
            totals, p50s, fid_ok = [], [], None
            for e in engines:
                g = reps[e]
                t = g.median(c + ".total") if g else None
                q = g.median(c + ".p50") if g else None
                totals.append(t)
                p50s.append(q)
                rt, rq = ratio(t, ct), ratio(q, cp)
                row += " %30s" % ("%s %s (%s), %s" % (fmt_ns(t), fmt_x(rt),
                                                      fmt_pct(g.spread(c + ".total") if g else None), fmt_x(rq)))
                emit("fidelity_%s_%s_%s_total_ratio" % (p, c, e), rt)
                emit("fidelity_%s_%s_%s_p50_ratio" % (p, c, e), rq)
                if e == default:
                    fid_ok = within(rt, FIDELITY) and within(rq, FIDELITY)
            ct_close, cq_close = engines_close(totals), engines_close(p50s)
            ok = (ct_close is not None and ct_close <= ENGINES_AGREE and
                  cq_close is not None and cq_close <= ENGINES_AGREE)
            agree_all += 1
            agree_met += ok
            fid_all += 1
            fid_met += bool(fid_ok)
            row += " %9s %7s %7s" % (fmt_x(ct_close), "met" if fid_ok else "NOT met", "met" if ok else "NOT met")
            emit("fidelity_%s_%s_engines_total_max_over_min" % (p, c), ct_close)
            print(row)
    print("(engines: the largest over the smallest engine's median, total time; the 15 % check takes p50 too;")
    print(" a class's p50 is its busiest call's, over the calls every run made)")
    return fid_met, fid_all, agree_met, agree_all


def verdicts(progs, engines, emit):
    print("\nverdicts: ext4 against xfs (fresh loop mounts), time in syscalls per class, median of the runs;")
    print("xfs/ext4 ratio, the engine's spread on the two filesystems (largest), its winner; a case is")
    print("decided when an engine sees a difference larger than its spread, and then the engines must agree")
    head = "%-7s %-10s" % ("program", "class")
    for e in engines:
        head += " %28s" % (e + ": xfs/ext4 spread win")
    head += " %8s" % "agree"
    print(head)
    decided = agreed = 0
    for p, (groups, _) in progs:
        for c in ["elapsed"] + CLASSES:
            key = c if c == "elapsed" else c + ".total"
            row = "%-7s %-10s" % (p if c == "elapsed" else "", c)
            winners, any_decided, any_value = [], False, False
            for e in engines:
                g4, gx = groups.get("ext4-" + e), groups.get("xfs-" + e)
                v4 = g4.median(key) if g4 else None
                vx = gx.median(key) if gx else None
                if c != "elapsed" and g4 and not g4.median(c + ".ops"):
                    v4 = vx = None
                if v4 is None or vx is None or not v4 or not vx:
                    row += " %28s" % "-"
                    winners.append(None)
                    continue
                any_value = True
                r = vx / v4
                sp = max(s for s in (g4.spread(key), gx.spread(key), 0) if s is not None)
                diff = abs(vx - v4) / min(vx, v4)
                w = "ext4" if v4 < vx else "xfs"
                dec = diff > sp
                any_decided |= dec
                winners.append(w)
                row += " %28s" % ("%.2fx %s %s%s" % (r, fmt_pct(sp), w, "" if dec else "?"))
                emit("verdict_%s_%s_%s_xfs_over_ext4" % (p, c, e), r)
                emit("verdict_%s_%s_%s_spread" % (p, c, e), sp)
            if not any_value:
                continue
            if any_decided and None not in winners:
                ok = len(set(winners)) == 1
                decided += 1
                agreed += ok
                row += " %8s" % ("yes" if ok else "FLIP")
                emit("verdict_%s_%s_agree" % (p, c), 1 if ok else 0)
            else:
                row += " %8s" % "-"
            print(row)
    print("(?: the difference is within that engine's spread; -: no engine decides)")
    return agreed, decided


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--default", required=True)
    ap.add_argument("--engines", required=True)
    ap.add_argument("--verdicts", type=int, default=1)
    ap.add_argument("--out", default="/dev/null")
    ap.add_argument("progs", nargs="*")
    a = ap.parse_args()
    engines = a.engines.split()
    progs = []
    for arg in a.progs:
        name, path = arg.split("=", 1)
        progs.append((name, load(path)))
    out = open(a.out, "a")

    def emit(name, v):
        if v is not None:
            out.write("%s %.4f\n" % (name, v))

    fm, fa, am, aa = self_replay(progs, engines, a.default, emit)
    vm = vd = 0
    if a.verdicts:
        vm, vd = verdicts(progs, engines, emit)
    print("\ngoals")
    print("  %-60s %s" % ("each class within +-25 %% of the capture (%s engine)" % a.default,
                          "%s (%d of %d)" % ("met" if fa and fm == fa else "NOT met", fm, fa)))
    print("  %-60s %s" % ("engines within 15 % of each other (elapsed, per class)",
                          "%s (%d of %d)" % ("met" if aa and am == aa else "NOT met", am, aa)))
    if a.verdicts:
        print("  %-60s %s" % ("engines name the same winner where one decides",
                              "%s (%d of %d)" % ("met" if vm == vd else "NOT met", vm, vd)))
        emit("verdict_goal_agree", 1 if vm == vd else 0)
        emit("verdict_decided_cases", vd)
        emit("verdict_agreed_cases", vm)
    emit("fidelity_goal_classes_within_25pct", 1 if fa and fm == fa else 0)
    emit("fidelity_classes_within_25pct", fm)
    emit("fidelity_classes", fa)
    emit("fidelity_goal_engines_within_15pct", 1 if aa and am == aa else 0)
    emit("fidelity_engine_checks_within_15pct", am)
    emit("fidelity_engine_checks", aa)


if __name__ == "__main__":
    main()
