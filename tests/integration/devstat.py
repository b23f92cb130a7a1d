"""tests/integration/devstat.py: what /sys/block/<dev>/stat says moved
between two reads of it, and a recorded device row checked against that.

The recording's window lies within the two reads, so a recorded figure is
never above the stat file's and at most 5 % below it (what moved before
the recording started: riot's own set-up)."""


def stat_moved(before, after):
    """Requests and bytes read and written between two copies of the stat
    file (Documentation/block/stat.rst: sectors are 512 bytes)."""
    a = [int(x) for x in open(before).read().split()]
    b = [int(x) for x in open(after).read().split()]
    d = [y - x for x, y in zip(a, b)]
    return {"read_reqs": d[0], "read_bytes": d[2] * 512,
            "write_reqs": d[4], "write_bytes": d[6] * 512}


def check_within(row, moved, label, bad):
    """Appends to bad each figure of row outside [95 %, 100 %] of moved."""
    for k, v in moved.items():
        print("%s %s: recorded %d, /sys/block stat %d" % (label, k, row[k], v))
        if row[k] > v or row[k] < v * 0.95:
            bad.append("%s: recorded %d, stat says %d" % (k, row[k], v))
