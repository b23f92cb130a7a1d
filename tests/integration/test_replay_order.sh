#!/usr/bin/env bash
# ordering across threads: thread A creates, writes and renames /o/aK to
# /o/bK, thread B then opens /o/bK and reads it. Under resource and strict
# order (both engines) B's open waits for A's rename: no divergence, and
# the tree holds exactly the 200 renamed files. Each round A also makes a
# directory /o/dK and B then creates /o/dK/f: B's open waits for the mkdir
# of its parent directory. Last, one process writes /o/shared and another
# reads it through its own open: the reads wait for the writes. And A makes
# /o/eK, B and C each create and unlink a file in it, then A removes it:
# the rmdir waits for both unlinks.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ -x "$BIN/replay_gen" ] || fail "$BIN/replay_gen is missing"
"$BIN/replay_gen" order -n 200 -o "$IT_TMP/order.riot" || fail "replay_gen order"
for e in uring sync; do
	for o in resource strict; do
		root=$IT_TMP/root-$e-$o
		replay_json "$IT_TMP/order.riot" "$root" --engine "$e" --order "$o"
		[ "$(jget divergences)" = 0 ] || { cat "$IT_TMP/replay.json" >&2; fail "$e/$o: divergences"; }
		[ "$(jget syscalls rename issued)" = 200 ] || fail "$e/$o: renames issued $(jget syscalls rename issued)"
		[ "$(jget syscalls read bytes)" = $((264 * 4096)) ] || fail "$e/$o: bytes read $(jget syscalls read bytes)"
		n=$(find "$root/o" -name 'b*' -type f -size 4096c | wc -l)
		[ "$n" = 200 ] || fail "$e/$o: $n files /o/b* of 4096 bytes, expected 200"
		[ -z "$(find "$root/o" -name 'a*')" ] || fail "$e/$o: /o/a* left behind"
		[ "$(jget syscalls mkdir issued)" = 401 ] || fail "$e/$o: mkdirs issued $(jget syscalls mkdir issued)"
		[ "$(jget syscalls rmdir issued)" = 200 ] || fail "$e/$o: rmdirs issued $(jget syscalls rmdir issued)"
		[ -z "$(find "$root/o" -name 'e*')" ] || fail "$e/$o: /o/e* left behind"
		n=$(find "$root/o" -path '*/d*/f' -type f -size 4096c | wc -l)
		[ "$n" = 200 ] || fail "$e/$o: $n files /o/d*/f of 4096 bytes, expected 200"
		[ "$(stat -c %s "$root/o/shared")" = $((64 * 4096)) ] || fail "$e/$o: /o/shared size"
		echo "$e/$o: 200 renames then opens in another thread, no divergence"
	done
done
