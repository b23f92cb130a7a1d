#!/usr/bin/env bash
# pacing: a log whose ops fall at 0, 100, 300, 600 and 1000 ms replays at
# speed 1 in no less than 1 s and at speed 2 in no less than 0.5 s (no op
# is issued before it is due), with both engines, and keeps that schedule
# within 5 % or says it did not ("timing not kept": a loaded machine may
# wake a thread late, and the replay must tell); at speed 0 it does not
# wait for the gaps.
# timing not kept: a paced replay whose verdict is "not kept" says so in a
# line starting "warning: timing not kept:", in the JSON and in the report;
# an unpaced one never does. A replay that cannot keep time whatever the
# machine (20000 preads due within 20 us of each other, at --speed 1000:
# op k waits for the k-1 before it) is always late.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
[ -x "$BIN/replay_gen" ] || fail "$BIN/replay_gen is missing"
"$BIN/replay_gen" pacing -o "$IT_TMP/pacing.riot" || fail "replay_gen pacing"
kept() { # NS EXPECTED_NS: never early; late by over 5 % only with the warning
	awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN { exit !(a >= b && (a <= b * 1.05 || k == "False")) }'
}
for e in uring sync; do
	for s in 1 2; do
		replay_json "$IT_TMP/pacing.riot" "$IT_TMP/root-$e-$s" --engine "$e" --speed "$s"
		el=$(jget elapsed_ns)
		want=$((1000000000 / s))
		kept "$el" "$want" "$(jget timing_kept)" ||
			fail "$e speed $s: took $el ns, expected $want ns within 5 % or a warning (kept: $(jget timing_kept))"
		[ "$(jget delay_count)" = 6 ] || fail "$e speed $s: $(jget delay_count) paced ops, expected 6"
		[ "$(jget divergences)" = 0 ] || fail "$e speed $s: divergences"
		echo "$e speed $s: $el ns (expected $want), issue delay p50 $(jget delay_p50_ns) ns"
	done
	replay_json "$IT_TMP/pacing.riot" "$IT_TMP/root-$e-0" --engine "$e" --speed 0
	el=$(jget elapsed_ns)
	[ "$el" -lt 500000000 ] || fail "$e speed 0: took $el ns, the gaps were waited for"
	[ "$(jget delay_count)" = 0 ] || fail "$e speed 0: issue delays measured without a schedule"
	[ "$(jget timing_kept)" = True ] || fail "$e speed 0: timing not kept without a schedule"
	[ "$(jget timing_warning)" = 0 ] || fail "$e speed 0: warning '$(jget timing_warning)'"
done

# the verdict agrees with the issue delays it reports
verdict_consistent() { # LABEL
	python3 - "$IT_TMP/replay.json" "$1" <<'PY' || fail "inconsistent timing verdict"
import json, sys
j = json.load(open(sys.argv[1]))
late = j["delay_p99_ns"] > 1000000 or j["delay_max_ns"] > 10000000
if j["timing_kept"] == late or ("timing_warning" in j) != late:
    sys.exit("%s: p99 %d max %d but timing_kept %s" % (sys.argv[2], j["delay_p99_ns"],
             j["delay_max_ns"], j["timing_kept"]))
PY
}
"$BIN/replay_gen" reads --threads 1 -n 20000 --gap-us 1 -o "$IT_TMP/dense.riot" || fail "replay_gen reads"
for e in uring sync; do
	replay_json "$IT_TMP/pacing.riot" "$IT_TMP/root-$e-k" --engine "$e" --speed 1
	verdict_consistent "$e speed 1"
	replay_json "$IT_TMP/dense.riot" "$IT_TMP/late-$e" --engine "$e" --speed 1000 \
		--report "$IT_TMP/late.db" --label "late-$e"
	verdict_consistent "$e dense"
	[ "$(jget timing_kept)" = False ] || fail "$e dense at speed 1000: timing kept"
	[ "$(jget delay_count)" = 20002 ] || fail "$e dense: $(jget delay_count) paced ops"
	case "$(jget timing_warning)" in
	"warning: timing not kept: issue delay p99 "*", max "*"; "*" of 20002 paced ops ("*" %) issued over 1 ms late") ;;
	*) fail "$e dense: warning '$(jget timing_warning)'" ;;
	esac
	late=$(jget late_ops)
	[ "$late" -gt 0 ] || fail "$e dense: no late ops counted"
	row=$(python3 -c 'import sqlite3,sys; print(*sqlite3.connect(sys.argv[1]).execute("SELECT timing_kept, late_ops, delay_p99_ns > 1000000 OR delay_max_ns > 10000000 FROM runs WHERE label = ?", (sys.argv[2],)).fetchone())' "$IT_TMP/late.db" "late-$e")
	[ "$row" = "0 $late 1" ] || fail "$e dense: report row '$row', expected '0 $late 1'"
	# the text summary carries the same line
	"$RIOT" replay "$IT_TMP/dense.riot" --root "$IT_TMP/late-$e-t" --engine "$e" --speed 1000 \
		>"$IT_TMP/summary.txt" 2>&1 || fail "$e dense: replay exited $?"
	[ "$(grep -c '^warning: timing not kept: issue delay p99 ' "$IT_TMP/summary.txt")" = 1 ] ||
		fail "$e dense: no warning line in the summary: $(cat "$IT_TMP/summary.txt")"
	# the issue-delay line gives the late share whether the time was kept
	# or not: the same count as the report's row of that run
	"$RIOT" replay "$IT_TMP/pacing.riot" --root "$IT_TMP/kept-$e-t" --engine "$e" --speed 1 \
		--report "$IT_TMP/kept.db" --label "kept-$e" >"$IT_TMP/summary1.txt" 2>&1 ||
		fail "$e speed 1: replay exited $?"
	read -r rlate rpaced < <(python3 -c 'import sqlite3,sys; print(*sqlite3.connect(sys.argv[1]).execute("SELECT late_ops, (SELECT sum(delay_count) FROM syscalls WHERE run_id = runs.id) FROM runs WHERE label = ?", (sys.argv[2],)).fetchone())' "$IT_TMP/kept.db" "kept-$e")
	pct=$(python3 -c 'import sys; l, n = int(sys.argv[1]), int(sys.argv[2]); print("%.2f" % (100.0 * l / n if n else 0))' "$rlate" "$rpaced")
	grep -qE "^issue delay: +p50 [^,]+, p99 [^,]+, max [^;]+; $rlate of $rpaced paced ops \($pct %\) over 1 ms late\$" \
		"$IT_TMP/summary1.txt" || fail "$e speed 1: issue delay line, want $rlate of $rpaced late: $(grep -A1 '^issue delay' "$IT_TMP/summary1.txt")"
	"$RIOT" replay "$IT_TMP/dense.riot" --root "$IT_TMP/late-$e-0" --engine "$e" \
		>"$IT_TMP/summary0.txt" 2>&1 || fail "$e dense unpaced: replay exited $?"
	! grep -q 'timing not kept' "$IT_TMP/summary0.txt" || fail "$e dense unpaced: warned"
	echo "$e dense at speed 1000: $(jget timing_warning)"
done
# an unpaced replay's report row has no timing verdict
replay_json "$IT_TMP/dense.riot" "$IT_TMP/late-0" --report "$IT_TMP/late.db" --label unpaced
row=$(python3 -c 'import sqlite3,sys; print(*sqlite3.connect(sys.argv[1]).execute("SELECT timing_kept, late_ops FROM runs WHERE label = ?", ("unpaced",)).fetchone())' "$IT_TMP/late.db")
[ "$row" = "None None" ] || fail "unpaced report row '$row', expected 'None None'"
