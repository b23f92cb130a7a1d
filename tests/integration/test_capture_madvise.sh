#!/usr/bin/env bash
# madvise and mremap are recorded for file mappings only: the workload
# advises (WILLNEED, SEQUENTIAL) and moves a mapping of a file, and does
# the same to anonymous memory; the log holds exactly the file ones, each
# with the mapped file's inode, size and type and the file offset its
# address maps. riot info counts them; replay, on both engines, counts
# them as not replayable (it maps no file) and diverges nowhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
capture_workload madvise
ino=$(stat -c %i "$W/mv.dat")
check_trace <<PY
f = t.path("mv.dat")
PROT_READ, MAP_SHARED, WILLNEED, SEQUENTIAL, MAYMOVE = 1, 1, 3, 2, 1
S_IFREG = 0o100000
calls = t.main_calls()
t.expect_seq("madvise", calls, [
    E("openat", ret=4, path=f),
    E("mmap", fd=4, count=8192, cmd=PROT_READ, flags=MAP_SHARED, off=4096, path=f),
    E("madvise", count=4096, cmd=WILLNEED, ret=0, off2=8192, ino=$ino, size=16384, ftype=S_IFREG),
    E("madvise", count=8192, cmd=SEQUENTIAL, ret=0, off2=4096, ino=$ino, size=16384, ftype=S_IFREG),
    E("mremap", count=8192, off=12288, flags=MAYMOVE, off2=4096, ino=$ino, size=16384, ftype=S_IFREG),
    E("munmap", count=12288, ret=0),
    E("munmap", count=16384, ret=0),
    E("close", fd=4, ret=0, path=f),
])
if len(calls) == 8:
    t.eq("madvise willneed address", calls[2].get("arg"), calls[1].get("ret") + 4096)
    t.eq("madvise sequential address", calls[3].get("arg"), calls[1].get("ret"))
    t.eq("mremap address", calls[4].get("arg"), calls[1].get("ret"))
    t.eq("munmap of the moved mapping", calls[5].get("arg"), calls[4].get("ret"))
t.eq("info: madvise", t.info["ops"].get("madvise"), 2)
t.eq("info: mremap", t.info["ops"].get("mremap"), 1)
t.common()
PY
for e in uring sync; do
	replay_json "$LOG" "$IT_TMP/root-$e" --engine "$e"
	same_counts "$IT_TMP/info.json"
	replay_treats "madvise ($e)" "" "madvise=2 mremap=1"
done
echo "madvise, mremap: the file ones recorded with their file, counted, not replayed"
