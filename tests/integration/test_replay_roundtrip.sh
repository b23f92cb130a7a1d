#!/usr/bin/env bash
# capture real programs, then replay with both engines: the tree under the
# root equals the one the original run produced (paths, types, modes,
# sizes, symlink targets), per-syscall counts and bytes equal the
# capture's, and nothing diverges. Workloads: the demo workload (threads writing,
# reading, renaming, fsyncing, deleting), tar -xf of an archive with modes
# and a symlink, cp -a of a tree with user xattrs, git init/add/commit
# under every --order, sqlite3 in WAL mode, and a shell session with
# readlink, touch, chmod and test -x. No replay skips an op as unresolved,
# and riot info counts no unresolved fd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
[ -x "$BIN/demo_workload" ] || fail "$BIN/demo_workload is missing"
for p in tar cp git sqlite3; do command -v $p >/dev/null || fail "$p is required"; done

# roundtrip NAME OUTDIR [ORDER...]: replays $IT_TMP/NAME.riot with both
# engines (under each ORDER, default resource)
roundtrip() {
	local name=$1 out=$2 e o
	shift 2
	tree_of "$out" >"$IT_TMP/$name.orig"
	[ -s "$IT_TMP/$name.orig" ] || fail "$name: the original run made no tree"
	"$RIOT" info --json "$IT_TMP/$name.riot" >"$IT_TMP/$name.info" || fail "riot info $name"
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["unresolved_fds"] != 0)' \
		"$IT_TMP/$name.info" || fail "$name: riot info counts unresolved fds"
	for o in "${@:-resource}"; do
		for e in uring sync; do
			local root=$IT_TMP/root-$name-$e-$o
			replay_json "$IT_TMP/$name.riot" "$root" --engine "$e" --order "$o"
			tree_of "$root$out" >"$IT_TMP/$name.$e"
			diff -u "$IT_TMP/$name.orig" "$IT_TMP/$name.$e" >&2 ||
				fail "$name ($e, $o): the replayed tree differs"
			same_counts "$IT_TMP/$name.info"
			[ "$(jget divergences)" = 0 ] ||
				{ cat "$IT_TMP/replay.json" >&2; fail "$name ($e, $o): divergences"; }
			[ "$(jget issued)" -gt 0 ] || fail "$name ($e, $o): nothing issued"
			# every skip has a reason that is no loss: no op on an
			# fd or cwd the capture did not see made
			[ "$(jget skip_reasons 'unresolved fd or cwd')" = 0 ] ||
				{ cat "$IT_TMP/replay.json" >&2; fail "$name ($e, $o): unresolved skips"; }
			echo "$name ($e, $o): tree, counts and bytes as captured, no divergence," \
			     "no unresolved skip"
		done
	done
}

# cap NAME CMD...: captures CMD into $IT_TMP/NAME.riot
cap() {
	local name=$1
	shift
	"$RIOT" capture -q -o "$IT_TMP/$name.riot" -- "$@" >/dev/null 2>"$IT_TMP/cap.err" </dev/null ||
		{ cat "$IT_TMP/cap.err" >&2; fail "capture of $name"; }
}

W=$IT_TMP/demo
mkdir -p "$W"
cap demo "$BIN/demo_workload" --dir "$W" --threads 4 --files 12
roundtrip demo "$W"

# tar: an archive made before the capture (modes 700, 750, 600, 755, a
# symlink), extracted under it
mkdir -p "$IT_TMP/src/a/b" "$IT_TMP/src/a/c" "$IT_TMP/x"
for i in 1 2 3 4 5 6; do head -c $((i * 5000)) /dev/urandom >"$IT_TMP/src/a/f$i"; done
head -c 70000 /dev/urandom >"$IT_TMP/src/a/b/big"
ln -s f1 "$IT_TMP/src/a/link"
chmod 700 "$IT_TMP/src/a/b"; chmod 750 "$IT_TMP/src/a/c"
chmod 600 "$IT_TMP/src/a/f2"; chmod 755 "$IT_TMP/src/a/f3"
tar -cf "$IT_TMP/in.tar" -C "$IT_TMP/src" a
cap tar tar -xf "$IT_TMP/in.tar" -C "$IT_TMP/x"
roundtrip tar "$IT_TMP/x"

# cp -a: modes, a symlink and user xattrs (cp also writes the ACL that
# stands for each mode)
mkdir -p "$IT_TMP/csrc/d"
for i in 1 2 3; do head -c $((i * 3000)) /dev/urandom >"$IT_TMP/csrc/d/f$i"; done
ln -s f1 "$IT_TMP/csrc/d/l"
chmod 750 "$IT_TMP/csrc/d"; chmod 600 "$IT_TMP/csrc/d/f1"; chmod 755 "$IT_TMP/csrc/d/f3"
python3 -c 'import os, sys
os.setxattr(sys.argv[1] + "/f1", "user.tag", b"hello")
os.setxattr(sys.argv[1] + "/f2", "user.bin", bytes(range(40)))' "$IT_TMP/csrc/d" ||
	fail "user xattrs on $IT_TMP (the test needs a file system with them)"
cap cpa cp -a "$IT_TMP/csrc" "$IT_TMP/cdst"
roundtrip cpa "$IT_TMP/cdst"
for e in uring sync; do
	python3 - "$IT_TMP/root-cpa-$e-resource$IT_TMP/cdst/d" <<'PY' || fail "cp -a ($e): xattrs of the copies"
import os, sys
d = sys.argv[1]
assert os.getxattr(d + "/f1", "user.tag") == b"hello", "user.tag"
assert os.getxattr(d + "/f2", "user.bin") == bytes(range(40)), "user.bin"
PY
done
echo "cp -a: the copies carry the captured xattr values"
# --map onto the directory cp -a makes: the map's directory is absent when
# the replay starts, as the destination was, so cp's own mkdir makes it
for e in uring sync; do
	replay_json "$IT_TMP/cpa.riot" "$IT_TMP/root-map-$e" --engine "$e" \
		--map "$IT_TMP/cdst=$IT_TMP/mapped-$e/dst"
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "cp -a --map ($e): divergences"; }
	tree_of "$IT_TMP/mapped-$e/dst" | diff -u "$IT_TMP/cpa.orig" - >&2 ||
		fail "cp -a --map ($e): the mapped tree differs"
	[ ! -e "$IT_TMP/mapped-$e/dst/.riot-root" ] || fail "cp -a --map ($e): a marker in the copy"
done
echo "cp -a --map: the destination is made by the replay, as captured"

# git: init, add, commit in a shell that waits for each command (and
# execs the last one), under every order
mkdir -p "$IT_TMP/g"
for i in 1 2 3; do echo "file $i" >"$IT_TMP/g/f$i"; done
cap git bash -c 'cd "$1" && git init -q && git add . &&
	git -c user.name=t -c user.email=t@example.org commit -qm one && git status --short' bash "$IT_TMP/g"
roundtrip git "$IT_TMP/g" thread resource strict

# sqlite3 in WAL mode: inserts, an index, a checkpoint
mkdir -p "$IT_TMP/sq"
cap sqlite sqlite3 "$IT_TMP/sq/db.sqlite" "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER, b TEXT);
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
	INSERT INTO t SELECT x, hex(randomblob(100)) FROM c; CREATE INDEX i ON t(b);
	PRAGMA wal_checkpoint(TRUNCATE); SELECT count(*) FROM t;"
roundtrip sqlite "$IT_TMP/sq"

# a shell session: readlink of a symlink and of a file, touch, chmod, test -x
mkdir -p "$IT_TMP/sh"
cap shell bash -c 'cd "$1" && mkdir d && touch d/a && echo hi >d/b && chmod 750 d/b &&
	ln -s b d/l && readlink d/l && ! readlink d/a && test -x d/b && test ! -x d/a &&
	touch d/a && chmod 600 d/a && chmod 700 d' bash "$IT_TMP/sh"
roundtrip shell "$IT_TMP/sh"

# One captured thread alone on its worker: the uring engine runs its calls
# itself, as the blocking syscalls the program made (opens, which keep a
# real fd of the file, so reads, writes and closes, the namespace calls,
# readlink, mknod, stat by path), and counts each; the tree and the counts
# stay those of the capture.
capture_workload rw ns
"$RIOT" info --json "$LOG" >"$IT_TMP/one.info" || fail "riot info (rw ns)"
replay_json "$LOG" "$IT_TMP/root-one" --engine uring --workers 1
same_counts "$IT_TMP/one.info"
[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "rw ns (uring): divergences"; }
python3 - "$IT_TMP/replay.json" <<'PY' || fail "rw ns (uring): wrong calls run inline"
import json, sys
r = json.load(open(sys.argv[1]))
got = {k: v["inline"] for k, v in r["syscalls"].items() if v.get("inline")}
# rw: its three opens, three writes, three reads and three closes (the
# open keeps a real fd); ns: every namespace call, readlink and mknod.
want = {"read": 3, "write": 3, "open": 1, "openat": 2, "close": 3, "mkdir": 1, "mkdirat": 1,
        "rename": 1,
        "renameat": 1, "renameat2": 1, "link": 1, "linkat": 1, "symlink": 1, "symlinkat": 1,
        "unlink": 5, "unlinkat": 3, "rmdir": 1, "readlink": 1, "readlinkat": 1, "mknod": 1,
        "mknodat": 1}
if got != want or r["inline"] != sum(want.values()):
    print("inline: %r (total %r), expected %r" % (got, r["inline"], want))
    sys.exit(1)
PY
tree_of "$W" >"$IT_TMP/one.orig"
tree_of "$IT_TMP/root-one$W" >"$IT_TMP/one.uring"
diff -u "$IT_TMP/one.orig" "$IT_TMP/one.uring" >&2 || fail "rw ns (uring): the replayed tree differs"
replay_json "$LOG" "$IT_TMP/root-one-sync" --engine sync
[ "$(jget inline)" = 0 ] || fail "rw ns (sync): calls counted as run inline"
echo "rw ns: 34 calls run inline by the uring worker, tree and counts as captured"
