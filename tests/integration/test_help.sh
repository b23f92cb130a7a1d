#!/usr/bin/env bash
# test_help: every command's --help tells what the command does. Each
# option a help lists is one its parser takes, by that name, and each
# option a parser takes is in its help (help_check.py); `riot help CMD`
# prints `riot CMD --help`; the values a help lists are the ones the
# command takes: replay's engines, capture's --ops classes, compare's
# classes; and no help says the workload's io_uring, AIO or mmap'ed I/O
# cannot be replayed (replay does replay it: test_replay_async).
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)

python3 "$IT_DIR/help_check.py" "$RIOT" "$TOP" || fail "a help and its parser disagree (above)"

# the commands riot --help lists, each with a help of its own
"$RIOT" --help >"$IT_TMP/riot.txt" || fail "riot --help exited $?"
cmds=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p' "$IT_TMP/riot.txt")
[ "$(wc -w <<<"$cmds")" -ge 12 ] || fail "riot --help lists: $cmds"
for c in $cmds; do
	"$RIOT" "$c" --help >"$IT_TMP/$c.txt" 2>"$IT_TMP/err" || fail "riot $c --help exited $?"
	[ ! -s "$IT_TMP/err" ] || fail "riot $c --help wrote to stderr: $(cat "$IT_TMP/err")"
	head -n 1 "$IT_TMP/$c.txt" | grep -q "^Usage: riot $c" || fail "riot $c --help: $(head -n 1 "$IT_TMP/$c.txt")"
	"$RIOT" help "$c" >"$IT_TMP/help-$c.txt" || fail "riot help $c exited $?"
	cmp -s "$IT_TMP/$c.txt" "$IT_TMP/help-$c.txt" || fail "riot help $c is not riot $c --help"
done
"$RIOT" import strace --help >"$IT_TMP/import-strace.txt" || fail "riot import strace --help"
"$RIOT" export fio --help >"$IT_TMP/export-fio.txt" || fail "riot export fio --help"

# replay's engines: those its help lists, and only those, are taken
LOG=$TOP/tests/golden/capture-1.8.riot
listed=$(sed -n '/^Engines (--engine):$/,$s/^  \([a-z]\+\) .*/\1/p' "$IT_TMP/replay.txt" | sort | paste -sd,)
"$RIOT" replay "$LOG" --root "$IT_TMP/r" --engine riot-no-such-engine --dry-run 2>"$IT_TMP/err" &&
	fail "replay took an unknown engine"
known=$(sed -n "s/.* is none of the engines: //p" "$IT_TMP/err" | tr -d ' ' | tr , '\n' | sort | paste -sd,)
[ -n "$known" ] && [ "$listed" = "$known" ] || fail "replay --help lists engines '$listed', replay takes '$known'"
for e in ${listed//,/ }; do
	"$RIOT" replay "$LOG" --root "$IT_TMP/r" --engine "$e" --dry-run >/dev/null 2>"$IT_TMP/err" ||
		fail "replay --engine $e --dry-run: $(cat "$IT_TMP/err")"
done

# capture --ops: the classes its help lists are the classes of the
# syscall table, each taken as @CLASS
helpcls=$(tr '\n' ' ' <"$IT_TMP/capture.txt" | sed -n 's/.* or classes (\([a-z_, ]*\);.*/\1/p' |
	tr -d ' ' | tr , '\n' | sort | paste -sd,)
srccls=$(sed -n '/class_names\[RIOT_CLASS_COUNT\]/,/^};/s/.*] = "\([a-z_]*\)",/\1/p' "$TOP/formats/syscalls.c" |
	sort | paste -sd,)
[ -n "$helpcls" ] && [ "$helpcls" = "$srccls" ] || fail "capture --help's classes '$helpcls', the table's '$srccls'"
for c in ${helpcls//,/ }; do
	"$RIOT" capture --ops "@$c" 2>"$IT_TMP/err"
	[ "$(head -n 1 "$IT_TMP/err")" = "riot: capture: -o FILE is required" ] ||
		fail "capture --ops @$c: $(cat "$IT_TMP/err")"
done

# compare's classes: those of the report
helpcls=$(tr '\n' ' ' <"$IT_TMP/compare.txt" | sed -n 's/.*per class (\([a-z_, ]*\)).*/\1/p' | tr -d ' ')
srccls=$(grep -m1 '^	"data_read", "data_write"' "$TOP/report/view.c" | tr -d '\t "' | sed 's/,$//')
[ -n "$helpcls" ] && [ "$helpcls" = "$srccls" ] || fail "compare --help's classes '$helpcls', the report's '$srccls'"

# what replay does with the workload's asynchronous and mapped I/O
for f in "$IT_TMP"/*.txt; do
	tr '\n' ' ' <"$f" | grep -qiE "(io_uring|aio|mmap)[^.]*(cannot|can't|not) be replayed" &&
		fail "$(basename "$f" .txt): says asynchronous or mapped I/O cannot be replayed"
done
tr '\n' ' ' <"$IT_TMP/replay.txt" | grep -qF "The workload's io_uring and AIO requests are replayed with their captured in-flight depth" ||
	fail "replay --help does not say the workload's io_uring and AIO requests are replayed"
echo PASS
