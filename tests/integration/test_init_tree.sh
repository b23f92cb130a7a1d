#!/usr/bin/env bash
# test_init_tree: `riot init` derives exactly the tree a workload expected
# (the rules of replay/init.h), creates it, and a re-run removes what the
# workload creates itself. Needs no privilege.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/test_init_lib.bash"

LOG=$IT_TMP/tree.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
# a snapshot fd at position 300 reads 500 more: size at start stays 1000
# a.bin: lseek 10000 + read 2000 + 100 more through a dup: 12100
# b.bin: stat 5000 before the workload writes; what it sees after is its own
# trunc: O_TRUNC open; out/new.txt, absent.txt, dst: created (absent.txt
# after an ENOENT); tmpdir/f and d2/inner: beneath created/renamed dirs
# old.name: rename source; lock: unlinked before it is created
# cur: readlink; dangling: lstat only (no target); emptydir: O_DIRECTORY
# acc: access; exists: mkdir EEXIST; fifo, sock: special; /proc, /dev,
# /sys: pseudo; very/long/cut: truncated; src: furthest copy_file_range
# read 4096; fs: fstat; sub/x.txt: relative after chdir; caf\xe9: bytes
snap_proc pid=100 cwd=/w
snap_fd pid=100 fd=5 path=/w/log.txt flags=O_RDWR pos=300 size=1000 ftype=reg
read fd=5 count=500 ret=500
openat dirfd=AT_FDCWD path=data/a.bin flags=O_RDONLY ret=3 size=4096 ftype=reg created=0
lseek fd=3 off=10000 cmd=0 ret=10000
read fd=3 count=4096 ret=2000
dup fd=3 ret=4
read fd=4 count=100 ret=100
close fd=3 ret=0
close fd=4 ret=0
stat path=/w/data/b.bin ret=0 size=5000 ftype=reg
openat dirfd=AT_FDCWD path=/w/data/b.bin flags=O_RDWR ret=3 size=5000 ftype=reg created=0
pwrite64 fd=3 off=0 count=9000 ret=9000
stat path=/w/data/b.bin ret=0 size=9000 ftype=reg
pread64 fd=3 off=0 count=9000 ret=9000
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/trunc flags=O_WRONLY|O_TRUNC ret=3 size=0 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/out/new.txt flags=O_WRONLY|O_CREAT ret=3 size=0 ftype=reg created=1
write fd=3 count=10 ret=10
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/out/old.txt flags=O_WRONLY|O_CREAT ret=3 size=77 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/absent.txt flags=O_RDONLY ret=-ENOENT
openat dirfd=AT_FDCWD path=/w/absent.txt flags=O_WRONLY|O_CREAT ret=3 size=0 ftype=reg created=1
close fd=3 ret=0
mkdir path=/w/tmpdir mode=0755 ret=0
openat dirfd=AT_FDCWD path=/w/tmpdir/f flags=O_RDONLY ret=3 size=50 ftype=reg created=0
close fd=3 ret=0
rename path=/w/old.name path2=/w/new.name ret=0
stat path=/w/new.name ret=0 size=300 ftype=reg
unlink path=/w/lock ret=0
openat dirfd=AT_FDCWD path=/w/lock flags=O_WRONLY|O_CREAT|O_EXCL ret=3 size=0 ftype=reg created=1
close fd=3 ret=0
rmdir path=/w/olddir ret=0
readlink path=/w/cur path2=data/a.bin ret=10
lstat path=/w/dangling ret=0 ftype=lnk size=5
openat dirfd=AT_FDCWD path=/w/emptydir flags=O_RDONLY|O_DIRECTORY ret=3 size=4096 ftype=dir created=0
getdents64 fd=3 count=4096 ret=0
close fd=3 ret=0
access path=/w/acc mode=0 ret=0
mkdir path=/w/exists mode=0755 ret=-EEXIST
stat path=/w/fifo ret=0 ftype=fifo
stat path=/w/sock ret=0 ftype=sock
openat dirfd=AT_FDCWD path=/proc/self/maps flags=O_RDONLY ret=3 size=0 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/dev/null flags=O_RDWR ret=3 ftype=chr created=0
close fd=3 ret=0
stat path=/sys/kernel ret=0 ftype=dir
openat dirfd=AT_FDCWD path=/w/very/long/cut! flags=O_RDONLY ret=3 size=10 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/src flags=O_RDONLY ret=3 size=100 ftype=reg created=0
openat dirfd=AT_FDCWD path=/w/dst flags=O_WRONLY|O_CREAT ret=4 size=0 ftype=reg created=1
copy_file_range fd=3 fd2=4 off=0 count=4096 ret=4096
close fd=3 ret=0
close fd=4 ret=0
openat dirfd=AT_FDCWD path=/w/fs flags=O_RDONLY ret=3
fstat fd=3 ret=0 size=2222 ftype=reg
close fd=3 ret=0
chdir path=sub ret=0
openat dirfd=AT_FDCWD path=x.txt flags=O_RDONLY ret=3 size=11 ftype=reg created=0
close fd=3 ret=0
openat dirfd=AT_FDCWD path=/w/d1/inner flags=O_RDONLY ret=3 size=3 ftype=reg created=0
close fd=3 ret=0
rename path=/w/d1 path2=/w/d2 ret=0
openat dirfd=AT_FDCWD path=/w/d2/inner flags=O_RDONLY ret=3 size=3 ftype=reg created=0
close fd=3 ret=0
stat path=/w/caf\xe9 ret=0 size=5 ftype=reg
EOF

cat >"$IT_TMP/want" <<'EOF'
dir /w
dir /w/d1
dir /w/data
dir /w/emptydir
dir /w/exists
dir /w/olddir
dir /w/out
dir /w/sub
file /w/acc 0
file /w/caf\xe9 5
file /w/d1/inner 3
file /w/data/a.bin 12100
file /w/data/b.bin 5000
file /w/fs 2222
file /w/lock 0
file /w/log.txt 1000
file /w/old.name 0
file /w/out/old.txt 77
file /w/src 4096
file /w/sub/x.txt 11
file /w/trunc 0
symlink /w/cur -> data/a.bin
EOF
# summary REMOVED: init's summary line, REMOVED files removed
summary() { echo "init: 8 dirs, 13 files, 24514 bytes (23.9 KiB), 1 symlinks; removed $1; skipped: pseudo 3 special 2 truncated 1 no_target 1 hostile 0; failed 0;"; }

# the dry run lists the same tree and touches nothing
"$RIOT" init --dry-run "$LOG" >"$IT_TMP/plan" 2>"$IT_TMP/err" ||
	fail "dry run exited $?: $(cat "$IT_TMP/err")"
grep -v '^init: ' "$IT_TMP/plan" | sort >"$IT_TMP/plan.sorted"
diff -u "$IT_TMP/want" "$IT_TMP/plan.sorted" || fail "dry-run tree differs"
expect_summary "$IT_TMP/plan" "$(summary 0)"

R=$IT_TMP/root
"$RIOT" init "$LOG" --root "$R" >"$IT_TMP/out" 2>"$IT_TMP/err" ||
	fail "init exited $?: $(cat "$IT_TMP/err")"
[ ! -s "$IT_TMP/err" ] || fail "init wrote to stderr (not a terminal): $(cat "$IT_TMP/err")"
expect_summary "$IT_TMP/out" "$(summary 0)"
tree_of "$R" >"$IT_TMP/got"
diff -u "$IT_TMP/want" "$IT_TMP/got" || fail "created tree differs"
[ "$(head -n 1 "$R/.riot-root")" = "riot replay root" ] || fail "marker content"

# a re-run removes what the workload makes itself and rewrites the rest
mkdir -p "$R/w/tmpdir/deeper" "$R/w/d2"
echo stale >"$R/w/tmpdir/deeper/f"
echo stale >"$R/w/new.name"
echo stale >"$R/w/absent.txt"
echo junk >"$R/w/data/a.bin"
"$RIOT" init "$LOG" --root "$R" >"$IT_TMP/out" 2>"$IT_TMP/err" ||
	fail "re-init exited $?: $(cat "$IT_TMP/err")"
expect_summary "$IT_TMP/out" "$(summary 4)"
tree_of "$R" >"$IT_TMP/got"
diff -u "$IT_TMP/want" "$IT_TMP/got" || fail "re-created tree differs"
echo PASS
