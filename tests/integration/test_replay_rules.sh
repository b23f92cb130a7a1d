#!/usr/bin/env bash
# Rules both replay engines follow, on logs written by hand (tests/bin/mklog):
# after an open that fails in the replay (where the capture's succeeded),
# every later op on that file, its close included, fails with EBADF, so
# both engines count the same divergences.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"

# divs: the divergence count, then "syscall:captured:replayed" of every
# divergence example of $IT_TMP/replay.json
divs() {
	python3 - "$IT_TMP/replay.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["divergences"], " ".join("%s:%d:%d" % (k, x["captured"], x["replayed"])
      for k, v in sorted(r["syscalls"].items()) for x in v["examples"]))
PY
}

# /t/d is a directory: opening it for writing fails with EISDIR
LOG=$IT_TMP/failed-open.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
newfstatat dirfd=AT_FDCWD path=/t/d ret=0 size=4096 ftype=dir
openat dirfd=AT_FDCWD path=/t/d flags=O_WRONLY ret=3 size=4096 ftype=reg created=0
write fd=3 count=10 ret=10
fsync fd=3 ret=0
close fd=3 ret=0
EOF
for e in uring sync; do
	replay_json "$LOG" "$IT_TMP/root-fo-$e" --engine "$e"
	got=$(divs)
	[ "$got" = "4 close:0:-9 fsync:0:-9 openat:3:-21 write:10:-9" ] ||
		fail "$e: after a failed open: $got"
done
echo "failed open: both engines count the open and the 3 later ops on its file, EBADF"
