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
