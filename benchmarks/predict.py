#!/usr/bin/env python3
"""benchmarks/predict.py: the tables of benchmarks/predict.sh.

usage: predict.py --dir OUT --key predicted_ns|elapsed_ns --fs "ext4 xfs"
                  --out BENCH_OUT PROG...

OUT holds, per program: PROG.times ("FS NS" a line: the program's own
runs), PROG.FS.I.json (riot replay --json of each replay), PROG.info.json
(riot info --json of the capture) and PROG.capture_ns (the captured run's
time, riot's start and stop included). The first filesystem is the one
the capture was made on and the ratios' denominator.

Per program: the program's and riot's medians per filesystem with their
spread ((max - min) / median), the prediction's error, the ratios to the
first filesystem, the winners, the divergences per syscall. Targets
printed PASS/MISS; "name value" lines appended to BENCH_OUT.
"""
import argparse
import collections
import json
import os
import statistics

ERROR = 0.10    # a prediction within 10 % of the program's time
RATIO = 0.10    # a ratio within 10 % of the program's ratio


def verdict(ok):
    return "PASS" if ok else "MISS"


class Runs:
    """The times of a set of runs, in ns."""

    def __init__(self, vals):
        self.vals = sorted(vals)

    def __bool__(self):
        return bool(self.vals)

    @property
    def median(self):
        return statistics.median(self.vals)

    @property
    def range(self):
        return self.vals[-1] - self.vals[0]

    @property
    def spread(self):
        return self.range / self.median if self.median else 0.0

    def cell(self):
        if not self:
            return "-"
        return "%9.1f (%3.0f%%, %d)" % (self.median / 1e6, 100 * self.spread, len(self.vals))


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def program_times(d, prog, fses):
    times = {fs: [] for fs in fses}
    try:
        with open(os.path.join(d, prog + ".times")) as f:
            for line in f:
                fs, ns = line.split()
                if fs in times:
                    times[fs].append(int(ns))
    except OSError:
        pass
    return {fs: Runs(v) for fs, v in times.items()}


def replays(d, prog, fs):
    """The --json of each replay of PROG onto FS (a failed one left none)."""
    prefix = "%s.%s." % (prog, fs)
    out = []
    for name in sorted(os.listdir(d)):
        if name.startswith(prefix) and name.endswith(".json") and name[len(prefix):-5].isdigit():
            j = load_json(os.path.join(d, name))
            if j is not None:
                out.append(j)
    return out


class Divergences:
    """Divergences of a program's replays: totals and per syscall."""

    def __init__(self):
        self.per_replay = []
        self.flips = 0
        self.unreliable = 0
        self.result = collections.Counter()
        self.bytes = collections.Counter()
        self.examples = collections.defaultdict(list)

    def add(self, j):
        self.per_replay.append(j.get("divergences", 0))
        self.flips += j.get("flips", 0)
        self.unreliable += bool(j.get("unreliable"))
        for name, s in j.get("syscalls", {}).items():
            self.result[name] += s.get("div_result", 0)
            self.bytes[name] += s.get("div_bytes", 0)
            for e in s.get("examples", []):
                ex = self.examples[name]
                key = (e.get("captured"), e.get("replayed"), e.get("path", ""))
                if len(ex) < 2 and key not in ex:
                    ex.append(key)

    def lines(self):
        names = sorted(set(self.result) | set(self.bytes),
                       key=lambda n: -(self.result[n] + self.bytes[n]))
        for n in names:
            if not self.result[n] and not self.bytes[n]:
                continue
            ex = "; ".join("%s -> %s %s" % (c, r, p[-60:]) for c, r, p in self.examples[n])
            yield "    %-16s result %5d  bytes %5d   e.g. %s" % (n, self.result[n], self.bytes[n], ex)


def winner(a_name, a, b_name, b):
    return a_name if a.median <= b.median else b_name


def report(args, prog, fses, emit):
    prog_runs = program_times(args.dir, prog, fses)
    riot_runs = {}
    div = Divergences()
    other = collections.Counter()
    skips = collections.Counter()
    skipped = collections.Counter()
    unrep = collections.Counter()
    for fs in fses:
        js = replays(args.dir, prog, fs)
        riot_runs[fs] = Runs([j[args.key] for j in js if j.get(args.key) is not None])
        for j in js:
            div.add(j)
            for k in ("skipped", "unreplayable", "fallbacks"):
                other[k] += j.get(k, 0)
            skips.update(j.get("skip_reasons", {}))
            for name, sc in j.get("syscalls", {}).items():
                skipped[name] += sc.get("skipped", 0)
                unrep[name] += sc.get("unreplayable", 0)
    if not any(prog_runs.values()) or not any(riot_runs.values()):
        print("\n%s: no figures (see the lines above)" % prog)
        return []

    info = load_json(os.path.join(args.dir, prog + ".info.json")) or {}
    span = info.get("duration_ns")
    try:
        with open(os.path.join(args.dir, prog + ".capture_ns")) as f:
            cap_ns = int(f.read())
    except (OSError, ValueError):
        cap_ns = None
    base = fses[0]
    print("\n%s: captured on %s: %s syscalls, first call to last end %s ms; the captured run took %s ms"
          % (prog, base, info.get("syscalls", "?"),
             "%.1f" % (span / 1e6) if span else "?",
             "%.1f" % (cap_ns / 1e6) if cap_ns else "?"))
    print("  %-6s %-24s %-24s %8s  %s" % ("fs", "program ms (spread, n)", "riot ms (spread, n)",
                                         "error", "within 10 %"))
    misses = []
    for fs in fses:
        p, r = prog_runs[fs], riot_runs[fs]
        if not p or not r:
            print("  %-6s %-24s %-24s" % (fs, p.cell(), r.cell()))
            misses.append("%s %s: no figures" % (prog, fs))
            continue
        err = (r.median - p.median) / p.median
        ok = abs(err) <= ERROR
        print("  %-6s %-24s %-24s %+7.1f%%  %s" % (fs, p.cell(), r.cell(), 100 * err, verdict(ok)))
        emit("predict_%s_%s_program_ms" % (prog, fs), p.median / 1e6)
        emit("predict_%s_%s_program_spread_pct" % (prog, fs), 100 * p.spread)
        emit("predict_%s_%s_riot_ms" % (prog, fs), r.median / 1e6)
        emit("predict_%s_%s_riot_spread_pct" % (prog, fs), 100 * r.spread)
        emit("predict_%s_%s_err_pct" % (prog, fs), 100 * err)
        if not ok:
            misses.append("%s on %s: riot %+.0f%%" % (prog, fs, 100 * err))

    for fs in fses[1:]:
        pa, pb, ra, rb = prog_runs[fs], prog_runs[base], riot_runs[fs], riot_runs[base]
        if not (pa and pb and ra and rb):
            continue
        pr, rr = pa.median / pb.median, ra.median / rb.median
        off = (rr - pr) / pr
        ok = abs(off) <= RATIO
        pair = "%s/%s" % (fs, base)
        print("  %-11s program %.3f  riot %.3f  (%+.1f%%)  %s" % (pair, pr, rr, 100 * off, verdict(ok)))
        emit("predict_%s_%s_%s_program_ratio" % (prog, fs, base), pr)
        emit("predict_%s_%s_%s_riot_ratio" % (prog, fs, base), rr)
        if not ok:
            misses.append("%s %s ratio: riot %.2f, program %.2f" % (prog, pair, rr, pr))

    for i, a in enumerate(fses):
        for b in fses[i + 1:]:
            pa, pb, ra, rb = prog_runs[a], prog_runs[b], riot_runs[a], riot_runs[b]
            if not (pa and pb and ra and rb):
                continue
            pw, rw = winner(a, pa, b, pb), winner(a, ra, b, rb)
            decided = abs(pa.median - pb.median) > max(pa.range, pb.range)
            if decided:
                print("  winner %s vs %s: program %s, riot %s  %s" % (a, b, pw, rw, verdict(pw == rw)))
                if pw != rw:
                    misses.append("%s %s vs %s: riot names %s, the program %s" % (prog, a, b, rw, pw))
            else:
                print("  winner %s vs %s: undecided (the program's medians differ by %.1f ms,"
                      " less than its runs' range %.1f ms); riot %s"
                      % (a, b, abs(pa.median - pb.median) / 1e6, max(pa.range, pb.range) / 1e6, rw))

    result = sum(div.result.values())
    nrep = len(div.per_replay)
    print("  divergences: %s per replay (median of %d); in all: success against failure %d  %s,"
          " result %d, bytes %d; riot calls %d of the replays unreliable"
          % (statistics.median(div.per_replay) if nrep else "-", nrep, div.flips,
             verdict(div.flips == 0), result, sum(div.bytes.values()), div.unreliable))
    for line in div.lines():
        print(line)
    if any(other.values()):
        print("  in all replays: %s" % ", ".join("%s %d" % kv for kv in sorted(other.items())))
    for what, c in (("skipped, why", skips), ("skipped", skipped), ("unreplayable", unrep)):
        if +c:
            print("    %s: %s" % (what, ", ".join("%s %d" % kv for kv in (+c).most_common())))
    emit("predict_%s_divergences" % prog, statistics.median(div.per_replay) if nrep else 0)
    emit("predict_%s_div_result" % prog, result)
    emit("predict_%s_flips" % prog, div.flips)
    if div.flips:
        misses.append("%s: %d calls succeeded where the capture's failed or the reverse"
                      % (prog, div.flips))
    return misses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--key", default="predicted_ns")
    ap.add_argument("--fs", required=True)
    ap.add_argument("--out", default="/dev/null")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    fses = args.fs.split()
    lines = []

    def emit(name, value):
        lines.append("%s %.6g" % (name, value))

    print("\nprediction: the program's own time against riot's %s, medians in ms" % args.key)
    misses = []
    for prog in args.programs:
        misses += report(args, prog, fses, emit)
    print("\ntargets: %s" % ("all met" if not misses else "%d missed" % len(misses)))
    for m in misses:
        print("  MISS " + m)
    with open(args.out, "a") as f:
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
