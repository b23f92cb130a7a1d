#!/usr/bin/env bash
# test_replay_relink: symlinks riot makes (at init, from the log's
# readlinks, and in replay, from its symlink calls) stay inside the root
# whatever the replayed renames do with them: directories holding links
# with absolute and climbing targets are renamed seven and eight levels up
# and down, a link itself is renamed up, two directories holding links at
# depths 6 and 1 are exchanged (RENAME_EXCHANGE), and a symlink is
# hard-linked to another depth. With both engines, every link under the root resolves
# (realpath, as any tool would) inside it, to exactly the place the log
# names, and no name riot rewrote links under is left.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"

OUT=$IT_TMP/x/victim			# outside the root: never reached
mkdir -p "$IT_TMP/x"
echo victim >"$OUT"
LOG=$IT_TMP/links.riot
"$BIN/mklog" -o "$LOG" <<EOF || fail "mklog"
snap_proc pid=100 cwd=/
readlink path=/a/b/c/d/e/f/g/h/link path2=$OUT ret=${#OUT}
readlink path=/a/b/c/d/e/f/g/h/in path2=/data/file ret=10
readlink path=/a/b/c/d/e/f/g/h/sub/rel path2=../../../../../../../../../data/file ret=36
readlink path=/a/b/c/d/e/f/g/h/down path2=ok ret=2
stat path=/data/file ret=0 size=100 ftype=reg
readlink path=/top/up path2=$OUT ret=${#OUT}
readlink path=/top/deep/in path2=/data/file ret=10
stat path=/p/q/r/s/t/u/v/w ret=0 ftype=dir
stat path=/m/n/o/p/q/r/s/t ret=0 ftype=dir
stat path=/z/y/x/w/v/u ret=0 ftype=dir
readlink path=/e/f/g/h/i/j/lk path2=$OUT ret=${#OUT}
readlink path=/q/lk path2=/data/file ret=10
symlink path=/m/n/o/p/q/r/s/t/made path2=$OUT ret=0
symlink path=/m/n/o/p/q/r/s/t/mine path2=/data/file ret=0
rename path=/a/b/c/d/e/f/g/h path2=/h ret=0
rename path=/top path2=/p/q/r/s/t/u/v/w/top ret=0
rename path=/m/n/o/p/q/r/s/t/made path2=/made ret=0
link path=/m/n/o/p/q/r/s/t/mine path2=/mine ret=0
rename path=/h path2=/z/y/x/w/v/u/h ret=0
rename path=/z/y/x/w/v/u/h/sub path2=/sub ret=0
renameat2 dirfd=AT_FDCWD path=/e/f/g/h/i/j dirfd2=AT_FDCWD path2=/q flags=RENAME_EXCHANGE ret=0
stat path=/p/q/r/s/t/u/v/w/top/deep/in ret=0 size=100 ftype=reg
stat path=/sub/rel ret=0 size=100 ftype=reg
EOF

# where each link must lead, beneath the root
expect="/z/y/x/w/v/u/h/link $OUT
/z/y/x/w/v/u/h/in /data/file
/z/y/x/w/v/u/h/down /z/y/x/w/v/u/h/ok
/sub/rel /data/file
/p/q/r/s/t/u/v/w/top/up $OUT
/p/q/r/s/t/u/v/w/top/deep/in /data/file
/made $OUT
/m/n/o/p/q/r/s/t/mine /data/file
/mine /data/file
/q/lk $OUT
/e/f/g/h/i/j/lk /data/file"

for e in sync uring; do
	root=$IT_TMP/root-$e
	replay_json "$LOG" "$root" --engine "$e"
	root=$(realpath "$root")
	[ "$(jget syscalls rename ops)" = 5 ] && [ "$(jget syscalls renameat2 ops)" = 1 ] ||
		fail "$e: $(jget syscalls rename ops) renames and $(jget syscalls renameat2 ops) renameat2 replayed, expected 5 and 1"
	[ "$(jget syscalls rename errors)$(jget syscalls renameat2 errors)" = 00 ] || fail "$e: a rename failed"
	n=0
	while IFS= read -r l; do
		r=$(realpath -m "$l")
		case $r in
		"$root"/*) ;;
		*) fail "$e: ${l#"$root"} -> $(readlink "$l") resolves to $r, outside the root" ;;
		esac
		n=$((n + 1))
	done < <(find "$root" -type l)
	[ "$n" = 11 ] || fail "$e: $n links under the root, expected 11"
	while read -r l want; do
		r=$(realpath -m "$root$l")
		[ "$r" = "$root$want" ] || fail "$e: $l -> $(readlink "$root$l") resolves to ${r#"$root"}, expected $want"
	done <<<"$expect"
	[ "$(wc -c <"$root/sub/rel")" = 100 ] || fail "$e: /sub/rel does not read the root's /data/file"
	[ -z "$(find "$root" -name '*.relink')" ] || fail "$e: a rewritten link's temporary name was left"
	[ "$(cat "$OUT")" = victim ] || fail "$e: the outside file changed"
	echo "$e: 11 links after 6 renames (one an exchange) and a hard link, all inside the root, each where the log says"
done
