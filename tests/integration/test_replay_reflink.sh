#!/usr/bin/env bash
# ioctl FICLONE and FICLONERANGE are replayed on the replayed files. On a
# loop-mounted xfs with reflink: `cp --reflink=always` (FICLONE) and
# xfs_io's reflink command (FICLONERANGE of one 64 KiB range) are captured
# with their source fd and range; replayed onto a root on a reflink xfs,
# both engines issue them, nothing diverges and the replayed files have
# the original sizes; replayed onto ext4, which has no reflink, each clone
# is issued and diverges with EOPNOTSUPP (not skipped).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
for p in mkfs.xfs mkfs.ext4 losetup xfs_io cp; do command -v $p >/dev/null || fail "$p is required"; done

LOOPS=()
cleanup_loops() {
	local m l
	for m in "${IT_MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	IT_MOUNTS=()
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	it_cleanup
}
trap cleanup_loops EXIT

# mkfs_mount NAME MKFS...: a 300 MiB image, its loop device, mounted at
# $IT_TMP/NAME
mkfs_mount() {
	local name=$1 dev
	shift
	truncate -s 300M "$IT_TMP/$name.img" || fail "image for $name"
	dev=$(losetup -f --show "$IT_TMP/$name.img") || fail "no loop device for $name"
	LOOPS+=("$dev")
	"$@" "$dev" >/dev/null 2>&1 || fail "$* $dev"
	mkdir -p "$IT_TMP/$name"
	mount "$dev" "$IT_TMP/$name" || fail "mount $dev ($name)"
	IT_MOUNTS+=("$IT_TMP/$name")
}
mkfs_mount cap mkfs.xfs -f -m reflink=1
mkfs_mount rx mkfs.xfs -f -m reflink=1
mkfs_mount e4 mkfs.ext4 -F -q

S=$IT_TMP/cap/src
mkdir -p "$S"
head -c 200000 /dev/urandom >"$S/a"
head -c 131072 /dev/urandom >"$S/b"
head -c 131072 /dev/urandom >"$S/c"
LOG=$IT_TMP/reflink.riot
"$RIOT" capture -q -o "$LOG" -- bash -c 'cp --reflink=always "$1/a" "$1/a2" &&
	xfs_io -c "reflink $1/b 65536 0 65536" "$1/c"' bash "$S" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture"; }
cmp -s "$S/a" "$S/a2" || fail "cp --reflink=always made no copy"
"$RIOT" info --json "$LOG" >"$IT_TMP/info.json" || fail "riot info"
"$RIOT" dump --format jsonl "$LOG" >"$IT_TMP/dump.jsonl" || fail "riot dump"
python3 - "$IT_TMP/dump.jsonl" "$S" <<'PY' || fail "the clones as captured"
import json, sys
FICLONE, FICLONERANGE = 0x40049409, 0x4020940d
s = sys.argv[2]
recs = [json.loads(l) for l in open(sys.argv[1])]
io = [r for r in recs if r.get("op") == "ioctl" and r.get("cmd") in (FICLONE, FICLONERANGE)]
got = [(r["cmd"], r["ret"], r.get("path"), r.get("path2"), r.get("off"), r.get("count"),
        r.get("off2")) for r in io]
want = [(FICLONE, 0, s + "/a2", s + "/a", None, None, None),
        (FICLONERANGE, 0, s + "/c", s + "/b", 65536, 65536, 0)]
if got != want:
    print("clones: %r\nwanted: %r" % (got, want))
    sys.exit(1)
PY
echo "capture: FICLONE a -> a2 and FICLONERANGE b[64K, +64K) -> c[0] with their files"

for e in uring sync; do
	root=$IT_TMP/rx/root-$e
	replay_json "$LOG" "$root" --engine "$e"
	same_counts "$IT_TMP/info.json"
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "xfs ($e): divergences"; }
	[ "$(jget syscalls ioctl issued)" = 2 ] || { cat "$IT_TMP/replay.json" >&2; fail "xfs ($e): clones not issued"; }
	[ "$(jget skip_reasons 'unresolved fd or cwd')" = 0 ] || fail "xfs ($e): unresolved skips"
	for f in a a2 b c; do
		[ "$(stat -c %s "$root$S/$f")" = "$(stat -c %s "$S/$f")" ] ||
			fail "xfs ($e): $f has $(stat -c %s "$root$S/$f") bytes, $(stat -c %s "$S/$f") captured"
	done
	cmp -s "$root$S/a" "$root$S/a2" || fail "xfs ($e): a2 is no clone of a"
	cmp -s "$root$S/b" "$root$S/c" -n 65536 -i 65536:0 || fail "xfs ($e): c[0, 64K) is not b[64K, 128K)"
	echo "xfs ($e): clones issued, 0 divergences, sizes as captured"

	root=$IT_TMP/e4/root-$e
	replay_json "$LOG" "$root" --engine "$e"
	python3 - "$IT_TMP/replay.json" <<'PY' || fail "ext4 ($e): the clones must diverge with EOPNOTSUPP"
import errno, json, sys
r = json.load(open(sys.argv[1]))
io = r["syscalls"].get("ioctl", {})
ex = io.get("examples", [])
bad = []
if r.get("divergences") != 2 or io.get("div_result") != 2 or io.get("issued") != 2:
    bad.append("divergences %r, ioctl %r" % (r.get("divergences"), io))
if sorted(x.get("replayed") for x in ex) != [-errno.EOPNOTSUPP] * 2:
    bad.append("examples %r" % ex)
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
	echo "ext4 ($e): both clones issued and diverged with EOPNOTSUPP"
done
