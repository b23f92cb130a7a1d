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
