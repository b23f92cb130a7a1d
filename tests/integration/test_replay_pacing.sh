#!/usr/bin/env bash
# pacing: a log whose ops fall at 0, 100, 300, 600 and 1000 ms replays at
# speed 1 in 1 s and at speed 2 in 0.5 s, within 5 % (a functional check of
# the absolute schedule on intentionally long gaps, not a speed test), with
# both engines; at speed 0 it does not wait for the gaps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ -x "$BIN/replay_gen" ] || fail "$BIN/replay_gen is missing"
"$BIN/replay_gen" pacing -o "$IT_TMP/pacing.riot" || fail "replay_gen pacing"
within() { # NS EXPECTED_NS: true when within 5 %
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.05) }'
}
for e in uring sync; do
	for s in 1 2; do
		replay_json "$IT_TMP/pacing.riot" "$IT_TMP/root-$e-$s" --engine "$e" --speed "$s"
		el=$(jget elapsed_ns)
		want=$((1000000000 / s))
		within "$el" "$want" || fail "$e speed $s: took $el ns, expected $want ns within 5 %"
		[ "$(jget delay_count)" = 6 ] || fail "$e speed $s: $(jget delay_count) paced ops, expected 6"
		[ "$(jget divergences)" = 0 ] || fail "$e speed $s: divergences"
		echo "$e speed $s: $el ns (expected $want), issue delay p50 $(jget delay_p50_ns) ns"
	done
	replay_json "$IT_TMP/pacing.riot" "$IT_TMP/root-$e-0" --engine "$e" --speed 0
	el=$(jget elapsed_ns)
	[ "$el" -lt 500000000 ] || fail "$e speed 0: took $el ns, the gaps were waited for"
	[ "$(jget delay_count)" = 0 ] || fail "$e speed 0: issue delays measured without a schedule"
done
