#!/usr/bin/env bash
# A real program against the kernel's own counters: `tar -xf` of an archive
# made here, run once under `perf stat -e syscalls:sys_enter_*` and once
# under `riot capture --`, on identical inputs into fresh directories. For
# every syscall of bpf/syscalls.def the two counts must be equal (the
# capture must report no drops). riot does not record anonymous mmap, so
# perf counts mmap with the same rule (a tracepoint filter on MAP_ANONYMOUS).
# perf's counters start at exec; riot's count starts at the exec record too.
. "$(dirname "$0")/lib.sh"
require_capture
command -v perf >/dev/null 2>&1 || unavailable "perf (Debian package linux-perf) is not installed"
command -v tar >/dev/null 2>&1 || fail "tar is missing"
DEF=$IT_DIR/../../bpf/syscalls.def
[ -r "$DEF" ] || fail "cannot read $DEF"
TP=/sys/kernel/tracing/events/syscalls
[ -d "$TP" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d "$TP" ] || TP=/sys/kernel/debug/tracing/events/syscalls
[ -d "$TP" ] || unavailable "no syscall tracepoints in tracefs"

# A tree with files of many sizes, empty files, nested dirs, symlinks and a
# hard link, so tar opens, writes, links, chmods and utimes.
python3 - "$IT_TMP/src" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(6):
    p = os.path.join(root, "d%d" % d, "sub%d" % (d % 3))
    os.makedirs(p)
    for f in range(10):
        size = (f * 7919 + d * 104729) % 300000 if f % 4 else 0
        with open(os.path.join(p, "f%d.bin" % f), "wb") as fh:
            fh.write(bytes((i * 131 + f) & 0xff for i in range(size)))
    os.symlink("f1.bin", os.path.join(p, "link"))
os.link(os.path.join(root, "d0/sub0/f1.bin"), os.path.join(root, "d0/hard.bin"))
PY
tar -cf "$IT_TMP/a.tar" -C "$IT_TMP" src || fail "tar -cf"

# Each op by its tracepoint (test_syscalls_tracefs.sh: every row has one).
ops=()
events=()
while read -r op _ ev; do
	[ -d "$TP/sys_enter_$ev" ] || fail "$op: no tracepoint sys_enter_$ev"
	ops+=("$op=$ev")
	events+=(-e "syscalls:sys_enter_$ev")
	[ "$op" = mmap ] && events+=(--filter '!(flags & 32)')
done < <(python3 "$IT_DIR/syscalls_def.py" "$DEF" rows)
[ ${#ops[@]} -gt 50 ] || fail "only ${#ops[@]} syscalls of the table have tracepoints"

mkdir "$IT_TMP/out1" "$IT_TMP/out2"
cd "$IT_TMP" || fail "cd"
perf stat -x, -o "$IT_TMP/perf.csv" "${events[@]}" -- tar -xf a.tar -C out1 ||
	fail "perf stat -- tar exited $?"
"$RIOT" capture -q -o "$IT_TMP/tar.riot" -- tar -xf a.tar -C out2 2>"$IT_TMP/cap.err" ||
	{ cat "$IT_TMP/cap.err" >&2; fail "riot capture -- tar exited $?"; }
diff -r out1 out2 >/dev/null || fail "the two tar runs extracted different trees"
dump_log "$IT_TMP/tar.riot"

python3 - "$IT_TMP/perf.csv" "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "${ops[@]}" <<'PY'
import collections, json, sys
perf_csv, dump, info_path = sys.argv[1], sys.argv[2], sys.argv[3]
event = dict(a.split("=") for a in sys.argv[4:])
ops = list(event)
perf = {}
for line in open(perf_csv):
    f = line.strip().split(",")
    if len(f) < 3 or not f[2].startswith("syscalls:sys_enter_"):
        continue
    if not f[0].isdigit():
        sys.exit("FAIL: perf did not count %s: %s" % (f[2], f[0]))
    perf[f[2][len("syscalls:sys_enter_"):]] = int(f[0])
recs = [json.loads(l) for l in open(dump) if l.strip()]
info = json.load(open(info_path))
fails = []
if info.get("drops") != 0 or any(r.get("type") == "drop" for r in recs):
    fails.append("capture reported drops (%r): counts cannot be compared" % info.get("drops"))
# The command is the process riot started; count from its exec on.
execs = sorted((r for r in recs if r.get("type") == "proc" and r.get("kind") == "exec"),
               key=lambda r: r["t"])
if not execs or execs[0].get("comm") != "tar":
    fails.append("no exec record of tar first: %r" % execs[:1])
    t0 = 0
else:
    t0 = execs[0]["t"]
# asynchronous requests (mmap:read of tar's pages, ...) are no syscalls
riot = collections.Counter(r["op"] for r in recs if r.get("type") == "syscall" and r["t"] >= t0
                           and ":" not in r["op"])
perf = {op: perf[event[op]] for op in ops if event[op] in perf}
for op in ops:
    if op not in perf:
        fails.append("perf printed no count for %s (sys_enter_%s)" % (op, event[op]))
    elif perf[op] != riot.get(op, 0):
        fails.append("%-16s perf %6d  riot %6d" % (op, perf[op], riot.get(op, 0)))
extra = set(riot) - set(ops)
if extra:
    fails.append("riot recorded ops without a tracepoint here: %s" % sorted(extra))
if perf.get("openat", 0) < 60 or perf.get("write", 0) < 40:
    fails.append("tar did less than expected (openat %d, write %d): the test is not testing"
                 % (perf.get("openat", 0), perf.get("write", 0)))
for f in fails:
    print("FAIL: " + f)
if fails:
    sys.exit(1)
print("ok: %d syscalls compared, %d calls in all" % (len(ops), sum(perf[o] for o in ops)))
PY
