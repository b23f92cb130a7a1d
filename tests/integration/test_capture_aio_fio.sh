#!/usr/bin/env bash
# fio --ioengine=libaio --direct=1 --rw=randrw: the aio:pread and aio:pwrite
# records riot captures are fio's requests, in number and bytes per
# direction (fio's JSON total_ios and io_bytes), each 4 KiB at an aligned
# offset of fio's file, named by its path, in one AIO context; reports and
# replay name them aio:pread and aio:pwrite too, and replay issues each.
. "$(dirname "$0")/lib.sh"
. "$IT_DIR/replay_lib.sh"
require_capture
command -v fio >/dev/null 2>&1 || fail "fio is missing (make deps installs it)"
W=$IT_TMP/w
LOG=$IT_TMP/cap.riot
mkdir -p "$W"
# IT_TMP is on the root filesystem, which takes O_DIRECT (ext4 here).
"$RIOT" capture -o "$LOG" -- fio --name=aio --filename="$W/fio.dat" \
	--ioengine=libaio --direct=1 --rw=randrw --size=4m --bs=4k --iodepth=16 \
	--randrepeat=1 --randseed=7 --output-format=json --output="$IT_TMP/fio.json" \
	>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" ||
	fail "riot capture -- fio exited $?: $(head -c 800 "$IT_TMP/cap.err")"
dump_log "$LOG"
"$RIOT" report "$LOG" -o "$IT_TMP/r.db" >/dev/null 2>"$IT_TMP/report.err" ||
	fail "riot report exited $?: $(head -c 500 "$IT_TMP/report.err")"
"$RIOT" report show "$IT_TMP/r.db" --json >"$IT_TMP/report.json" 2>>"$IT_TMP/report.err" ||
	fail "riot report show exited $?: $(head -c 500 "$IT_TMP/report.err")"
mkdir "$IT_TMP/root"
"$RIOT" init "$LOG" --root "$IT_TMP/root" >/dev/null 2>"$IT_TMP/init.err" ||
	fail "riot init exited $?: $(head -c 500 "$IT_TMP/init.err")"
replay_json "$LOG" "$IT_TMP/root"
python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$IT_TMP/fio.json" "$W/fio.dat" \
	"$IT_TMP/report.json" "$IT_TMP/replay.json" <<'PY' || fail "captured AIO requests differ from fio's report"
import collections, json, sys
dump, info, fio, path, report, replay = sys.argv[1:7]
recs = [json.loads(l) for l in open(dump)]
info = json.load(open(info))
report = json.load(open(report))["runs"][0]["syscalls"]
replay = json.load(open(replay))["syscalls"]
job = json.load(open(fio))["jobs"][0]
bad = []
def eq(what, got, want):
    if got != want:
        bad.append("%s: expected %r, got %r" % (what, want, got))
reqs = [r for r in recs if r.get("type") == "syscall" and r["op"].startswith("aio:")]
for op, d in (("aio:pread", "read"), ("aio:pwrite", "write")):
    mine = [r for r in reqs if r["op"] == op]
    eq(op + " records (fio total_ios)", len(mine), job[d]["total_ios"])
    eq(op + " bytes (fio io_bytes)", sum(r["ret"] for r in mine), job[d]["io_bytes"])
    eq(op + " info ops", info["ops"].get(op), job[d]["total_ios"])
    eq(op + " report count, bytes", (report.get(op, {}).get("count"), report.get(op, {}).get("bytes")),
       (job[d]["total_ios"], job[d]["io_bytes"]))
    eq(op + " replay ops, issued, unreplayable, bytes",
       tuple(replay.get(op, {}).get(k) for k in ("ops", "issued", "unreplayable", "bytes")),
       (job[d]["total_ios"], job[d]["total_ios"], 0, job[d]["io_bytes"]))
eq("aio ops besides pread and pwrite", sorted({r["op"] for r in reqs} - {"aio:pread", "aio:pwrite"}), [])
eq("requests not of 4096 bytes at an aligned offset inside the 4 MiB file",
   [r for r in reqs if r.get("count") != 4096 or r.get("ret") != 4096
    or r.get("off", -1) % 4096 or not 0 <= r.get("off", -1) < 4 << 20], [])
eq("paths of the requests", collections.Counter(r.get("path") for r in reqs), {path: len(reqs)})
eq("contexts of the requests", len({(r["pid"], r.get("ctx")) for r in reqs}), 1)
eq("requests with no context", [r for r in reqs if not r.get("ctx")], [])
eq("info unresolved fds", info["unresolved_fds"], 0)
eq("info drops", info["drops"], 0)
if job["read"]["total_ios"] + job["write"]["total_ios"] != 1024:
    bad.append("fio moved %d requests, 1024 expected" % (job["read"]["total_ios"] + job["write"]["total_ios"]))
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("ok: %d aio requests as fio reports them" % len(reqs))
sys.exit(1 if bad else 0)
PY
