#!/usr/bin/env bash
# test_compare_common: `riot compare` of a capture and its replays sums a
# class over the calls every run made and timed. A log with fcntl calls
# that only read or set fd state (replay does not issue them), an mmap
# page with no duration (a capture cannot time a fault) and timed
# openat, pread64, newfstatat and close: compare lists fcntl and mmap:read
# as left out, with each run's count, and the capture's metadata and
# data_read classes are the counts and exact times of the calls left in
# (the report database's per-syscall rows). Beside a replay of another
# log without the newfstatat, the newfstatat is left out too; captures
# compared among themselves keep their stored classes.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-compare-common.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

{
	echo "snap_proc pid=100 cwd=/d"
	echo "openat dirfd=AT_FDCWD path=/d/f flags=O_RDONLY ret=3 size=16384 ftype=reg created=0 dur=3000"
	for i in 1 2 3 4 5; do
		echo "fcntl fd=3 cmd=1 ret=0 dur=$((i * 100))"		# F_GETFD
		echo "pread64 fd=3 off=$(((i - 1) * 4096)) count=4096 ret=4096 dur=$((i * 1000))"
	done
	echo "fcntl fd=3 cmd=3 ret=0 dur=700"				# F_GETFL
	echo "newfstatat dirfd=AT_FDCWD path=/d/f flags=0 ret=0 dur=900"
	echo "mmap:read ctx=1 path=/d/f off=0 count=4096 ret=4096 dur=0"
	echo "close fd=3 ret=0 dur=400"
} >"$T/in.txt"
"$BIN/mklog" -o "$T/a.riot" "$T/in.txt" || fail "mklog"
"$RIOT" report "$T/a.riot" -o "$T/r.db" --label cap >"$T/out" || fail "report: $(cat "$T/out")"
for i in 1 2; do
	"$RIOT" replay "$T/a.riot" --root "$T/root" --report "$T/r.db" --label "rep$i" >"$T/out" 2>&1 ||
		fail "replay: $(cat "$T/out")"
done
"$RIOT" compare "$T/r.db" --json >"$T/cmp.json" || fail "compare --json"
"$RIOT" compare "$T/r.db" >"$T/cmp.txt" || fail "compare"

python3 - "$T" <<'PY' || fail "classes over the common calls"
import json, sqlite3, sys
T = sys.argv[1]
db = sqlite3.connect(T + "/r.db")
cmp = json.load(open(T + "/cmp.json"))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")

ids = dict(db.execute("SELECT label, id FROM runs"))
counts = {r: dict(db.execute("SELECT sys, count FROM syscalls WHERE run_id = ?", (ids[r],)))
          for r in ("cap", "rep1", "rep2")}
eq("capture's fcntl", counts["cap"].get("fcntl"), 6)
eq("replay's fcntl", counts["rep1"].get("fcntl", 0), 0)
eq("left out", cmp["classes_left_out"], [
    {"syscall": "fcntl", "counts": [6, 0, 0]},
    {"syscall": "mmap:read", "counts": [1, counts["rep1"].get("mmap:read", 0),
                                        counts["rep2"].get("mmap:read", 0)]}])
# the capture's classes: what is left in, to the nanosecond
eq("metadata total", cmp["classes"]["metadata"]["total time"]["values"][0], 3000 + 900 + 400)
eq("data_read total", cmp["classes"]["data_read"]["total time"]["values"][0],
   1000 + 2000 + 3000 + 4000 + 5000)
# data_read is pread64 alone once the fault is left out: its p50
eq("data_read p50", cmp["classes"]["data_read"]["p50"]["values"][0],
   db.execute("SELECT lat_p50_ns FROM syscalls WHERE run_id = ? AND sys = 'pread64'",
              (ids["cap"],)).fetchone()[0])
# the database's own class rows still hold every captured call
row = db.execute("SELECT count, lat_sum_ns FROM classes WHERE run_id = ? AND class = 'metadata'",
                 (ids["cap"],)).fetchone()
eq("stored metadata class", row, (9, 3000 + 900 + 400 + 100 + 200 + 300 + 400 + 500 + 700))
# each replay's figures are its own rows' sums over the same calls
for r, i in (("rep1", 1), ("rep2", 2)):
    want = db.execute("SELECT sum(lat_sum_ns) FROM syscalls WHERE run_id = ? AND "
                      "sys IN ('openat', 'newfstatat', 'close')", (ids[r],)).fetchone()[0]
    eq(f"{r} metadata total", cmp["classes"]["metadata"]["total time"]["values"][i], want)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
grep -Eq '^  \(classes sum the calls every run made and timed; left out: fcntl \(6 0 0\); mmap:read \(1 [0-9]+ [0-9]+\), counts per run\)$' \
	"$T/cmp.txt" || fail "no left-out line: $(grep -n 'left out' "$T/cmp.txt")"

# a replay of another log, with the same calls but for the newfstatat:
# the newfstatat is left out of every run's classes
grep -v newfstatat "$T/in.txt" | "$BIN/mklog" -o "$T/c.riot" || fail "mklog c"
"$RIOT" replay "$T/c.riot" --root "$T/root-c" --report "$T/r.db" --label nostat >"$T/out" 2>&1 ||
	fail "replay c: $(cat "$T/out")"
"$RIOT" compare "$T/r.db" cap nostat --json >"$T/two.json" || fail "compare cap nostat"
python3 - "$T/two.json" <<'PY' || fail "a call the other log lacks"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(d["classes_left_out"], key=lambda x: x["syscall"])
assert [x["syscall"] for x in got] == ["fcntl", "mmap:read", "newfstatat"], got
assert got[2]["counts"] == [1, 0], got
assert d["classes"]["metadata"]["total time"]["values"][0] == 3000 + 400, d["classes"]["metadata"]
PY
# captures compared among themselves keep their stored classes, every call
"$RIOT" report "$T/c.riot" -o "$T/r.db" --label capc >"$T/out" || fail "report c: $(cat "$T/out")"
"$RIOT" compare "$T/r.db" cap capc --json >"$T/caps.json" || fail "compare cap capc"
python3 - "$T/caps.json" <<'PY' || fail "captures alone"
import json, sys
d = json.load(open(sys.argv[1]))
assert "classes_left_out" not in d, d["classes_left_out"]
assert d["classes"]["metadata"]["total time"]["values"] == [3000 + 900 + 400 + 2200, 3000 + 400 + 2200], \
    d["classes"]["metadata"]["total time"]["values"]
PY
echo "ok"
