#!/usr/bin/env bash
# test_replay_fdtable: a replay of one captured thread runs its calls in an
# fd table of its own, as the single-threaded program did (a shared table
# costs every fd call a reference to its file). Once the log is planned,
# the sync engine's only lane unshares its table (unshare(CLONE_FILES)); a
# thread left in the old table closes there the fds of the files open at
# that moment, so each keeps one reference and the program's close is its
# last. A log longer than the plan's window is split mid-run, with its file
# open; a short one before its first call. A trace of four threads keeps
# one table for all, and so does the uring engine. strace shows the calls;
# the replays' results are the program's.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || unavailable "no strace (make deps-test)"

# the plan's window is 131072 ops: 140002 do not fit, 1002 do
"$BIN/replay_gen" reads -o "$IT_TMP/long.riot" -n 140000 --threads 1 || fail "replay_gen long"
"$BIN/replay_gen" reads -o "$IT_TMP/short.riot" -n 1000 --threads 1 || fail "replay_gen short"
"$BIN/replay_gen" reads -o "$IT_TMP/four.riot" -n 1000 --threads 4 || fail "replay_gen four"

# replay NAME LOG [ARGS]: under strace (opens, unshare, closes), then its
# results: 0 divergences, every op issued, every pread's 4 KiB read
replay() {
	local name=$1 log=$2 ops=$3
	shift 3
	rm -rf "$IT_TMP/root-$name"
	# under strace an ASan build's leak checker cannot run
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat2,unshare,close -o "$IT_TMP/$name.st" "$RIOT" replay "$log" \
		--root "$IT_TMP/root-$name" --no-block --json "$@" >"$IT_TMP/$name.json" 2>"$IT_TMP/$name.err" ||
		fail "replay $name: $(cat "$IT_TMP/$name.err")"
	python3 - "$IT_TMP/$name.json" "$ops" <<'PY' || fail "replay $name: results"
import json, sys
r, ops = json.load(open(sys.argv[1])), int(sys.argv[2])
p = r["syscalls"]["pread64"]
got = (r["divergences"], r["issued"], p["errors"], p["bytes"])
want = (0, ops, 0, (ops - 2 * r["streams"]) * 4096)
if got != want:
    sys.exit("divergences, issued, pread64 errors, bytes: %s, want %s" % (got, want))
PY
}

# calls NAME: the strace of NAME as "tid call result", each call whole
# (a call another thread interrupted is joined to its resumption), the
# workload's file opens as "open f0" and every fd by the name it got
calls() {
	python3 - "$IT_TMP/$1.st" <<'PY'
import re, sys
pending, fdname = {}, {}
for line in open(sys.argv[1]):
    tid, rest = line.rstrip("\n").split(None, 1)
    if rest.endswith("<unfinished ...>"):
        pending[tid] = rest[:-len("<unfinished ...>")].rstrip()
        continue
    m = re.match(r"<\.\.\. \w+ resumed>(.*)", rest)
    if m:
        rest = pending.pop(tid, "") + m.group(1)
    m = re.match(r'(\w+)\((.*)\)\s+= (-?\d+)', rest)
    if not m:
        continue
    call, args, res = m.groups()
    if call == "openat2":
        f = re.search(r'"r/(f\d+)", \{flags=O_RDONLY\|O_CLOEXEC,', args)
        if f and int(res) >= 0:
            fdname[res] = (tid, f.group(1))
            print(tid, "open", f.group(1))
    elif call == "close" and args in fdname:
        opener, name = fdname[args]
        print(tid, "close", name, res)
        if tid == opener:
            del fdname[args]
    elif call == "unshare":
        print(tid, "unshare", args, res)
PY
}

# ---- one thread, longer than the window: split with its file open ----
replay long "$IT_TMP/long.riot" 140002
calls long >"$IT_TMP/long.calls"
python3 - "$IT_TMP/long.calls" <<'PY' || fail "long: $(cat "$IT_TMP/long.calls")"
import sys
c = [l.split() for l in open(sys.argv[1])]
lane = c[0][0]
# the lane opens f0, unshares, a thread of the old table closes its copy
# of f0 there (nothing else), and the lane's close of f0 is the program's
want = [[lane, "open", "f0"], [lane, "unshare", "CLONE_FILES", "0"],
        ["OTHER", "close", "f0", "0"], [lane, "close", "f0", "0"]]
got = [[("OTHER" if x[0] != lane and x[1] == "close" else x[0])] + x[1:] for x in c]
if got != want:
    sys.exit("calls %s, want %s" % (got, want))
PY

# ---- one thread, within the window: split before its first call ----
replay short "$IT_TMP/short.riot" 1002
calls short >"$IT_TMP/short.calls"
lane=$(awk 'NR == 1 { print $1 }' "$IT_TMP/short.calls")
printf '%s\n' "$lane unshare CLONE_FILES 0" "$lane open f0" "$lane close f0 0" |
	diff - "$IT_TMP/short.calls" >&2 || fail "short: the calls differ (want, got above)"

# ---- four threads: one table, as the program's ----
replay four "$IT_TMP/four.riot" 4008
calls four >"$IT_TMP/four.calls"
grep -q unshare "$IT_TMP/four.calls" && fail "four threads: a lane unshared its table"
[ "$(grep -c ' open ' "$IT_TMP/four.calls")" = 4 ] && [ "$(grep -c ' close .* 0$' "$IT_TMP/four.calls")" = 4 ] ||
	fail "four threads: $(cat "$IT_TMP/four.calls")"

# ---- the uring engine keeps its table (its ring's io-wq shares it) ----
replay uring "$IT_TMP/short.riot" 1002 --engine uring
calls uring >"$IT_TMP/uring.calls"
grep -q unshare "$IT_TMP/uring.calls" && fail "uring: unshared a table"

# ---- and without strace, where ASan's leak checker runs ----
rm -rf "$IT_TMP/root-plain"
"$RIOT" replay "$IT_TMP/long.riot" --root "$IT_TMP/root-plain" --no-block --json >"$IT_TMP/plain.json" \
	2>"$IT_TMP/plain.err" || fail "replay without strace: $(cat "$IT_TMP/plain.err")"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); sys.exit(r["divergences"] or r["issued"] != 140002)' \
	"$IT_TMP/plain.json" || fail "replay without strace: results"
echo PASS
