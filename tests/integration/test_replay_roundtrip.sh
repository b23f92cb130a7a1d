#!/usr/bin/env bash
# capture, then replay with both engines: the tree under the root equals the
# one the original run produced (paths, types, sizes), per-syscall counts
# and bytes equal the capture's, and nothing diverges. Workloads: the demo
# workload (threads writing, reading, renaming, fsyncing, deleting) and
# tar -xf of a small archive.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
[ -x "$BIN/demo_workload" ] || fail "$BIN/demo_workload is missing"
command -v tar >/dev/null || fail "tar is required"

roundtrip() { # NAME OUTDIR: replays $IT_TMP/NAME.riot with both engines
	local name=$1 out=$2 e
	tree_of "$out" >"$IT_TMP/$name.orig"
	[ -s "$IT_TMP/$name.orig" ] || fail "$name: the original run made no tree"
	"$RIOT" info --json "$IT_TMP/$name.riot" >"$IT_TMP/$name.info" || fail "riot info $name"
	for e in uring sync; do
		local root=$IT_TMP/root-$name-$e
		replay_json "$IT_TMP/$name.riot" "$root" --engine "$e"
		tree_of "$root$out" >"$IT_TMP/$name.$e"
		diff -u "$IT_TMP/$name.orig" "$IT_TMP/$name.$e" >&2 ||
			fail "$name ($e): the replayed tree differs"
		same_counts "$IT_TMP/$name.info"
		[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$name ($e): divergences"; }
		[ "$(jget issued)" -gt 0 ] || fail "$name ($e): nothing issued"
		echo "$name ($e): tree, counts and bytes as captured, no divergence"
	done
}

W=$IT_TMP/demo
mkdir -p "$W"
"$RIOT" capture -q -o "$IT_TMP/demo.riot" -- "$BIN/demo_workload" --dir "$W" --threads 4 --files 12 \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture of demo_workload"; }
roundtrip demo "$W"

# tar: an archive made before the capture, extracted under it
mkdir -p "$IT_TMP/src/a/b" "$IT_TMP/x"
for i in 1 2 3 4 5 6; do head -c $((i * 5000)) /dev/urandom >"$IT_TMP/src/a/f$i"; done
head -c 70000 /dev/urandom >"$IT_TMP/src/a/b/big"
ln -s f1 "$IT_TMP/src/a/link"
tar -cf "$IT_TMP/in.tar" -C "$IT_TMP/src" a
"$RIOT" capture -q -o "$IT_TMP/tar.riot" -- tar -xf "$IT_TMP/in.tar" -C "$IT_TMP/x" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture of tar"; }
roundtrip tar "$IT_TMP/x"

# One captured thread alone on its worker: the uring engine runs the calls
# io_uring would hand to its kernel threads itself (a write once the file
# has a real fd, namespace calls, stat by path) and counts each; the tree
# and the counts stay those of the capture.
capture_workload rw ns
"$RIOT" info --json "$LOG" >"$IT_TMP/one.info" || fail "riot info (rw ns)"
replay_json "$LOG" "$IT_TMP/root-one" --engine uring --workers 1
same_counts "$IT_TMP/one.info"
[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "rw ns (uring): divergences"; }
python3 - "$IT_TMP/replay.json" <<'PY' || fail "rw ns (uring): wrong calls run inline"
import json, sys
r = json.load(open(sys.argv[1]))
got = {k: v["inline"] for k, v in r["syscalls"].items() if v.get("inline")}
# rw: the first of three writes fetches the file's real fd; ns: every
# namespace call (mknod has no io_uring op: it is a fallback).
want = {"write": 2, "mkdir": 1, "mkdirat": 1, "rename": 1, "renameat": 1, "renameat2": 1,
        "link": 1, "linkat": 1, "symlink": 1, "symlinkat": 1, "unlink": 5, "unlinkat": 3,
        "rmdir": 1}
if got != want or r["inline"] != sum(want.values()):
    print("inline: %r (total %r), expected %r" % (got, r["inline"], want))
    sys.exit(1)
PY
tree_of "$W" >"$IT_TMP/one.orig"
tree_of "$IT_TMP/root-one$W" >"$IT_TMP/one.uring"
diff -u "$IT_TMP/one.orig" "$IT_TMP/one.uring" >&2 || fail "rw ns (uring): the replayed tree differs"
replay_json "$LOG" "$IT_TMP/root-one-sync" --engine sync
[ "$(jget inline)" = 0 ] || fail "rw ns (sync): calls counted as run inline"
echo "rw ns: 20 calls run inline by the uring worker, tree and counts as captured"
