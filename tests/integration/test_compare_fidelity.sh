#!/usr/bin/env bash
# test_compare_fidelity: `riot compare` of a capture against its replay
# gives, per class, the operations of each, the total time in syscalls and
# the p50 of each, and their ratios replay/capture, equal to what the
# report database holds for the two runs; a class neither run has gets
# null ratios. A generated log (replay_gen order: reads, writes and
# metadata calls across threads) is replayed in full, so the captured and
# replayed counts are equal and known.
# test-unit: needs neither root nor BPF
set -u
: "${RIOT:?RIOT must name the riot binary}" "${BIN:?BIN must name the test tools directory}"
T=$(mktemp -d /tmp/riot-fidelity-it.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$BIN/replay_gen" order -n 2 -o "$T/o.riot" || fail "replay_gen"
"$RIOT" report "$T/o.riot" -o "$T/r.db" --label cap >"$T/out" || fail "report: $(cat "$T/out")"
"$RIOT" replay "$T/o.riot" --root "$T/root" --report "$T/r.db" --label rep >"$T/out" 2>&1 ||
	fail "replay: $(cat "$T/out")"
"$RIOT" compare "$T/r.db" cap rep --json >"$T/cmp.json" || fail "compare --json"
"$RIOT" compare "$T/r.db" cap rep >"$T/cmp.txt" || fail "compare"

python3 - "$T" <<'PY' || fail "fidelity per class"
import json, sqlite3, sys
T = sys.argv[1]
db = sqlite3.connect(T + "/r.db")
cmp = json.load(open(T + "/cmp.json"))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
def ratio_eq(what, got, want):  # JSON doubles carry 15 significant digits
    if got is None or abs(got - want) > 1e-13 * want:
        bad.append(f"{what}: got {got!r}, want {want!r}")

eq("fidelity pairs", [(f["capture"], f["replay"]) for f in cmp["fidelity"]], [("cap", "rep")])
fid = cmp["fidelity"][0]["classes"]
eq("classes", sorted(fid), ["all", "data_read", "data_write", "metadata", "sync"])
# replay_gen order -n 2: per round one 4 KiB write and read across threads,
# then 64 writes and 64 reads of /o/shared; opens, closes, mkdir, rmdir,
# unlink and rename are metadata.
want = {"data_read": 66, "data_write": 68, "sync": 0, "metadata": 37, "all": 171}
ids = dict(db.execute("SELECT label, id FROM runs"))
for cls, n in want.items():
    c = fid[cls]
    eq(f"{cls} captured", c["captured"], n)
    eq(f"{cls} replayed", c["replayed"], n)
    for who, col in (("captured", "cap"), ("replayed", "rep")):
        row = db.execute("SELECT count, lat_sum_ns FROM classes WHERE run_id = ? AND class = ?",
                         (ids[col], cls)).fetchone() or (0, 0)
        eq(f"{cls} {who} count in the db", row[0], n)
        eq(f"{cls} {who} time", c[who + "_time_ns"], row[1])
    # the same figures as the class table of compare (which has no row
    # for a class neither run has), and their ratios
    eq(f"{cls} in the class table", cls in cmp["classes"], n > 0)
    if n:
        eq(f"{cls} times", [c["captured_time_ns"], c["replayed_time_ns"]],
           cmp["classes"][cls]["total time"]["values"])
        eq(f"{cls} p50s", [c["captured_p50_ns"], c["replayed_p50_ns"]],
           cmp["classes"][cls]["p50"]["values"])
        ratio_eq(f"{cls} time ratio", c["time_ratio"], c["replayed_time_ns"] / c["captured_time_ns"])
        ratio_eq(f"{cls} p50 ratio", c["p50_ratio"], c["replayed_p50_ns"] / c["captured_p50_ns"])
    else:
        eq(f"{cls} time ratio", c["time_ratio"], None)
        eq(f"{cls} p50 ratio", c["p50_ratio"], None)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# The text form: a class table in the fidelity section, one row per class
# either run has, with both counts.
sed -n '/^fidelity of rep against cap /,$p' "$T/cmp.txt" >"$T/fid.txt"
grep -Eq '^  class +captured +replayed +cap time +rep time +ratio +cap p50 +rep p50 +ratio$' "$T/fid.txt" ||
	fail "no class table: $(cat "$T/fid.txt")"
for row in "data_read 66 66" "data_write 68 68" "metadata 37 37" "all 171 171"; do
	read -r c1 c2 c3 <<<"$row"
	set -- "$c1" "$c2" "$c3"
	grep -Eq "^  $1 +$2 +$3 " "$T/fid.txt" || fail "no row '$row': $(cat "$T/fid.txt")"
done
grep -Eq '^  sync ' "$T/fid.txt" && fail "a row for sync, which neither run has"
echo "ok"
