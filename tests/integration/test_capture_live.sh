#!/usr/bin/env bash
# test_capture_live: `riot capture -a`, `-p` and `--cgroup` say what they
# record; on a terminal (a pty made by script(1)) they keep a live line of
# events, events/s, drops and log size, rewritten with \r and blanked at
# the end; into a file or pipe they print no \r and no terminal control.
# A capture of `-- CMD` prints no such line. The demo's headings are bold
# on a terminal only.
. "$(dirname "$0")/lib.sh"
require_capture
command -v script >/dev/null || fail "script (bsdutils) is missing"

has_controls() { LC_ALL=C grep -q $'[\r\033]' "$1"; }

# -p into a file: the line saying what is recorded, then the summary
sleep 60 >/dev/null 2>&1 &
SPID=$!
IT_PIDS+=("$SPID")
"$RIOT" capture -p "$SPID" -d 0.5 -o "$IT_TMP/p.riot" >"$IT_TMP/p.out" 2>"$IT_TMP/p.err" ||
	fail "capture -p: $(cat "$IT_TMP/p.err")"
[ "$(head -n 1 "$IT_TMP/p.err")" = \
  "riot capture: recording pids: $SPID into $IT_TMP/p.riot for 0.5 s; Ctrl-C stops" ] ||
	fail "capture -p: first line: $(head -n 1 "$IT_TMP/p.err")"
[ "$(sed -n 2p "$IT_TMP/p.err")" = "riot capture: $IT_TMP/p.riot" ] ||
	fail "capture -p: the summary does not follow: $(cat "$IT_TMP/p.err")"
has_controls "$IT_TMP/p.err" && fail "capture -p into a file printed \\r or ESC: $(cat -A "$IT_TMP/p.err")"
[ ! -s "$IT_TMP/p.out" ] || fail "capture -p wrote to stdout"

# -a into a pipe
"$RIOT" capture -a -d 0.5 -o "$IT_TMP/a.riot" 2>&1 >/dev/null | cat >"$IT_TMP/a.err"
[ "$(head -n 1 "$IT_TMP/a.err")" = \
  "riot capture: recording every process into $IT_TMP/a.riot for 0.5 s; Ctrl-C stops" ] ||
	fail "capture -a: first line: $(head -n 1 "$IT_TMP/a.err")"
has_controls "$IT_TMP/a.err" && fail "capture -a into a pipe printed \\r or ESC: $(cat -A "$IT_TMP/a.err")"

# --cgroup, until stopped by SIGINT
CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
[ -n "$CG" ] || fail "no cgroup2 mount"
"$RIOT" capture --cgroup / -o "$IT_TMP/c.riot" >/dev/null 2>"$IT_TMP/c.err" &
CPID=$!
IT_PIDS+=("$CPID")
wait_until "the recording line" 300 grep -q recording "$IT_TMP/c.err"
kill -INT "$CPID"
wait_exit "$CPID" "capture --cgroup" 300
[ "$REPLY" = 0 ] || fail "capture --cgroup exited $REPLY: $(cat "$IT_TMP/c.err")"
[ "$(head -n 1 "$IT_TMP/c.err")" = \
  "riot capture: recording cgroup: $CG/ into $IT_TMP/c.riot; Ctrl-C stops" ] ||
	fail "capture --cgroup: first line: $(head -n 1 "$IT_TMP/c.err")"
has_controls "$IT_TMP/c.err" && fail "capture --cgroup printed \\r or ESC: $(cat -A "$IT_TMP/c.err")"

# -- CMD: its own output only, then the summary
"$RIOT" capture -o "$IT_TMP/cmd.riot" -- true 2>"$IT_TMP/cmd.err" || fail "capture -- true"
[ "$(head -n 1 "$IT_TMP/cmd.err")" = "riot capture: $IT_TMP/cmd.riot" ] ||
	fail "capture -- CMD: first line: $(head -n 1 "$IT_TMP/cmd.err")"

# -p on a terminal: the live line, rewritten in place, blanked at the end
script -qec "'$RIOT' capture -p $SPID -d 1.5 -o '$IT_TMP/t.riot'" /dev/null >"$IT_TMP/tty.raw" ||
	fail "capture under script: $(cat -A "$IT_TMP/tty.raw")"
python3 - "$IT_TMP/tty.raw" "$IT_TMP/t.riot" <<'PY' || fail "the live line on a terminal"
import re, sys
raw = open(sys.argv[1], 'rb').read().decode()
assert '\x1b' not in raw, "an escape sequence: %r" % raw
first = raw.split('\r\n')[0]
assert first == "riot capture: recording pids: %s into %s for 1.5 s; Ctrl-C stops" % (
    re.search(r'pids: (\d+)', raw).group(1), sys.argv[2]), first
rest = raw[len(first) + 2:]
live = re.findall(r'\r  (\d+) events, (\d+) events/s, (\d+) drops, log [0-9.]+ (?:B|KiB|MiB) *', rest)
assert live, "no live line in %r" % rest
assert all(d == '0' for _, _, d in live), live
# the last live line is blanked, then the summary starts at column 0
m = re.search(r'\r( +)\rriot capture: ' + re.escape(sys.argv[2]) + '\r\n', rest)
assert m, "the live line is not blanked before the summary: %r" % rest
widest = max(len(x) for x in re.findall(r'\r(  \d+ events[^\r]*)', rest))
assert len(m.group(1)) == widest, (len(m.group(1)), widest)
print("live lines:", len(live))
PY

# the demo's headings: bold on a terminal only
. "$IT_DIR/../../scripts/demo_lib.sh"
[ "$(step "riot info" | od -c)" = "$(printf '\n== riot info\n' | od -c)" ] ||
	fail "step into a pipe: $(step "riot info" | od -c)"
script -qec ". '$IT_DIR/../../scripts/demo_lib.sh'; step 'riot info'" /dev/null >"$IT_TMP/step.raw"
[ "$(cat "$IT_TMP/step.raw")" = $'\r\n\e[1m== riot info\e[0m\r' ] ||
	fail "step on a terminal: $(cat -A "$IT_TMP/step.raw")"
echo PASS
