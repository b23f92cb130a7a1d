# tests/integration/fleet_log.py [N]: the mklog text of a log for the fleet
# tests: N processes (16 unless given, at most 100) of two threads each,
# every one reading a file of the starting tree (pread, then reads at the
# file position shared by its threads), writing a file it creates, syncing, stat-ing, making a
# directory and renaming its file into it; and a parent whose child reads
# through the fd it inherited. A whole replay has no divergence.
import sys

out = []
P = range(200, 200 + (int(sys.argv[1]) if len(sys.argv) > 1 else 16))
for p in P:
    out.append("snap_proc pid=%d cwd=/w comm=w%d" % (p, p))
out.append("snap_proc pid=300 cwd=/w comm=parent")
for p in P:
    t2 = p + 1000
    out += [
        "openat pid=%d dirfd=AT_FDCWD path=/w/in/f%d flags=O_RDONLY ret=3 ftype=reg size=8192" % (p, p),
        "pread64 pid=%d fd=3 off=0 count=4096 ret=4096" % p,
        "read pid=%d tid=%d fd=3 count=4096 ret=4096" % (p, t2),
        "read pid=%d tid=%d fd=3 count=4096 ret=4096" % (p, t2),
        "close pid=%d fd=3" % p,
        "openat pid=%d dirfd=AT_FDCWD path=/w/out/f%d flags=O_WRONLY|O_CREAT|O_TRUNC ret=4 created=1 ftype=reg" % (p, p),
        "write pid=%d fd=4 count=1000 ret=1000" % p,
        "write pid=%d tid=%d fd=4 count=1000 ret=1000" % (p, t2),
        "fsync pid=%d fd=4" % p,
        "close pid=%d fd=4" % p,
        "stat pid=%d path=/w/in/f%d ret=0 size=8192 ftype=reg" % (p, p),
        "mkdir pid=%d path=/w/d%d ret=0" % (p, p),
        "rename pid=%d path=/w/out/f%d path2=/w/d%d/o ret=0" % (p, p, p),
    ]
out += [
    "openat pid=300 dirfd=AT_FDCWD path=/w/shared flags=O_RDONLY ret=3 ftype=reg size=4096",
    "proc_fork pid=300 child=301",
    "read pid=301 fd=3 count=4096 ret=4096",
    "close pid=301 fd=3",
    "pread64 pid=300 fd=3 off=0 count=100 ret=100",
    "close pid=300 fd=3",
]
print("\n".join(out))
