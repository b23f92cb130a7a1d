#!/usr/bin/env bash
# Calls whose replay needs more than their captured arguments, replayed by
# both engines with nothing diverging and nothing skipped as unresolved or
# as a /proc path: readlink of a regular file (EINVAL, not ENOENT), access
# X_OK of executables init made (with the mode stat saw, or 0755 where only
# access told),  futimens (utimensat with a NULL path),
# chmod("/proc/self/fd/N") (the file behind the fd), linkat with
# AT_SYMLINK_FOLLOW (a hard link to the symlink's target, not to the link).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture

capture_workload replayops
for e in uring sync; do
	root=$IT_TMP/root-$e
	replay_json "$LOG" "$root" --engine "$e"
	python3 - "$IT_TMP/replay.json" "$e" <<'PY' || fail "$e: replay of replayops"
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
if r["divergences"]:
    bad.append("divergences: %r" % {k: v["examples"] for k, v in r["syscalls"].items()
                                   if v["examples"]})
for why in ("unresolved fd or cwd", "under /proc, /sys or /dev"):
    if r["skip_reasons"].get(why):
        bad.append("skipped (%s): %d" % (why, r["skip_reasons"][why]))
want = {"readlink": 2, "access": 2, "utimensat": 1, "chmod": 1, "linkat": 1}
for k, n in want.items():
    if r["syscalls"].get(k, {}).get("issued") != n:
        bad.append("%s issued %r, want %d" % (k, r["syscalls"].get(k, {}).get("issued"), n))
for b in bad:
    print(sys.argv[2] + ": " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	d=$root$W
	[ "$(stat -c '%F %s' "$d/rp.hard")" = "regular file 3000" ] ||
		fail "$e: rp.hard is $(stat -c '%F %s' "$d/rp.hard"), want the target's hard link"
	[ "$(stat -c %a "$d/rp.dat")" = 600 ] || fail "$e: rp.dat mode $(stat -c %a "$d/rp.dat"), want 600"
	[ "$(stat -c %a "$d/rp.exe")" = 750 ] || fail "$e: rp.exe mode $(stat -c %a "$d/rp.exe"), want 750"
	[ "$(stat -c %a "$d/rp.sh")" = 755 ] || fail "$e: rp.sh mode $(stat -c %a "$d/rp.sh"), want 755"
	echo "$e: readlink, access, futimens, chmod via /proc, linkat follow replayed as captured"
done

# Implicit closes: bash's `read x < FILE` opens FILE, dup2s it onto stdin
# and later dup2s the saved stdin back, releasing FILE without a close of
# its own. Replayed under a small fd limit, the 300 files let go that way
# are closed too: no EMFILE.
echo hostname >"$IT_TMP/host"
"$RIOT" capture -q -o "$IT_TMP/loop.riot" -- bash -c \
	'for i in $(seq 300); do read x < "$1"; done' bash "$IT_TMP/host" \
	>/dev/null 2>"$IT_TMP/cap.err" </dev/null || { cat "$IT_TMP/cap.err" >&2; fail "capture of bash"; }
for e in uring sync; do
	(ulimit -n 128 && "$RIOT" replay "$IT_TMP/loop.riot" --root "$IT_TMP/root-loop-$e" \
		--engine "$e" --json >"$IT_TMP/replay.json" 2>"$IT_TMP/replay.err") ||
		fail "$e: riot replay under ulimit -n 128: $(head -c 800 "$IT_TMP/replay.err")"
	[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e: divergences under ulimit -n 128"; }
	[ "$(jget implicit_closes)" -ge 300 ] && [ "$(jget implicit_closes_failed)" = 0 ] ||
		fail "$e: $(jget implicit_closes) implicit closes ($(jget implicit_closes_failed) failed), want 300 or more"
	echo "$e: 300 files released by dup2 closed in the replay, no divergence under ulimit -n 128"
done
