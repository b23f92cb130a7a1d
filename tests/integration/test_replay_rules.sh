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

# compare's fidelity: "diverged" counts the issued ops that came out
# otherwise, "skipped" the ops not issued, and a syscall none of whose ops
# was issued still has its line
"$BIN/mklog" -o "$IT_TMP/fid.riot" <<'EOF' || fail "mklog"
newfstatat dirfd=AT_FDCWD path=/t/d ret=0 size=4096 ftype=dir
openat dirfd=AT_FDCWD path=/t/d flags=O_WRONLY ret=3 size=4096 ftype=reg created=0
write fd=3 count=10 ret=10
close fd=3 ret=0
statx dirfd=AT_FDCWD path=/proc/self/stat ret=0 size=0 ftype=reg
statx dirfd=AT_FDCWD path=/dev/null ret=0 size=0 ftype=chr
EOF
DB=$IT_TMP/fid.db
"$RIOT" report "$IT_TMP/fid.riot" -o "$DB" --label cap >/dev/null 2>&1 || fail "riot report"
"$RIOT" replay "$IT_TMP/fid.riot" --root "$IT_TMP/root-fid" --report "$DB" --label rep \
	>/dev/null 2>"$IT_TMP/err" || fail "riot replay --report: $(cat "$IT_TMP/err")"
"$RIOT" compare "$DB" cap rep --json >"$IT_TMP/cmp.json" || fail "riot compare --json"
python3 - "$IT_TMP/cmp.json" <<'PY' || fail "compare's fidelity"
import json, sys
f = json.load(open(sys.argv[1]))["fidelity"][0]["syscalls"]
got = {k: (v["captured"], v["replayed"], v["diverged"], v["skipped"]) for k, v in f.items()}
want = {"newfstatat": (1, 1, 0, 0), "openat": (1, 1, 1, 0), "write": (1, 1, 1, 0),
        "close": (1, 1, 1, 0), "statx": (2, 0, 0, 2)}
if got != want:
    print("fidelity %r, want %r" % (got, want))
    sys.exit(1)
PY
"$RIOT" compare "$DB" cap rep >"$IT_TMP/cmp.txt" || fail "riot compare"
grep -Eq '^  statx +2 +0 .* 0 +2 +- +- +-$' "$IT_TMP/cmp.txt" ||
	{ cat "$IT_TMP/cmp.txt" >&2; fail "compare: the statx fidelity line"; }
echo "compare: diverged and skipped apart, a syscall with no replayed op kept"

# A thread's stream starts after its creator's ops before the fork: under
# every order the child reads the file its parent made after 2000 stats,
# never before (the sync engine gives each stream a thread of its own).
{
	for i in $(seq 2000); do echo "newfstatat dirfd=AT_FDCWD path=/k/in ret=0 size=10 ftype=reg"; done
	echo "openat dirfd=AT_FDCWD path=/k/made flags=O_WRONLY|O_CREAT|O_EXCL ret=3 size=0 ftype=reg created=1"
	echo "write fd=3 count=100 ret=100"
	echo "close fd=3 ret=0"
	echo "proc_fork pid=100 child=200"
	echo "clone pid=100 ret=200"
	echo "openat pid=200 dirfd=AT_FDCWD path=/k/made flags=O_RDONLY ret=3 size=100 ftype=reg created=0"
	echo "read pid=200 fd=3 count=100 ret=100"
	echo "close pid=200 fd=3 ret=0"
} | "$BIN/mklog" -o "$IT_TMP/fork.riot" || fail "mklog"
for o in thread resource strict; do
	for e in uring sync; do
		replay_json "$IT_TMP/fork.riot" "$IT_TMP/root-fork-$o-$e" --engine "$e" --order "$o"
		got=$(divs)
		[ "$got" = "0 " ] || fail "--order $o ($e): the child ran before its parent's ops: $got"
	done
done
echo "fork: the child's stream waits for its parent's earlier ops under every order"
