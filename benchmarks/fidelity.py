#!/usr/bin/env python3
"""benchmarks/fidelity.py: the tables of benchmarks/fidelity.sh.

usage: fidelity.py --default ENGINE --engines "E1 E2" --verdicts 0|1
                   --out BENCH_OUT PROG=COMPARE.json[:TRACED.json]...

Each COMPARE.json is `riot compare DB --json` of one program's database,
whose runs are labelled cap-I (captures), same-E-I (replays onto the
capture's filesystem), ext4-E-I and xfs-E-I (replays onto loop mounts).
Per class the figures are the total time spent in syscalls and the p50,
from riot's reports; "elapsed" is the run's duration. Medians over the
runs of a group; spread = (max - min) / median. riot compare sums a class
over the calls every run of the log made and timed (a capture's fcntl
that replay does not issue, its page faults that have no duration, are
left out of every run alike): the table lists what it left out.

TRACED.json compares the same captures (cap-I) with captures of replays
with the default engine onto the capture's filesystem (traced-I), in a
database of their own: a class sums the calls every run of a database
made, and a replay issues a read(2) as pread64.

Prints the self-replay table, the verdict table and the goals; appends
"name value" lines to BENCH_OUT.
"""
import argparse
import json
import statistics

CLASSES = ["data_read", "data_write", "sync", "metadata"]
TRACED_CLASSES = ["data_read", "data_write", "sync"]
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
    d = json.load(open(path))
    groups = {"left out": d.get("classes_left_out", [])}
    # compare's values are per group of runs with one label (every run of
    # this script has its own label); ops/s is over the time in the calls
    for run in d["runs"]:
        i = run.get("group", 0)
        parts = run["label"].rsplit("-", 1)
        g = groups.setdefault(parts[0], Group())
        g.add("elapsed", run["duration_ns"])
        for c in CLASSES:
            cls = d["classes"].get(c)
            if not cls or cls["total time"]["values"][i] is None:
                continue
            total = cls["total time"]["values"][i]
            g.add(c + ".ops", (cls["ops/s"]["values"][i] or 0) * total / 1e9)
            g.add(c + ".total", total)
            g.add(c + ".p50", cls["p50"]["values"][i])
    return groups


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
    for p, groups in progs:
        cap = groups.get("cap")
        if not cap:
            continue
        if groups["left out"]:
            print("%-7s left out of the classes (counts in the first capture): %s" % (
                p, ", ".join("%s %d" % (x["syscall"], x["counts"][0]) for x in groups["left out"])))
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
    print("(engines: the largest over the smallest engine's median, total time; the 15 % check takes p50 too)")
    return fid_met, fid_all, agree_met, agree_all


def traced(progs, default, emit):
    """The replays captured by riot (label traced-I) against the program's
    captures: both recorded by the same probes. Not metadata: a capture of
    a replay also records the replay's confined lookups (an O_PATH open of
    a path's parent before the clock, and its close after), calls the
    program did not make."""
    print("\nunder the same probes: the %s engine's replays captured by riot, against the program's" % default)
    print("captures (medians; spread in ()), and against the replays nobody traced (what the probes")
    print("add to the replay's own calls)")
    print("%-7s %-10s %22s %30s %22s %7s" % ("program", "class", "capture total / p50",
                                           "traced: total, p50 ratio", "traced/untraced", "+-25%"))
    met = n = 0
    for p, groups in progs:
        cap, tr, un = groups.get("traced cap"), groups.get("traced"), groups.get("same-" + default)
        if not cap or not tr:
            continue
        first = True
        for c in TRACED_CLASSES:
            if not cap.median(c + ".ops"):
                continue
            ct, cp = cap.median(c + ".total"), cap.median(c + ".p50")
            t, q = tr.median(c + ".total"), tr.median(c + ".p50")
            rt, rq = ratio(t, ct), ratio(q, cp)
            ut = ratio(t, un.median(c + ".total")) if un else None
            uq = ratio(q, un.median(c + ".p50")) if un else None
            ok = within(rt, FIDELITY) and within(rq, FIDELITY)
            n += 1
            met += ok
            print("%-7s %-10s %22s %30s %22s %7s" % (
                p if first else "", c, "%s / %s" % (fmt_ns(ct), fmt_ns(cp)),
                "%s %s (%s), %s" % (fmt_ns(t), fmt_x(rt), fmt_pct(tr.spread(c + ".total")), fmt_x(rq)),
                "%s, %s" % (fmt_x(ut), fmt_x(uq)), "met" if ok else "NOT met"))
            first = False
            emit("fidelity_%s_%s_traced_total_ratio" % (p, c), rt)
            emit("fidelity_%s_%s_traced_p50_ratio" % (p, c), rq)
            emit("fidelity_%s_%s_traced_over_untraced_total" % (p, c), ut)
            emit("fidelity_%s_%s_traced_over_untraced_p50" % (p, c), uq)
    print("(traced/untraced: total, p50; metadata is left out: a capture of a replay also records")
    print("its lookups, the O_PATH opens and closes of parents it makes before each path call; a")
    print("replay reads the pages a program faulted in from a mapping with pread64, which the")
    print("program's capture holds as mmap:read, without a duration: git's data_read)")
    if n:
        print("within +-25 %% of the capture under the same probes: %d of %d classes (a diagnostic:"
              " what the observer adds, not a goal)" % (met, n))
    return met, n


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
    for p, groups in progs:
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
        name, paths = arg.split("=", 1)
        path, _, traced_path = paths.partition(":")
        groups = load(path)
        if traced_path:
            # the traced replays and the captures, compared apart
            t = load(traced_path)
            groups["traced"] = t.get("traced")
            groups["traced cap"] = t.get("cap")
        progs.append((name, groups))
    out = open(a.out, "a")

    def emit(name, v):
        if v is not None:
            out.write("%s %.4f\n" % (name, v))

    fm, fa, am, aa = self_replay(progs, engines, a.default, emit)
    tm, ta = traced(progs, a.default, emit)
    if ta:
        emit("fidelity_traced_classes_within_25pct", tm)
        emit("fidelity_traced_classes", ta)
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
