#!/usr/bin/env bash
# `riot capture --rotate SIZE / --rotate-time S / --keep N / SIGHUP`: the
# segments of a rotated capture of a deterministic workload (tests/bin/
# rotwork.c) hold together exactly what an unrotated capture of it holds
# (counts per syscall, bytes, 0 drops, in info and in report); a middle
# segment alone inits and replays with nothing unresolved, skipped or
# diverging; --keep leaves exactly the newest N; SIGHUP starts a segment;
# segments out of order, of another capture or a plain log among them are
# refused; bad rotation options are usage errors.
. "$(dirname "$0")/lib.sh"
require_capture

ROUNDS=1500
W=$IT_TMP/w
mkdir -p "$W"

# capture NAME ARGS... : riot capture -o $IT_TMP/NAME ARGS -- rotwork
capture() {
	local name=$1 rounds=$2 pause=$3
	shift 3
	"$RIOT" capture -q -o "$IT_TMP/$name" "$@" -- "$BIN/rotwork" "$W" "$rounds" "$pause" \
		>"$IT_TMP/cap.out" 2>"$IT_TMP/cap.err" </dev/null ||
		fail "capture $name $*: $(cat "$IT_TMP/cap.err")"
}

# segments PREFIX: the segment files of PREFIX.riot, in order
segments() {
	ls "$IT_TMP/$1".[0-9][0-9][0-9][0-9][0-9][0-9].riot 2>/dev/null | sort
}

# info_check NAME ROUNDS FILES...: FILES read as one log hold exactly
# rotwork's calls on its files in $W for ROUNDS rounds (from riot dump:
# a test build's runtime may add calls of its own elsewhere) and their
# bytes, no drops, nothing unresolved, one start state; NAME.json keeps
# riot info --json of them, NAME.ops the calls in $W.
info_check() {
	local name=$1 rounds=$2
	shift 2
	"$RIOT" info --json "$@" >"$IT_TMP/$name.json" || fail "riot info $name"
	"$RIOT" dump --format jsonl --type syscall "$@" >"$IT_TMP/$name.jsonl" || fail "riot dump $name"
	ROUNDS=$rounds W=$W python3 - "$IT_TMP/$name.json" "$IT_TMP/$name.jsonl" "$name" \
		"$IT_TMP/$name.ops" <<'PY' || fail "info of $name"
import json, os, sys
d = json.load(open(sys.argv[1]))
n, w = int(os.environ["ROUNDS"]), os.environ["W"] + "/"
ops, moved = {}, {"read": 0, "write": 0}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if not str(r.get("path", "")).startswith(w):
        continue
    ops[r["op"]] = ops.get(r["op"], 0) + 1
    if r["op"] in ("read", "pread64", "write") and r.get("ret", 0) > 0:
        moved["write" if r["op"] == "write" else "read"] += r["ret"]
want_ops = {"read": n, "write": 3 * n, "pread64": n, "lseek": n, "openat": n + 2,
            "close": n + 2}
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: {got} != {want}")
eq("ops in W", ops, want_ops)
eq("bytes read in W", moved["read"], 2 * 4096 * n)
eq("bytes written in W", moved["write"], (4096 + 100 + 512) * n)
eq("drops", d["drops"], 0)
eq("complete", d["complete"], True)
eq("unresolved_fds", d["unresolved_fds"], 0)
eq("unknown_cwd", d["unknown_cwd"], 0)
eq("snap_proc records", d["records"].get("snap_proc"), 1)
json.dump({"ops": ops, "moved": moved}, open(sys.argv[4], "w"), sort_keys=True)
if bad:
    print(f"{sys.argv[3]}: " + "; ".join(bad), file=sys.stderr)
    sys.exit(1)
PY
}

# --- the same workload unrotated, rotated by size, rotated by time ---
capture full.riot $ROUNDS 300
info_check full $ROUNDS "$IT_TMP/full.riot"

capture size.riot $ROUNDS 300 --rotate 8K
mapfile -t SEG < <(segments size)
[ ${#SEG[@]} -ge 4 ] || fail "--rotate 8K of ~70 KiB made ${#SEG[@]} segments, expected 4 or more"
for ((i = 0; i < ${#SEG[@]}; i++)); do
	want=$(printf '%s/size.%06d.riot' "$IT_TMP" $((i + 1)))
	[ "${SEG[$i]}" = "$want" ] || fail "segment $i is ${SEG[$i]}, expected $want"
	sz=$(stat -c %s "${SEG[$i]}")
	# every segment but the last ends at the first block past 8 KiB
	if [ $i -lt $((${#SEG[@]} - 1)) ] && { [ "$sz" -lt 8192 ] || [ "$sz" -ge 16384 ]; }; then
		fail "segment ${SEG[$i]} holds $sz bytes: expected 8192 to 16383"
	fi
done
[ -e "$IT_TMP/size.riot" ] && fail "--rotate wrote size.riot besides its segments"
info_check size $ROUNDS "${SEG[@]}"
"$RIOT" info "${SEG[@]}" | grep -qx "segments:    1 to ${#SEG[@]} of capture [0-9a-f]\{32\}" ||
	fail "info of the segments does not name them: $("$RIOT" info "${SEG[@]}" | sed -n 3p)"
# the records of all segments are those of the unrotated log
cmp -s "$IT_TMP/full.ops" "$IT_TMP/size.ops" ||
	fail "calls in W: unrotated $(cat "$IT_TMP/full.ops"), segments $(cat "$IT_TMP/size.ops")"
# what info counts of the whole log: the same in both, where the program
# is not built for a test runtime that adds calls of its own
if [ -z "${ASAN_OPTIONS:-}" ]; then
	python3 - "$IT_TMP/full.json" "$IT_TMP/size.json" <<'PY' || fail "rotated info differs from unrotated"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("events", "syscalls", "drops", "bytes_read", "bytes_written", "errors", "ops",
          "processes", "threads", "files", "unresolved_fds", "unknown_cwd"):
    if a[k] != b[k]:
        sys.exit(f"{k}: unrotated {a[k]}, segments {b[k]}")
rec = {k: v for k, v in a["records"].items() if k != "string"}
rec2 = {k: v for k, v in b["records"].items() if k != "string"}
if rec != rec2:
    sys.exit(f"records: unrotated {rec}, segments {rec2}")
PY
fi

# report of the segments == report of the unrotated log, per syscall
"$RIOT" report "$IT_TMP/full.riot" -o "$IT_TMP/r.db" --label full >/dev/null ||
	fail "report full"
"$RIOT" report "${SEG[@]}" -o "$IT_TMP/r.db" --label segs >/dev/null || fail "report segments"
# each run's counts per syscall are its log's (info), and the two runs'
# are equal where the program adds no calls of a test runtime
SAME=$([ -z "${ASAN_OPTIONS:-}" ] && echo 1 || echo 0) python3 - "$IT_TMP/r.db" \
	"$IT_TMP/full.json" "$IT_TMP/size.json" <<'PY' || fail "report of the segments"
import json, os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def per_sys(label):
    return {s: c for s, c in db.execute("SELECT s.sys, s.count FROM syscalls s JOIN runs r "
                                        "ON r.id = s.run_id WHERE r.label = ?", (label,))}
a, b = per_sys("full"), per_sys("segs")
ia, ib = (json.load(open(p))["ops"] for p in sys.argv[2:4])
if a != ia or b != ib:
    sys.exit(f"report and info differ: full {a} / {ia}, segments {b} / {ib}")
if os.environ["SAME"] == "1" and a != b:
    sys.exit(f"syscalls: full {a}, segments {b}")
PY

# export fio of the segments: the same I/O as of the unrotated log (both
# captures ran in $W), and a job file naming every segment
"$RIOT" export fio "$IT_TMP/full.riot" -o "$IT_TMP/exf" >"$IT_TMP/exf.out" || fail "export full"
"$RIOT" export fio "${SEG[@]}" -o "$IT_TMP/exs" >"$IT_TMP/exs.out" || fail "export segments"
grep -v '^exported\|^  duration\|^next' "$IT_TMP/exf.out" >"$IT_TMP/exf.sum"
grep -v '^exported\|^  duration\|^next' "$IT_TMP/exs.out" >"$IT_TMP/exs.sum"
cmp -s "$IT_TMP/exf.sum" "$IT_TMP/exs.sum" ||
	fail "export of the segments: $(diff "$IT_TMP/exf.sum" "$IT_TMP/exs.sum" | head -5)"
[ "$(cat "$IT_TMP"/exf/*.iolog | wc -l)" -eq "$(cat "$IT_TMP"/exs/*.iolog | wc -l)" ] ||
	fail "export of the segments: iolog lines differ"
grep -qF "riot init ${SEG[*]} --root" "$IT_TMP/exs/riot.fio" ||
	fail "the job file does not name every segment"

# --- a middle segment alone: its start state resolves everything ---
MID=${SEG[$((${#SEG[@]} / 2))]}
for s in "${SEG[1]}" "$MID"; do
	"$RIOT" info --json "$s" >"$IT_TMP/one.json" || fail "info $s"
	rm -rf "$IT_TMP/root"
	mkdir "$IT_TMP/root"
	"$RIOT" replay "$s" --root "$IT_TMP/root" --json >"$IT_TMP/rep.json" 2>"$IT_TMP/rep.err" ||
		fail "replay of $s alone: $(cat "$IT_TMP/rep.err")"
	python3 - "$IT_TMP/one.json" "$IT_TMP/rep.json" "$s" <<'PY' || fail "replay of $s alone"
import json, sys
info = json.load(open(sys.argv[1]))
rep = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: {got} != {want}")
eq("unresolved fds", info["unresolved_fds"], 0)
eq("unknown cwd", info["unknown_cwd"], 0)
eq("snap_proc", info["records"].get("snap_proc"), 1)
eq("ops", rep["ops"], info["syscalls"])
eq("divergences", rep["divergences"], 0)
eq("skipped", rep["skipped"], 0)
eq("unreplayable", rep["unreplayable"], 0)
# every call but lseek (state only) is issued
eq("issued", rep["issued"], info["syscalls"] - info["ops"].get("lseek", 0))
eq("bytes read", rep["bytes_read"], info["bytes_read"])
eq("bytes written", rep["bytes_written"], info["bytes_written"])
if bad:
    sys.exit(f"{sys.argv[3]}: " + "; ".join(bad))
PY
done
# the middle segment restates keep.dat open O_RDWR where the round left
# it: at its end (after the write, the pread or the read of the block
# just written), or a block before it (a cut between the lseek back and
# the read)
"$RIOT" dump --type snap_fd "$MID" >"$IT_TMP/snap.txt" || fail "dump $MID"
python3 - "$IT_TMP/snap.txt" "$W/keep.dat" <<'PY' ||
import re, sys
lines = [l for l in open(sys.argv[1]) if f"path={sys.argv[2]} " in l]
m = re.search(r" flags=2 .*pos=(\d+) size=(\d+) ", lines[0]) if len(lines) == 1 else None
pos, size = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
sys.exit(0 if size > 0 and size % 4096 == 0 and pos in (size, size - 4096) else 1)
PY
	fail "$MID restates keep.dat so: $(grep keep.dat "$IT_TMP/snap.txt")"

capture time.riot 600 2000 --rotate-time 0.4
mapfile -t TSEG < <(segments time)
[ ${#TSEG[@]} -ge 3 ] || fail "--rotate-time 0.4 of a run over 1.2 s made ${#TSEG[@]} segments"
info_check time 600 "${TSEG[@]}"

# --- --keep 2: exactly the two newest stay, and read as one log ---
"$RIOT" capture -o "$IT_TMP/keep2.riot" --rotate-time 0.3 --keep 2 -- "$BIN/rotwork" "$W" 600 2000 \
	>/dev/null 2>"$IT_TMP/keep2.err" </dev/null || fail "capture keep2"
n=$(sed -n 's/.*segments *\([0-9]*\) written.*/\1/p' "$IT_TMP/keep2.err")
[ -n "$n" ] && [ "$n" -ge 3 ] || fail "--keep run wrote '$n' segments, expected 3 or more"
mapfile -t K2 < <(segments keep2)
[ "${K2[*]}" = "$(printf '%s/keep2.%06d.riot %s/keep2.%06d.riot' "$IT_TMP" $((n - 1)) "$IT_TMP" "$n")" ] ||
	fail "--keep 2 of $n segments left ${K2[*]}"
"$RIOT" info "${K2[@]}" >/dev/null || fail "the kept segments do not read as one log"

# --- SIGHUP: one signal, one more segment ---
"$RIOT" capture -q -o "$IT_TMP/hup.riot" --rotate-time 3600 -- "$BIN/rotwork" "$W" 400 5000 \
	>/dev/null 2>"$IT_TMP/hup.err" </dev/null &
RPID=$!
IT_PIDS+=("$RPID")
wait_until "the first segment" 100 test -s "$IT_TMP/hup.000001.riot"
sleep 0.5
kill -HUP "$RPID"
wait "$RPID" || fail "capture with SIGHUP: $(cat "$IT_TMP/hup.err")"
mapfile -t HSEG < <(segments hup)
[ ${#HSEG[@]} -eq 2 ] || fail "one SIGHUP made ${#HSEG[@]} segments, expected 2"
info_check hup 400 "${HSEG[@]}"

# --- refused lists: one line, exit 1 ---
refused() {
	local want=$1
	shift
	"$RIOT" info "$@" >/dev/null 2>"$IT_TMP/ref.err"
	local rc=$?
	[ $rc -eq 1 ] || fail "info $* exited $rc, expected 1"
	[ "$(wc -l <"$IT_TMP/ref.err")" -eq 1 ] || fail "info $*: $(cat "$IT_TMP/ref.err")"
	grep -q "$want" "$IT_TMP/ref.err" || fail "info $*: '$(cat "$IT_TMP/ref.err")' lacks '$want'"
}
refused "segment 1 cannot follow segment 2" "${SEG[1]}" "${SEG[0]}"
refused "segment 3 cannot follow segment 1" "${SEG[0]}" "${SEG[2]}"
refused "segment of another capture" "${SEG[0]}" "${TSEG[1]}"
refused "not a segment of a rotated capture" "$IT_TMP/full.riot" "${SEG[0]}"
mkdir -p "$IT_TMP/rroot"
"$RIOT" replay "${SEG[1]}" "${SEG[0]}" --root "$IT_TMP/rroot" >/dev/null 2>&1 &&
	fail "replay of segments out of order ran"
[ -z "$(ls -A "$IT_TMP/rroot")" ] || fail "replay of segments out of order touched the root"

# --- usage errors: one line, exit 2, nothing written ---
usage() {
	"$RIOT" capture "$@" -- /bin/true >/dev/null 2>"$IT_TMP/use.err"
	local rc=$?
	[ $rc -eq 2 ] || fail "capture $* exited $rc, expected 2"
	[ "$(grep -c '^riot' "$IT_TMP/use.err")" -eq 1 ] || fail "capture $*: $(cat "$IT_TMP/use.err")"
}
usage -o "$IT_TMP/u.riot" --rotate 0
usage -o "$IT_TMP/u.riot" --rotate 5X
usage -o "$IT_TMP/u.riot" --rotate 1KB
usage -o "$IT_TMP/u.riot" --rotate-time 0
usage -o "$IT_TMP/u.riot" --keep 3
usage -o "$IT_TMP/u.riot" --rotate 1M --keep 0
usage -o "$IT_TMP/u" --rotate 1M
usage -o "$IT_TMP/.riot" --rotate 1M
usage -o "$IT_TMP/u.riot" --rotate 1M --block
ls "$IT_TMP"/u.* "$IT_TMP/u" 2>/dev/null && fail "a usage error left a file"
echo "PASS: rotation: ${#SEG[@]} size segments, ${#TSEG[@]} time segments, keep, SIGHUP, refusals"
