#!/usr/bin/env bash
# test_confine_init: a hostile log cannot make `riot init` create, change,
# remove or read anything outside its root: symlinks from the log pointing
# at a sentinel directory, at / and climbing with "..", symlinks planted in
# the root by an earlier run, ".." in paths, /proc, /sys and /dev paths,
# paths too long, bytes that are not UTF-8. Needs no privilege.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/test_init_lib.bash"

U=riotesc$$x$RANDOM			# in every hostile name, to find strays
OUT=$IT_TMP/outside
R=$IT_TMP/root
mkdir -p "$OUT/sub" "$R"
echo secret >"$OUT/secret"
echo other >"$OUT/sub/other"

LOG=$IT_TMP/hostile.riot
"$BIN/mklog" -o "$LOG" <<EOF || fail "mklog"
snap_proc pid=100 cwd=/h/w
readlink path=/h/abs path2=$OUT ret=${#OUT}
stat path=/h/abs/secret ret=0 size=100 ftype=reg
stat path=/h/abs/$U-1 ret=0 size=100 ftype=reg
readlink path=/h/rel path2=../../../../../../../../..$OUT ret=$((27 + ${#OUT}))
stat path=/h/rel/sub/other ret=0 size=100 ftype=reg
readlink path=/h/slash path2=/ ret=1
stat path=/h/slash/$U-3 ret=0 size=10 ftype=reg
readlink path=/h/etc path2=/etc ret=4
stat path=/h/etc/passwd ret=0 size=5 ftype=reg
openat dirfd=AT_FDCWD path=../../../../../../tmp/$U-4 flags=O_RDONLY ret=3 size=7 ftype=reg created=0
openat dirfd=AT_FDCWD path=/h/plant/x flags=O_WRONLY|O_CREAT ret=4 size=0 ftype=reg created=1
openat dirfd=AT_FDCWD path=/h/plant2/secret flags=O_WRONLY|O_CREAT ret=5 size=0 ftype=reg created=1
stat path=/h/plant3 ret=0 size=3 ftype=reg
openat dirfd=AT_FDCWD path=/proc/self/root$OUT/$U-5 flags=O_RDONLY ret=6 size=9 ftype=reg created=0
stat path=/dev/shm/$U-6 ret=0 size=9 ftype=reg
stat path=/sys/$U-7 ret=0 size=9 ftype=reg
stat path=/h/\{700*$U/} ret=0 size=9 ftype=reg
stat path=/h/\{300*x}/$U-8 ret=0 size=9 ftype=reg
stat path=/h/\xff\xfe\x01-$U-9 ret=0 size=9 ftype=reg
EOF

# an earlier run (or a replay) left symlinks out of the root in it
mkdir -p "$R/h"
ln -s "$OUT" "$R/h/plant"
ln -s ../../../../../../../.. "$R/h/plant2"
ln -s "$OUT/secret" "$R/h/plant3"
echo "riot replay root" >"$R/.riot-root"

snapshot "$OUT" >/dev/null
before_out=$(snapshot "$OUT")
before_slash=$(ls -A /)
before_passwd=$(md5sum </etc/passwd)

"$RIOT" init "$LOG" --root "$R" >"$IT_TMP/out" 2>"$IT_TMP/err"
rc=$?
# through the planted and logged symlinks the paths resolve inside the
# root, where their parents do not exist, and a 300-byte name is too long:
# /h/rel/sub, /h/x..x (dirs), /h/abs/secret, /h/abs/U-1, /h/etc/passwd,
# /h/rel/sub/other, /h/x..x/U-8 (files) fail, counted
[ $rc -eq 1 ] || fail "init exited $rc, want 1 (entries that cannot be made): $(cat "$IT_TMP/err")"
grep -qx 'riot: init: 7 entries could not be created; first: /h/rel/sub: mkdir: No such file or directory' "$IT_TMP/err" ||
	fail "stderr: $(cat "$IT_TMP/err")"
expect_summary "$IT_TMP/out" 'init: 7 dirs, 9 files, 343 bytes (343 B), 4 symlinks; removed 0; skipped: pseudo 3 special 0 truncated 1 no_target 0 hostile 0; failed 7;'

[ "$(snapshot "$OUT")" = "$before_out" ] || fail "the sentinel directory changed or was read"
[ "$(ls -A /)" = "$before_slash" ] || fail "/ changed"
[ "$(md5sum </etc/passwd)" = "$before_passwd" ] || fail "/etc/passwd changed"
strays=$(find /tmp /var/tmp /etc /root /home /dev/shm -xdev -name "*$U*" 2>/dev/null | grep -v "^$R/")
[ -z "$strays" ] || fail "created outside the root: $strays"

# what resolves inside the root was made there
[ "$(stat -c %s "$R/$U-3")" = 10 ] || fail "/h/slash/$U-3 did not land at the root's top"
[ "$(stat -c %s "$R/tmp/$U-4")" = 7 ] || fail "../tmp/$U-4 not beneath the root"
[ "$(stat -c %s "$R/h/"$'\xff\xfe\x01'"-$U-9")" = 9 ] || fail "non-UTF-8 name"
# logged symlink targets are rewritten to lead nowhere but into the root,
# for any tool: absolute ones relative to the link's directory, climbing
# ones clamped at the top
[ "$(readlink "$R/h/abs")" = "..$OUT" ] || fail "/h/abs -> $(readlink "$R/h/abs"), want ..$OUT"
[ "$(readlink "$R/h/rel")" = "..$OUT" ] || fail "/h/rel -> $(readlink "$R/h/rel"), want ..$OUT"
[ "$(readlink "$R/h/slash")" = ".." ] || fail "/h/slash -> $(readlink "$R/h/slash"), want .."
[ "$(readlink "$R/h/etc")" = "../etc" ] || fail "/h/etc -> $(readlink "$R/h/etc"), want ../etc"
for l in abs rel slash etc; do
	case $(realpath -m "$R/h/$l") in "$R"|"$R"/*) ;; *) fail "/h/$l leads out of the root";; esac
done
# a planted symlink where the tree has a file is replaced, not written through
[ -f "$R/h/plant3" ] && [ ! -L "$R/h/plant3" ] && [ "$(stat -c %s "$R/h/plant3")" = 3 ] ||
	fail "planted symlink /h/plant3 not replaced by a file"
echo PASS
