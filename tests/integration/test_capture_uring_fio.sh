#!/usr/bin/env bash
# fio --ioengine=io_uring --rw=randrw on a file of its own, plain and with
# --sqthread_poll=1, --registerfiles=1 and --fixedbufs=1: riot records one
# io_uring:<opcode> request per I/O fio made, so the requests and bytes per
# direction equal fio's own JSON (total_ios, io_bytes), every request
# names the file (0 unresolved), and SQPOLL's submissions (made by the
# ring's kernel thread) are the ring owner's, --comm included (the
# thread is named iou-sqp-PID, its process fio).
. "$(dirname "$0")/lib.sh"
require_capture
command -v fio >/dev/null || fail "fio is required (make deps)"

W=$IT_TMP/w
mkdir -p "$W"
for v in "" --sqthread_poll=1 --registerfiles=1 --fixedbufs=1 "--sqthread_poll=1 --comm"; do
	name=plain${v//[-=_ ]/}
	LOG=$IT_TMP/$name.riot
	comm=() opts=()
	if [ "${v#* }" = --comm ]; then
		v=${v% *}
		comm=(--comm fio)
	fi
	[ -z "$v" ] || opts=("$v")
	"$RIOT" capture -q -o "$LOG" "${comm[@]}" -- fio --name=job --filename="$W/$name.dat" --size=1M --bs=4k \
		--ioengine=io_uring --rw=randrw --iodepth=8 --randseed=7 "${opts[@]}" \
		--output-format=json --output="$IT_TMP/$name.json" >/dev/null 2>"$IT_TMP/cap.err" </dev/null ||
		{ cat "$IT_TMP/cap.err" >&2; fail "riot capture -- fio $v exited $?"; }
	dump_log "$LOG"
	python3 - "$IT_TMP/dump.jsonl" "$IT_TMP/info.json" "$IT_TMP/$name.json" "$W/$name.dat" "$v" "${comm[0]:-}" <<'PY' ||
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
info = json.load(open(sys.argv[2]))
job = json.load(open(sys.argv[3]))["jobs"][0]
path, variant = sys.argv[4], sys.argv[5]
bad = []
def eq(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))
fixed = variant == "--fixedbufs=1"
ops = {"read": "io_uring:read_fixed" if fixed else "io_uring:read",
       "write": "io_uring:write_fixed" if fixed else "io_uring:write"}
reqs = [r for r in recs if r.get("type") == "syscall" and r.get("op", "").startswith("io_uring:")]
eq("request kinds", sorted({r["op"] for r in reqs}), sorted(ops.values()))
for d, op in ops.items():
    rs = [r for r in reqs if r["op"] == op]
    eq(d + " requests", len(rs), job[d]["total_ios"])
    eq(d + " bytes", sum(r["ret"] for r in rs), job[d]["io_bytes"])
    eq(d + " bytes asked", sum(r["count"] for r in rs), job[d]["io_bytes"])
eq("requests on other paths", [r for r in reqs if r.get("path") != path][:3], [])
eq("requests of one ring", len({(r["pid"], r.get("ctx")) for r in reqs}), 1)
eq("offsets 4k-aligned below 1M", [r["off"] for r in reqs if r["off"] % 4096 or r["off"] >= 1 << 20][:3], [])
if variant == "--registerfiles=1":
    eq("requests without IOSQE_FIXED_FILE", len([r for r in reqs if not r["flags"] & 1]), 0)
# the ring owner: a traced fio process; with SQPOLL its kernel thread submits
# (--comm filters process records too: their set is checked without it)
pids = {r["pid"] for r in recs if r.get("type") == "proc"}
if sys.argv[6] != "--comm":
    eq("requests of untraced processes", [r["pid"] for r in reqs if r["pid"] not in pids][:3], [])
if variant == "--sqthread_poll=1":
    eq("requests submitted by the owner's own thread",
       len([r for r in reqs if r["tid"] == r["pid"]]), 0)
eq("info: unresolved fd operations", info.get("unresolved_fds"), 0)
eq("info: drops", info.get("drops"), 0)
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
		fail "fio ${v:-(plain)} ${comm[*]}: trace check failed (log: $LOG)"
	echo "fio ${v:-(plain)} ${comm[*]}: requests and bytes per direction as fio counted them"
done
