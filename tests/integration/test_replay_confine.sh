#!/usr/bin/env bash
# confinement: a hostile log (symlinks to an outside directory, to /etc and
# to ../../.., writes, mkdir, rename, link, unlink, truncate, chmod and stat
# through them, the outside path named directly, /proc, /sys, /dev) is
# replayed with both engines; nothing outside the root is created, changed
# or read (the outside directory's content, modes and access times are as
# before), and the pseudo-filesystem paths are counted as skipped.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ -x "$BIN/replay_gen" ] || fail "$BIN/replay_gen is missing"
OUT=$IT_TMP/outside
mkdir -p "$OUT"
echo "do not touch" >"$OUT/victim"
echo "keep" >"$OUT/keep"
chmod 0640 "$OUT/victim"
touch -d '2001-01-01 00:00:00' "$OUT/victim" "$OUT/keep"
# access times reveal a read (the files' atime is far in the past, so any
# read updates it); contents are checked once, at the end, for the same
# reason
sums=$(cd "$OUT" && md5sum victim keep)
touch -a -d '2001-01-01 00:00:00' "$OUT/victim" "$OUT/keep"
snapshot() { (cd "$OUT" && find . -mindepth 1 -printf '%y %m %s %T@ %A@ %p\n' | LC_ALL=C sort); }
before=$(snapshot)
hostile_created() { ls /tmp/riot-hostile-created 2>/dev/null; }
[ -z "$(hostile_created)" ] || fail "/tmp/riot-hostile-created exists before the test"
"$BIN/replay_gen" hostile --outside "$OUT" -o "$IT_TMP/hostile.riot" || fail "replay_gen hostile"
for e in uring sync; do
	root=$IT_TMP/root-$e
	replay_json "$IT_TMP/hostile.riot" "$root" --engine "$e"
	[ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot) >&2; fail "$e: outside directory changed"; }
	[ -z "$(hostile_created)" ] || fail "$e: /tmp/riot-hostile-created was created outside the root"
	[ -f "$root/tmp/riot-hostile-created" ] || fail "$e: the ../.. symlink did not stay inside the root"
	# written through /h/abs (-> OUT), then renamed from there to /h/moved
	[ -f "$root/h/moved" ] && [ ! -e "$root$OUT/victim" ] ||
		fail "$e: the file reached through the absolute symlink is not the root's"
	[ -d "$root$OUT/newdir" ] || fail "$e: mkdir through the symlink did not land inside the root"
	python3 - "$IT_TMP/replay.json" <<'PY' || fail "$e: /h/etc/passwd was opened: the /etc symlink left the root"
import json, sys
ex = json.load(open(sys.argv[1]))["syscalls"]["openat"]["examples"]
sys.exit(0 if any(x["path"] == "/h/etc/passwd" and x["replayed"] == -2 for x in ex) else 1)
PY
	[ "$(jget skip_reasons 'under /proc, /sys or /dev')" = 7 ] ||
		fail "$e: $(jget skip_reasons 'under /proc, /sys or /dev') pseudo-fs ops skipped, expected 7"
	[ ! -e "$root/proc" ] && [ ! -e "$root/dev" ] && [ ! -e "$root/sys" ] ||
		fail "$e: a pseudo filesystem path was created in the root"
	echo "$e: nothing outside the root touched, 7 pseudo-fs ops skipped"
done
[ "$(cd "$OUT" && md5sum victim keep)" = "$sums" ] || fail "outside files' content changed"
