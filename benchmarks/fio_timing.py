#!/usr/bin/env python3
"""benchmarks/fio_timing.py IOLOG LATLOG: fio's issue delays against the
schedule of a riot-exported iolog.

IOLOG is one riot-TID.iolog (v3: microsecond timestamps); LATLOG the
matching fio latency log (write_lat_log=..., log_offset=1: "msec, lat_ns,
ddir, bs, offset"). With iodepth=1 fio completes the I/Os in iolog order,
so the n-th log entry is the n-th read/write line. An I/O was issued at
completion time minus its latency; its delay is that minus its scheduled
time. fio logs whole milliseconds (truncated), so each issue time may be
up to 1 ms early: the delays printed are lower bounds.

Prints "count p50_ns p99_ns max_ns".
"""
import sys


def scheduled(iolog):
    out = []
    with open(iolog) as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) == 5 and parts[2] in ("read", "write"):
                out.append(int(parts[0]) * 1000)
    return out


def issued(latlog):
    out = []
    with open(latlog) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2:
                out.append(int(parts[0]) * 1000000 - int(parts[1]))
    return out


def quantile(values, q):
    if not values:
        return 0
    i = min(len(values) - 1, max(0, int(q * len(values) + 0.5) - 1))
    return values[i]


def main():
    sched = scheduled(sys.argv[1])
    iss = issued(sys.argv[2])
    n = min(len(sched), len(iss))
    delays = sorted(max(0, iss[i] - sched[i]) for i in range(n))
    print(n, quantile(delays, 0.5), quantile(delays, 0.99), delays[-1] if delays else 0)


if __name__ == "__main__":
    main()
