#!/usr/bin/env bash
# test_replay_fdlimit: `riot replay` says before it starts when the hard
# limit of open files is below what the log holds open at once, and how
# many that is: a log opening 600 files, closing 300 and opening 700 more
# peaks at 1000. Under `ulimit -n 64` one warning line names 1000 and 64,
# with init and with --no-init, with both engines; under a limit with room
# (1064 and more) there is none.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"

LOG=$IT_TMP/fds.riot
{
	echo "snap_proc pid=100 cwd=/"
	for i in $(seq 600); do
		echo "openat dirfd=AT_FDCWD path=/d/a$i flags=O_RDONLY ret=$((i + 2)) size=10 ftype=reg created=0"
	done
	for i in $(seq 300); do
		echo "close fd=$((i + 2)) ret=0"
	done
	for i in $(seq 700); do
		echo "openat dirfd=AT_FDCWD path=/d/b$i flags=O_RDONLY ret=$((i + 602)) size=10 ftype=reg created=0"
	done
} | "$BIN/mklog" -o "$LOG" || fail "mklog"

want="riot: replay: warning: the log holds up to 1000 files open at once, the hard limit of open files is 64 (ulimit -Hn): raise it to 1064 or more, or the calls beyond it fail with EMFILE"
for e in sync uring; do
	for init in "" --no-init; do
		root=$IT_TMP/root-$e$init
		(ulimit -n 64 && exec "$RIOT" replay "$LOG" --root "$root" --engine "$e" $init) \
			>"$IT_TMP/out" 2>"$IT_TMP/err"
		n=$(grep -c 'warning: the log holds' "$IT_TMP/err")
		[ "$n" = 1 ] || fail "$e $init: $n fd limit warnings under ulimit -n 64, expected 1: $(head -c 600 "$IT_TMP/err")"
		grep -qxF "$want" "$IT_TMP/err" || fail "$e $init: the warning reads: $(grep warning "$IT_TMP/err")"
		(ulimit -n 1064 && exec "$RIOT" replay "$LOG" --root "$root" --engine "$e" $init) \
			>"$IT_TMP/out" 2>"$IT_TMP/err" || fail "$e $init: replay under ulimit -n 1064: $(head -c 600 "$IT_TMP/err")"
		! grep -q 'warning: the log holds' "$IT_TMP/err" || fail "$e $init: a warning under ulimit -n 1064"
		echo "$e ${init:-init}: 1 warning (1000 files at once, limit 64) under 64, none under 1064"
	done
done
