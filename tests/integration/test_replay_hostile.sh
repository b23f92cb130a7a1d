#!/usr/bin/env bash
# test_replay_hostile: hostile and extreme logs (tests/hostile/*.mklog,
# each described in its own header) on both engines: replay neither hangs
# nor sizes memory by what a log claims, moves at most MAX_RW_COUNT bytes
# per call, never opens a fifo, and exact counts say what was skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
HOSTILE=$IT_DIR/../hostile
mklog() { "$BIN/mklog" -o "$IT_TMP/$1.riot" "$HOSTILE/$1.mklog" || fail "mklog $1"; }

# hang_free LOG ROOT ARGS...: replay_json, but a replay still running after
# a minute is a hang (the ones below take well under a second).
hang_free() {
	local log=$1 root=$2 rc=0
	shift 2
	rm -rf "$root"
	timeout -k 5 60 "$RIOT" replay "$log" --root "$root" --json "$@" >"$IT_TMP/replay.json" \
		2>"$IT_TMP/replay.err" || rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "replay $* hung (killed after 60 s)"
	[ $rc -eq 0 ] || fail "riot replay $* exited $rc: $(head -c 800 "$IT_TMP/replay.err")"
}

# peak_rss_kb CMD...: runs CMD, prints its peak resident set in KiB.
peak_rss_kb() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -rc - 1)
PY
}

# -- item: counts of 2^32 + 10, 2^32 + 1, 2^32, 2^64 - 1 (bigrw.mklog) --
mklog bigrw
for e in uring sync; do
	# each write stops at 1 MiB (RLIMIT_FSIZE), so a correct count is seen
	# without writing 2 GiB
	rss=$(ulimit -f 1024; peak_rss_kb "$RIOT" replay "$IT_TMP/bigrw.riot" \
		--root "$IT_TMP/big-$e" --engine "$e" --json --report "$IT_TMP/big.db" \
		--label "big-$e")
	[ "$rss" -gt 0 ] || fail "$e: replay of bigrw failed ($rss)"
	[ "$rss" -lt 262144 ] || fail "$e: replay of a 4 GiB write took $rss KiB of memory"
	rm -rf "$IT_TMP/big-$e"
	(ulimit -f 1024; replay_json "$IT_TMP/bigrw.riot" "$IT_TMP/big-$e" --engine "$e")
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e: bigrw diverged"; }
	[ "$(jget syscalls pread64 bytes)" = $((100 + 1048576)) ] ||
		fail "$e: bigrw read $(jget syscalls pread64 bytes) bytes"
	[ "$(jget syscalls pwrite64 bytes)" = $((3 * 1048576)) ] ||
		fail "$e: bigrw wrote $(jget syscalls pwrite64 bytes) bytes"
	echo "$e: counts over 4 GiB move what one call moves, peak RSS $rss KiB"
done

# -- item: fifos (fifo.mklog, then a real capture of a shell's fifo) --
mklog fifo
for e in uring sync; do
	for o in thread resource strict; do
		hang_free "$IT_TMP/fifo.riot" "$IT_TMP/fifo-$e" --engine "$e" --order "$o"
		[ "$(jget skip_reasons 'device, fifo or socket')" = 7 ] ||
			fail "$e $o: $(jget skip_reasons 'device, fifo or socket') fifo ops skipped, expected 7"
		[ ! -p "$IT_TMP/fifo-$e/w/q" ] && [ ! -p "$IT_TMP/fifo-$e/w/p" ] ||
			fail "$e $o: a fifo was made in the root"
	done
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e: fifo diverged"; }
done
echo "fifo log: no hang on either engine in any order, 7 fifo ops skipped"
W=$IT_TMP/shell
mkdir -p "$W"
"$RIOT" capture -q -o "$IT_TMP/shfifo.riot" -- sh -c \
	"cd $W && mkfifo p && { cat p >/dev/null & echo hi >p; wait; } && rm p" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture of the shell fifo"; }
for e in uring sync; do
	for o in thread resource strict; do
		hang_free "$IT_TMP/shfifo.riot" "$IT_TMP/sh-$e" --engine "$e" --order "$o"
		[ "$(jget skip_reasons 'device, fifo or socket')" -ge 4 ] ||
			fail "$e $o: the shell's fifo opens, read and write were not skipped"
		# thread order may run rm before mkfifo: they are other processes
		[ "$o" = thread ] || [ ! -e "$IT_TMP/sh-$e$W/p" ] || fail "$e $o: p is left in the root"
		[ ! -p "$IT_TMP/sh-$e$W/p" ] || fail "$e $o: a fifo was made in the root"
	done
done
echo "shell fifo capture: no hang on either engine in any order"

# -- item: the root's marker through symlinks to the top (marker.mklog) --
mklog marker
for e in uring sync; do
	R=$IT_TMP/marker-$e
	replay_json "$IT_TMP/marker.riot" "$R" --engine "$e"
	[ "$(jget skip_reasons 'refused path')" = 6 ] ||
		fail "$e: $(jget skip_reasons 'refused path') marker ops refused, expected 6"
	[ "$(head -n 1 "$R/.riot-root")" = "riot replay root" ] || fail "$e: the marker was changed"
	[ ! -e "$R/gone" ] && [ ! -L "$R/m" ] || fail "$e: the marker was renamed, or linked to"
	replay_json "$IT_TMP/marker.riot" "$R" --engine "$e"	# the root is still riot's
done
echo "marker log: 6 ops refused, the marker intact, the root usable again"

# -- item: the root directory's own mode, owner, times (rootattr.mklog) --
mklog rootattr
for e in uring sync; do
	R=$IT_TMP/attr-$e
	mkdir -p "$R" && chmod 0750 "$R"
	replay_json "$IT_TMP/rootattr.riot" "$R" --engine "$e"
	[ "$(jget skip_reasons 'refused path')" = 7 ] ||
		fail "$e: $(jget skip_reasons 'refused path') root attribute ops refused, expected 7"
	[ "$(stat -c '%a %u:%g' "$R")" = "750 0:0" ] ||
		fail "$e: the root became $(stat -c '%a %u:%g' "$R")"
done
echo "rootattr log: 7 ops on the root itself refused, mode and owner kept"

# -- item: a full disk while the marker is written leaves no marker --
M=$IT_TMP/full
mkdir -p "$M" && mount -t tmpfs -o size=2m tmpfs "$M" || fail "mount tmpfs"
IT_MOUNTS+=("$M")
mklog bigrw
dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null
"$RIOT" init "$IT_TMP/bigrw.riot" --root "$M/r" >/dev/null 2>"$IT_TMP/err" && fail "init on a full disk succeeded"
grep -q "No space left on device" "$IT_TMP/err" || fail "init on a full disk: $(cat "$IT_TMP/err")"
[ ! -e "$M/r/.riot-root" ] || fail "a full disk left a marker of $(stat -c %s "$M/r/.riot-root") bytes"
rm "$M/fill"
"$RIOT" init "$IT_TMP/bigrw.riot" --root "$M/r" >/dev/null 2>"$IT_TMP/err" ||
	fail "init after the disk was freed: $(cat "$IT_TMP/err")"
[ "$(head -n 1 "$M/r/.riot-root")" = "riot replay root" ] || fail "no marker after a good init"
echo "full disk: no marker left behind, the next init works"

# -- item: the documented fio route (fioescape.mklog) --
mklog fioescape
V=/tmp/riot-hostile-fio
rm -rf "$V" && mkdir -p "$V" && printf keep1 >"$V/victim" || fail "cannot make $V"
R=$IT_TMP/fioroot
"$RIOT" init "$IT_TMP/fioescape.riot" --root "$R" >/dev/null 2>&1	# /w/link/victim has no parent there
[ "$(readlink "$R/w/link")" = "../tmp/riot-hostile-fio" ] ||
	fail "init made /w/link -> $(readlink "$R/w/link"), want ../tmp/riot-hostile-fio"
"$RIOT" export fio "$IT_TMP/fioescape.riot" -o "$IT_TMP/fio" --root "$R" >"$IT_TMP/out" ||
	fail "export fio"
grep -q "symlink      2" "$IT_TMP/out" || fail "export did not leave out the 2 ops through /w/link: $(cat "$IT_TMP/out")"
! grep -rq "link" "$IT_TMP/fio" || fail "an iolog names a path through /w/link"
(cd "$IT_TMP/fio" && fio riot.fio >"$IT_TMP/fio.out" 2>&1) || fail "fio: $(tail -5 "$IT_TMP/fio.out")"
[ "$(cat "$V/victim")" = keep1 ] || fail "fio wrote $V/victim through the root's symlink"
[ "$(stat -c %s "$R/w/plain")" = 4096 ] || fail "fio's own file is not in the root"
rm -rf "$V"
echo "fio route: the symlink stays in the root, fio wrote nothing outside"

# -- replay and init options: checked before the root is touched --
mklog bigrw
R=$IT_TMP/opts
"$RIOT" replay "$IT_TMP/bigrw.riot" --root "$R" --map /a/../b="$IT_TMP/opts-map" >/dev/null 2>&1 &&
	fail "a map prefix with .. was accepted"
"$RIOT" init "$IT_TMP/bigrw.riot" --root "$R" --map /a/./b="$IT_TMP/opts-map" >/dev/null 2>&1 &&
	fail "init took a map prefix with ."
"$RIOT" replay "$IT_TMP/bigrw.riot" --root "$R" --user riot-no-such-user >/dev/null 2>&1
[ $? = 2 ] || fail "--user riot-no-such-user is not a usage error"
"$RIOT" replay "$IT_TMP/bigrw.riot" --root "$R" --speed 1e-300 >/dev/null 2>&1
[ $? = 2 ] || fail "--speed 1e-300 is not a usage error"
[ ! -e "$R" ] && [ ! -e "$IT_TMP/opts-map" ] || fail "a refused option left $R or the map directory"
chmod 0755 "$IT_TMP" && chmod 0644 "$IT_TMP/bigrw.riot"	# read after the switch
(ulimit -f 1024; replay_json "$IT_TMP/bigrw.riot" "$R" --user 65534 --engine sync)
[ "$(jget syscalls openat issued)" = 1 ] || fail "--user 65534 did not replay"
echo "bad --map, --user, --speed refused before anything was made; --user 65534 taken"

# --map /=DIR takes every path
rm -rf "$R"
"$RIOT" init "$IT_TMP/bigrw.riot" --root "$R" --map /="$IT_TMP/opts-all" >/dev/null ||
	fail "init --map /=DIR"
[ -f "$IT_TMP/opts-all/w/data" ] && [ ! -e "$R/w" ] || fail "--map /=DIR was not applied"
echo "--map /=DIR: the whole tree goes there"

# the uring engine under a small fd limit
(ulimit -n 64; ulimit -f 1024; replay_json "$IT_TMP/bigrw.riot" "$IT_TMP/nofile" --engine uring)
[ "$(jget divergences)" = 0 ] || fail "uring under ulimit -n 64 diverged"
echo "uring engine runs under ulimit -n 64"
