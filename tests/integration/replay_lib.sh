# shellcheck shell=bash
# tests/integration/replay_lib.sh: helpers of the replay tests, sourced after
# lib.sh. RIOT, BIN and IT_TMP come from there.

# tree_of DIR: one line per entry beneath DIR: type, mode (not for
# symlinks), size (not for directories, whose size is the filesystem's
# business), path, and a symlink's target.
tree_of() {
	(cd "$1" && {
		find . -mindepth 1 ! -type d ! -type l -printf '%y %m %s %p\n'
		find . -mindepth 1 -type l -printf 'l %s %p -> %l\n'
		find . -mindepth 1 -type d -printf 'd %m %p\n'
	} | LC_ALL=C sort)
}

# replay_json LOG ROOT ARGS...: runs riot replay --json, output in
# $IT_TMP/replay.json; fails the test when replay fails.
replay_json() {
	local log=$1 root=$2
	shift 2
	"$RIOT" replay "$log" --root "$root" --json "$@" >"$IT_TMP/replay.json" 2>"$IT_TMP/replay.err" ||
		fail "riot replay $* exited $?: $(head -c 800 "$IT_TMP/replay.err")"
}

# jget KEY...: a value of $IT_TMP/replay.json ("syscalls openat ops").
jget() {
	python3 - "$IT_TMP/replay.json" "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v.get(k, 0) if isinstance(v, dict) else 0
print(v)
PY
}

# same_counts INFO_JSON: per-syscall counts and the bytes read and written
# of the replay equal the capture's.
same_counts() {
	python3 - "$1" "$IT_TMP/replay.json" <<'PY' || fail "replay counts differ from the capture's"
import json, sys
cap = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
bad = []
for name, n in cap["ops"].items():
    got = rep["syscalls"].get(name, {}).get("ops", 0)
    if got != n:
        bad.append("%s: captured %d, replayed %d" % (name, n, got))
for name in rep["syscalls"]:
    if name not in cap["ops"]:
        bad.append("%s: replayed but not captured" % name)
# bytes of ops riot does not replay (files under /proc, mmap) are reported
# apart; together they must be the capture's
for k in ("bytes_read", "bytes_written"):
    got = rep[k] + rep[k.replace("bytes_", "bytes_") + "_not_replayed"]
    if cap[k] != got:
        bad.append("%s: captured %d, replayed %d + %d not replayed" %
                   (k, cap[k], rep[k], rep[k + "_not_replayed"]))
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# replay_treats WHAT ISSUED UNREPLAYABLE [STATE]: in $IT_TMP/replay.json,
# every op of each syscall of ISSUED ("flock readahead") was issued, each
# NAME=N of UNREPLAYABLE ("ioctl=1 madvise=2") had N ops, all counted as
# not replayable, each NAME=N of STATE ("getcwd=1") N ops, all state only,
# and nothing diverged; fails the test naming WHAT otherwise.
replay_treats() {
	python3 - "$IT_TMP/replay.json" "$2" "$3" "${4:-}" <<'PY' || fail "$1: wrong treatment by the replay"
import json, sys
rep = json.load(open(sys.argv[1]))
sc, bad = rep["syscalls"], []
for op in sys.argv[2].split():
    s = sc.get(op, {})
    if s.get("issued") != s.get("ops") or not s.get("ops"):
        bad.append("%s not issued: %r" % (op, s))
for item in sys.argv[3].split():
    op, n = item.split("=")
    s = sc.get(op, {})
    if s.get("ops") != int(n) or s.get("unreplayable") != int(n):
        bad.append("%s: %r, expected %s counted as unreplayable" % (op, s, n))
for item in sys.argv[4].split():
    op, n = item.split("=")
    s = sc.get(op, {})
    if s.get("ops") != int(n) or s.get("state_only") != int(n):
        bad.append("%s: %r, expected %s counted as state only" % (op, s, n))
if rep.get("divergences"):
    bad.append("divergences: %r" % rep.get("divergences"))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}
