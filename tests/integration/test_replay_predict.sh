#!/usr/bin/env bash
# A replay does the captured effect and predicts the program:
#  1. captured failures (formats/semantics.def): with both engines, a log's
#     copy_file_range and ioctl FICLONE that failed with EXDEV, a fallocate
#     with EOPNOTSUPP, an fsync with EIO and an open with EACCES are
#     accounted as captured without being issued; an open of a missing
#     file (ENOENT) and a mkdir of an existing directory (EEXIST) are
#     issued and fail the same way; nothing diverges and the copy is the
#     captured read and write, 65536 bytes.
#  2. a real `cp -a` from this filesystem onto an ext4 loop mount, where
#     FICLONE and copy_file_range fail with EXDEV: replayed under one root
#     (where both would succeed), each is accounted, not issued; the
#     replay writes exactly the captured bytes, with no divergence, and
#     the copied files have their sizes.
#  3. --timing think: each thread's call is due the captured gap after its
#     previous call's end: two stats 200 ms apart take at least 200 ms
#     (predicted_ns), captured_ns is the log's own span to the ns, and
#     the report's run row holds both with replay_timing 'think'.
#  5. git (init, add, commit, mv, commit, gc), captured whole, replays
#     with no divergence under thread order as under resource order, and
#     is not unreliable: under thread order
#     too, a parent's call after a child it waited for waits for the
#     child's last call, a read that got bytes from a pipe for the write
#     (git repack learns the new pack's name from pack-objects so), a
#     thread's call after its page fault for that page.
#  4. a replay that does not do the captured I/O (opens that succeeded in
#     the capture fail on an empty root, --no-init) starts its summary
#     with a warning line, says unreliable in --json and in the report, and
#     `riot compare` names no winner: its verdicts read "unreliable".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
for p in mkfs.ext4 losetup cp sqlite3; do command -v $p >/dev/null || fail "$p is required"; done

# ---- 1. failures of each kind, both engines ----
"$BIN/mklog" -o "$IT_TMP/failed.riot" <<'EOF' || fail "mklog"
snap_proc pid=100 cwd=/
openat dirfd=AT_FDCWD path=/d/src flags=O_RDONLY ret=3 size=65536 ftype=reg created=0
openat dirfd=AT_FDCWD path=/d/dst flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644 ret=4 size=0 ftype=reg created=1
ioctl fd=4 fd2=3 cmd=0x40049409 ret=-EXDEV
copy_file_range fd=3 fd2=4 count=65536 ret=-EXDEV
fallocate fd=4 mode=0 off=0 count=65536 ret=-EOPNOTSUPP
read fd=3 count=65536 ret=65536
write fd=4 count=65536 ret=65536
fsync fd=4 ret=-EIO
openat dirfd=AT_FDCWD path=/d/missing flags=O_RDONLY ret=-ENOENT
openat dirfd=AT_FDCWD path=/d/src flags=O_RDWR ret=-EACCES
mkdir path=/d mode=0755 ret=-EEXIST
close fd=3 ret=0
close fd=4 ret=0
EOF
for e in sync uring; do
	root=$IT_TMP/failed-$e
	replay_json "$IT_TMP/failed.riot" "$root" --engine "$e"
	python3 - "$IT_TMP/replay.json" "$e" <<'PY' || fail "failures replayed ($e)"
import json, sys
r = json.load(open(sys.argv[1]))
want = {"ops": 13, "issued": 8, "failed_as_captured": 5, "divergences": 0, "flips": 0,
        "skipped": 0, "unreliable": False, "bytes_written": 65536, "bytes_read": 65536}
bad = ["%s: %r, want %r" % (k, r[k], v) for k, v in want.items() if r[k] != v]
per = {k: (v["issued"], v["failed_as_captured"], v["errors"]) for k, v in r["syscalls"].items()}
want_per = {"openat": (3, 1, 1), "ioctl": (0, 1, 0), "copy_file_range": (0, 1, 0),
            "fallocate": (0, 1, 0), "fsync": (0, 1, 0), "mkdir": (1, 0, 1),
            "read": (1, 0, 0), "write": (1, 0, 0), "close": (2, 0, 0)}
if per != want_per:
    bad.append("per syscall (issued, failed as captured, errors): %r\n want %r" % (per, want_per))
for b in bad:
    print("%s: %s" % (sys.argv[2], b))
sys.exit(1 if bad else 0)
PY
	[ "$(stat -c %s "$root/d/dst")" = 65536 ] || fail "$e: /d/dst has $(stat -c %s "$root/d/dst") bytes"
done
echo "failures: 5 accounted as captured, 2 issued to fail the same way, 0 divergences (both engines)"

# ---- 2. cp -a across filesystems ----
LOOP=
cleanup_loop() {
	local m
	for m in "${IT_MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	IT_MOUNTS=()
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	it_cleanup
}
trap cleanup_loop EXIT
truncate -s 128M "$IT_TMP/e4.img" || fail "image"
LOOP=$(losetup -f --show "$IT_TMP/e4.img") || fail "no loop device"
mkfs.ext4 -F -q "$LOOP" >/dev/null 2>&1 || fail "mkfs.ext4"
mkdir -p "$IT_TMP/mnt" && mount "$LOOP" "$IT_TMP/mnt" || fail "mount"
IT_MOUNTS+=("$IT_TMP/mnt")
[ "$(stat -c %d "$IT_TMP")" != "$(stat -c %d "$IT_TMP/mnt")" ] || fail "the mount is on the same device"
SRC=$IT_TMP/src
mkdir -p "$SRC/sub"
head -c 100000 /dev/urandom >"$SRC/a"
head -c 5000 /dev/urandom >"$SRC/b"
head -c 70000 /dev/urandom >"$SRC/sub/c"
"$RIOT" capture -q -o "$IT_TMP/cp.riot" -- cp -a "$SRC" "$IT_TMP/mnt/dst" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture cp"; }
"$RIOT" dump --format jsonl "$IT_TMP/cp.riot" >"$IT_TMP/cp.jsonl" || fail "dump"
read -r NCLONE NCOPY NWRITTEN < <(python3 - "$IT_TMP/cp.jsonl" "$IT_TMP/mnt/dst" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in recs if str(r.get("path", "")).startswith(sys.argv[2]) or
        str(r.get("path2", "")).startswith(sys.argv[2])]
exdev = lambda op: sum(1 for r in mine if r.get("op") == op and r.get("ret") == -18)
written = sum(r["ret"] for r in mine if r.get("op") in ("write", "pwrite64") and r["ret"] > 0)
print(exdev("ioctl"), exdev("copy_file_range"), written)
PY
)
[ "$NCLONE" -ge 1 ] && [ "$NCOPY" -ge 1 ] ||
	fail "cp tried FICLONE $NCLONE and copy_file_range $NCOPY times with EXDEV: want both"
[ "$NWRITTEN" = 175000 ] || fail "cp wrote $NWRITTEN bytes, want 175000"
for e in sync uring; do
	root=$IT_TMP/cp-$e
	replay_json "$IT_TMP/cp.riot" "$root" --engine "$e"
	[ "$(jget syscalls ioctl failed_as_captured)" = "$NCLONE" ] ||
		fail "$e: ioctl failed as captured $(jget syscalls ioctl failed_as_captured), want $NCLONE"
	[ "$(jget syscalls ioctl issued)" = 0 ] || fail "$e: an ioctl was issued"
	[ "$(jget syscalls copy_file_range failed_as_captured)" = "$NCOPY" ] ||
		fail "$e: copy_file_range failed as captured $(jget syscalls copy_file_range failed_as_captured), want $NCOPY"
	[ "$(jget syscalls copy_file_range issued)" = 0 ] || fail "$e: a copy_file_range was issued"
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e: divergences"; }
	[ "$(jget flips)" = 0 ] || fail "$e: success turned failure"
	[ "$(jget bytes_written)" = 175000 ] || fail "$e: wrote $(jget bytes_written) bytes, want 175000"
	for f in a b sub/c; do
		[ "$(stat -c %s "$root$IT_TMP/mnt/dst/$f")" = "$(stat -c %s "$SRC/$f")" ] ||
			fail "$e: dst/$f has the wrong size"
	done
done
echo "cp -a: $NCLONE FICLONE and $NCOPY copy_file_range EXDEV accounted, 175000 bytes written as captured (both engines)"

# ---- 3. --timing think ----
"$BIN/mklog" -o "$IT_TMP/think.riot" <<'EOF' || fail "mklog think"
snap_proc pid=100 cwd=/
stat path=/t/a ret=0 size=10 ftype=reg t=1000000000 dur=500
stat path=/t/b ret=0 size=10 ftype=reg t=1200000000 dur=500
EOF
DB=$IT_TMP/r.db
for e in sync uring; do
	replay_json "$IT_TMP/think.riot" "$IT_TMP/think-$e" --engine "$e" --timing think \
		--report "$DB" --label "think-$e"
	[ "$(jget timing)" = think ] || fail "$e: timing $(jget timing)"
	[ "$(jget captured_ns)" = 200000500 ] || fail "$e: captured_ns $(jget captured_ns), want 200000500"
	p=$(jget predicted_ns)
	[ "$p" -ge 200000000 ] || fail "$e: predicted $p ns: the 200 ms gap was not kept"
	[ "$(sqlite3 "$DB" "SELECT replay_timing, captured_ns, predicted_ns = $p, unreliable
		FROM runs WHERE label = 'think-$e'")" = "think|200000500|1|0" ] ||
		fail "$e: the report's run row: $(sqlite3 "$DB" "SELECT replay_timing, captured_ns, predicted_ns, unreliable FROM runs WHERE label = 'think-$e'")"
done
replay_json "$IT_TMP/think.riot" "$IT_TMP/think-fast" --report "$DB" --label fast
[ "$(jget predicted_ns)" = None ] || fail "fast: predicted_ns $(jget predicted_ns)"
[ "$(sqlite3 "$DB" "SELECT replay_timing, predicted_ns IS NULL, captured_ns FROM runs WHERE label = 'fast'")" = \
	"fast|1|200000500" ] || fail "fast: the report's run row"
"$RIOT" compare "$DB" think-sync fast >"$IT_TMP/cmp.txt" 2>&1 || fail "compare: $(cat "$IT_TMP/cmp.txt")"
grep -q "^  run .*predicted" "$IT_TMP/cmp.txt" || grep -q "predicted" "$IT_TMP/cmp.txt" ||
	fail "compare shows no predicted row: $(cat "$IT_TMP/cmp.txt")"
echo "timing think: 2 stats 200 ms apart predicted $p ns, captured 200000500 ns"

# ---- 4. unreliable ----
"$BIN/mklog" -o "$IT_TMP/bad.riot" <<'EOF' || fail "mklog bad"
snap_proc pid=100 cwd=/
openat dirfd=AT_FDCWD path=/u/a flags=O_RDONLY ret=3 size=10 ftype=reg created=0
close fd=3 ret=0
stat path=/u/b ret=-ENOENT
EOF
mkdir -p "$IT_TMP/empty"
"$RIOT" replay "$IT_TMP/bad.riot" --root "$IT_TMP/empty" --no-init --report "$DB" --label bad \
	>"$IT_TMP/bad.out" 2>"$IT_TMP/bad.err" || fail "replay bad: $(cat "$IT_TMP/bad.err")"
head -n 1 "$IT_TMP/bad.out" | grep -q "^warning: not the captured I/O: 2 divergences (2 of them success against failure), 0 skipped, 0 unreplayable of 3 operations" ||
	fail "the summary does not start with the warning: $(head -n 2 "$IT_TMP/bad.out")"
[ "$(sqlite3 "$DB" "SELECT unreliable, warning LIKE 'warning: not the captured I/O%' FROM runs WHERE label = 'bad'")" = "1|1" ] ||
	fail "the report does not record the run unreliable"
"$RIOT" replay "$IT_TMP/bad.riot" --root "$IT_TMP/bad-json" --json >"$IT_TMP/replay.json" 2>/dev/null ||
	fail "replay bad --json"
[ "$(jget unreliable)" = False ] || fail "with init the same log is unreliable: $(jget warning)"
"$RIOT" replay "$IT_TMP/bad.riot" --root "$IT_TMP/empty" --no-init --json >"$IT_TMP/replay.json" 2>/dev/null ||
	fail "replay bad --json --no-init"
[ "$(jget unreliable)" = True ] && [ "$(jget flips)" = 2 ] || fail "json: unreliable $(jget unreliable), flips $(jget flips)"
"$RIOT" compare "$DB" fast bad >"$IT_TMP/cmp.txt" 2>&1 || fail "compare bad: $(cat "$IT_TMP/cmp.txt")"
grep -q "^warning: a run did not replay the captured I/O" "$IT_TMP/cmp.txt" || fail "compare: no warning"
grep -q "unreliable: warning: not the captured I/O" "$IT_TMP/cmp.txt" || fail "compare: the run is not marked"
"$RIOT" compare "$DB" fast bad --json >"$IT_TMP/cmp.json" 2>&1 || fail "compare --json"
python3 - "$IT_TMP/cmp.json" <<'PY' || fail "compare --json names a winner"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["unreliable"] is True
assert [r["unreliable"] for r in c["runs"]] == [False, True]
verdicts = [m["verdict"] for t in ("run", "classes", "syscalls") for row in c[t].values()
            for m in row.values()]
winners = [m["winner"] for t in ("run", "classes", "syscalls") for row in c[t].values()
           for m in row.values()]
assert verdicts and all(v in ("unreliable", "not comparable", "none") for v in verdicts), verdicts
assert "unreliable" in verdicts
assert all(w is None for w in winners), winners
PY
echo "unreliable: warning first, recorded in the report, compare names no winner"

# ---- 5. git under thread and resource order ----
G=$IT_TMP/mnt/g
mkdir -p "$G/src/sub"
for i in $(seq 1 40); do head -c $((i * 517)) /dev/urandom | od -An -tx1 >"$G/src/f$i"; done
cp "$G/src/f1" "$G/src/sub/a"
"$RIOT" capture -q -o "$IT_TMP/git.riot" -- sh -c 'cd "$1" && git init -q &&
	git add -A && git -c user.name=r -c user.email=r@l commit -qm one && git mv src src2 &&
	git -c user.name=r -c user.email=r@l commit -qm two && git gc -q' sh "$G" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture git"; }
for o in thread resource; do
	replay_json "$IT_TMP/git.riot" "$IT_TMP/git-$o" --order "$o"
	[ "$(jget divergences)" = 0 ] || {
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); [print(k, v["examples"]) for k, v in r["syscalls"].items() if v["examples"]]' "$IT_TMP/replay.json" >&2
		fail "git, $o order: $(jget divergences) divergences"; }
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); u={k: v["unreplayable"] for k, v in r["syscalls"].items() if v["unreplayable"]}; print("unreplayable:", u) if u else None' "$IT_TMP/replay.json"
	[ "$(jget unreliable)" = False ] || fail "git, $o order: $(jget warning)"
	[ "$(jget skip_reasons 'unresolved fd or cwd')" = 0 ] || fail "git, $o order: unresolved skips"
done
echo "git: 0 divergences under thread and resource order, reliable"
