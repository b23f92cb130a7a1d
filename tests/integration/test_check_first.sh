#!/usr/bin/env bash
# test_check_first: what would fail a run at its end (or after the root was
# made) is refused before any work. `riot replay --report DB --label L`
# refuses a corrupt, unwritable or directory DB, a DB in a missing
# directory, a taken label, a --label without --report, a --user that does
# not exist, bad --map prefixes and map dirs, a missing, unreadable or
# corrupt log (at its start or in a later block): each with one line on
# stderr and a non-zero exit, and the root does not exist afterwards.
# `riot init` the same for logs; `riot report -o` refuses a DB that cannot
# take the run (and writes nothing to it); `riot capture -o` an output it
# cannot write, before attaching (no log, no program started).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || unavailable "the read-only mount needs root"

LOG=$IT_TMP/r.riot
"$BIN/mklog" -o "$LOG" <<'EOF' || fail "mklog"
stat path=/check-first/file ret=0 size=10 ftype=reg
EOF
"$BIN/genlog" --shape mixed -n 20000 --seed 3 --block-bytes 16384 -o "$IT_TMP/big.riot" ||
	fail "genlog"
# the big log with one byte of its second block's payload inverted
python3 - "$IT_TMP/big.riot" "$IT_TMP/midcorrupt.riot" <<'PY' || fail "corrupting"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
first = 16 + struct.unpack_from('<I', b, 12)[0] + 4
second = first + 32 + struct.unpack_from('<I', b, first + 4)[0]
assert b[second:second + 4] == b'RBLK'
b[second + 40] ^= 0xff
open(sys.argv[2], 'wb').write(bytes(b))
PY
head -c 4096 /dev/urandom >"$IT_TMP/noise.riot"
mkdir "$IT_TMP/adir.riot"

# a valid report with a run labelled taken
"$RIOT" report "$LOG" -o "$IT_TMP/ok.db" --label taken >/dev/null 2>"$IT_TMP/err" ||
	fail "report: $(cat "$IT_TMP/err")"
cp "$IT_TMP/ok.db" "$IT_TMP/ok.db.orig"
echo "not a database, long enough for SQLite to look at its header...." >"$IT_TMP/text.db"
# a report on a read-only file system
RO=$IT_TMP/ro
mkdir "$RO" && mount -t tmpfs -o size=4m tmpfs "$RO" || fail "mount tmpfs"
IT_MOUNTS+=("$RO")
cp "$IT_TMP/ok.db" "$RO/ro.db" && mount -o remount,ro "$RO" || fail "remount ro"

n=0
# refused CMD EXIT WHY MESSAGE ARGS...: riot CMD ARGS exits EXIT with stderr
# starting with "riot: CMD: MESSAGE" (one line for exit 1), and the root
# (--root $ROOT) does not exist afterwards.
refused() {
	local cmd=$1 want=$2 why=$3 msg=$4 rc
	shift 4
	n=$((n + 1))
	ROOT=$IT_TMP/root$n
	"$RIOT" "$cmd" "$@" >"$IT_TMP/out" 2>"$IT_TMP/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$why: exit $rc, want $want ($(cat "$IT_TMP/err"))"
	[ "$want" -eq 2 ] || [ "$(wc -l <"$IT_TMP/err")" -eq 1 ] ||
		fail "$why: stderr is not one line: $(cat "$IT_TMP/err")"
	[ "$(head -n 1 "$IT_TMP/err")" = "riot: $cmd: $msg" ] ||
		fail "$why: stderr '$(head -n 1 "$IT_TMP/err")', want 'riot: $cmd: $msg'"
	[ ! -e "$ROOT" ] || fail "$why: $ROOT was created"
	[ ! -s "$IT_TMP/out" ] || fail "$why: printed $(head -c 200 "$IT_TMP/out")"
	echo "refused: $why"
}
root() { echo "$IT_TMP/root$((n + 1))"; }

refused replay 1 "a missing log" "$IT_TMP/nofile.riot: No such file or directory" \
	"$IT_TMP/nofile.riot" --root "$(root)"
refused replay 1 "a directory as log" "$IT_TMP/adir.riot: not a regular file" \
	"$IT_TMP/adir.riot" --root "$(root)"
refused replay 1 "noise as log" "$IT_TMP/noise.riot: not a riot log (bad magic at byte 0)" \
	"$IT_TMP/noise.riot" --root "$(root)"
"$RIOT" info "$IT_TMP/midcorrupt.riot" >/dev/null 2>"$IT_TMP/info.err" && fail "info read a corrupt block"
refused replay 1 "a corrupt second block" "$(sed 's/^riot: info: //' "$IT_TMP/info.err")" \
	"$IT_TMP/midcorrupt.riot" --root "$(root)"
refused replay 1 "a DB in a missing directory" \
	"--report $IT_TMP/nodir/x.db: cannot write: No such file or directory" \
	"$LOG" --root "$(root)" --report "$IT_TMP/nodir/x.db" --label L
refused replay 1 "a directory as DB" "--report $IT_TMP: cannot write: Is a directory" \
	"$LOG" --root "$(root)" --report "$IT_TMP" --label L
refused replay 1 "a text file as DB" \
	"--report $IT_TMP/text.db: not a riot report (file is not a database)" \
	"$LOG" --root "$(root)" --report "$IT_TMP/text.db" --label L
refused replay 1 "a DB on a read-only mount" \
	"--report $RO/ro.db: cannot write: Read-only file system" \
	"$LOG" --root "$(root)" --report "$RO/ro.db" --label L
refused replay 1 "a new DB on a read-only mount" \
	"--report $RO/new.db: cannot write: Read-only file system" \
	"$LOG" --root "$(root)" --report "$RO/new.db"
refused replay 1 "a taken label" "--report $IT_TMP/ok.db: a run labelled 'taken' exists already" \
	"$LOG" --root "$(root)" --report "$IT_TMP/ok.db" --label taken
refused replay 1 "a numeric label" \
	"--report label '12' must be 1-255 bytes and not a number (numbers name runs by id)" \
	"$LOG" --root "$(root)" --report "$IT_TMP/new.db" --label 12
[ ! -e "$IT_TMP/new.db" ] || fail "the check left $IT_TMP/new.db"
refused replay 2 "--label without --report" \
	"--label names a run in --report DB: give --report too" "$LOG" --root "$(root)" --label L
refused replay 2 "a --user that does not exist" "--user riot-no-such-user: no such user" \
	"$LOG" --root "$(root)" --user riot-no-such-user
refused replay 2 "a relative --map prefix" "map prefix 'data': must be absolute, without . or .." \
	"$LOG" --root "$(root)" --map "data=$IT_TMP/m"
refused replay 2 "a --map prefix with .." "map prefix '/a/../b': must be absolute, without . or .." \
	"$LOG" --root "$(root)" --map "/a/../b=$IT_TMP/m"
refused replay 2 "a --map prefix given twice" "map prefix '/a//' is given twice" \
	"$LOG" --root "$(root)" --map "/a=$IT_TMP/m1" --map "/a//=$IT_TMP/m2"
refused replay 2 "a --map without =" "--map wants PREFIX=DIR (at most 64)" \
	"$LOG" --root "$(root)" --map /a
refused replay 1 "a --map dir beneath a file" "$LOG/sub: Not a directory" \
	"$LOG" --root "$(root)" --map "/check-first=$LOG/sub"
mkdir -p "$IT_TMP/full" && echo keep >"$IT_TMP/full/f"
refused replay 1 "a --map dir not empty and unmarked" \
	"$IT_TMP/full is not empty and has no .riot-root marker: refusing to write into it" \
	"$LOG" --root "$(root)" --map "/check-first=$IT_TMP/full"
[ "$(ls "$IT_TMP/full")" = f ] || fail "$IT_TMP/full was changed"
refused init 1 "init: a corrupt second block" "$(sed 's/^riot: info: //' "$IT_TMP/info.err")" \
	"$IT_TMP/midcorrupt.riot" --root "$(root)"
refused init 1 "init: a missing log" "$IT_TMP/nofile.riot: No such file or directory" \
	"$IT_TMP/nofile.riot" --root "$(root)"
cmp -s "$IT_TMP/ok.db" "$IT_TMP/ok.db.orig" || fail "a refused replay changed ok.db"

# the same checks pass a good run: the DB gets it, the root is made
"$RIOT" replay "$LOG" --root "$IT_TMP/good" --report "$IT_TMP/ok.db" --label L2 \
	>/dev/null 2>"$IT_TMP/err" || fail "good replay: $(cat "$IT_TMP/err")"
[ -f "$IT_TMP/good/.riot-root" ] || fail "good replay: no root"
"$RIOT" replay "$LOG" --root "$IT_TMP/good2" --report "$IT_TMP/fresh.db" \
	>/dev/null 2>"$IT_TMP/err" || fail "replay into a new DB: $(cat "$IT_TMP/err")"
[ "$(sqlite3 "$IT_TMP/fresh.db" 'SELECT count(*) FROM runs')" = 1 ] || fail "new DB: no run"
: >"$IT_TMP/empty.db"
"$RIOT" report "$LOG" -o "$IT_TMP/empty.db" >/dev/null 2>"$IT_TMP/err" ||
	fail "report into an empty file: $(cat "$IT_TMP/err")"

# riot report -o: the DB is checked before the log is summarised
cp "$IT_TMP/ok.db" "$IT_TMP/ok.db.orig"
refused report 1 "report: a taken label" "-o $IT_TMP/ok.db: a run labelled 'taken' exists already" \
	"$LOG" -o "$IT_TMP/ok.db" --label taken
refused report 1 "report: a DB in a missing directory" \
	"-o $IT_TMP/nodir/x.db: cannot write: No such file or directory" "$LOG" -o "$IT_TMP/nodir/x.db"
refused report 1 "report: a read-only DB" "-o $RO/ro.db: cannot write: Read-only file system" \
	"$LOG" -o "$RO/ro.db"
refused report 1 "report: a text file as DB" \
	"-o $IT_TMP/text.db: not a riot report (file is not a database)" "$LOG" -o "$IT_TMP/text.db"
cmp -s "$IT_TMP/ok.db" "$IT_TMP/ok.db.orig" || fail "a refused report changed ok.db"

# riot capture -o: refused before anything is attached or started
if [ -r /sys/kernel/btf/vmlinux ]; then
	refused capture 1 "capture: a missing directory" \
		"cannot create $IT_TMP/nodir/c.riot: No such file or directory" \
		-o "$IT_TMP/nodir/c.riot" -- touch "$IT_TMP/started"
	refused capture 1 "capture: a directory" "cannot create $IT_TMP: Is a directory" \
		-o "$IT_TMP" -- touch "$IT_TMP/started"
	refused capture 1 "capture: a read-only mount" \
		"cannot create $RO/c.riot: Read-only file system" -o "$RO/c.riot" -a -d 1
	[ ! -e "$IT_TMP/started" ] || fail "capture started its command"
	[ ! -e "$IT_TMP/nodir" ] || fail "capture made the missing directory"
else
	unavailable "kernel without BTF: capture is not checked"
fi
echo PASS
