#!/usr/bin/env bash
# test_version: `riot version` shows each library's version (liburing's
# from the pkg-config module it was built against, never empty) and each kernel
# facility it says it checks: BTF, the BPF ring buffer, BPF task storage,
# io_uring and the operations the uring engine sends it. Under CI, on a kernel that runs the capture
# and replay tests, every one is there.
. "$(dirname "$0")/lib.sh"

"$RIOT" version >"$IT_TMP/v.txt" || fail "riot version exited $?"
"$RIOT" version --json >"$IT_TMP/v.json" || fail "riot version --json exited $?"
uring=$(pkg-config --modversion liburing 2>/dev/null)
[ -n "$uring" ] || fail "liburing's pkg-config module is not installed"
grep -qxE "libraries: libbpf v?[0-9][0-9.]*, liburing $uring, zstd [0-9.]+, SQLite [0-9.]+" \
	"$IT_TMP/v.txt" || fail "libraries line: $(grep libraries "$IT_TMP/v.txt")"
root=$([ "$(id -u)" -eq 0 ] && echo yes || echo no)
for want in "  BTF (/sys/kernel/btf/vmlinux): yes" "  BPF ring buffer:               yes" \
	    "  BPF task storage:              yes"; do
	if [ "$root" = yes ] || [ "${CI:-}" = true ]; then
		grep -qxF "$want" "$IT_TMP/v.txt" || fail "no '$want' in: $(cat "$IT_TMP/v.txt")"
	fi
done
grep -qxE '  io_uring:                      yes, [0-9]+ operations \(last opcode [0-9]+\), READ WRITE FADVISE yes' \
	"$IT_TMP/v.txt" || fail "io_uring line: $(grep io_uring "$IT_TMP/v.txt")"
# Capture's verdict: the programs loaded for real, as `riot capture --check`
# loads them; without privilege it cannot tell, and says so.
if [ "$root" = yes ]; then
	"$RIOT" capture --check >"$IT_TMP/check.txt" || fail "riot capture --check exited $?"
	n=$(sed -n 's/.*works, \([0-9]* of [0-9]*\) programs loaded$/\1/p' "$IT_TMP/check.txt")
	[ -n "$n" ] || fail "riot capture --check: $(cat "$IT_TMP/check.txt")"
	fb=$(sed -n 's/^  \([a-z-]*\)  .*/\1/p' "$IT_TMP/check.txt" | paste -sd,)
	grep -qxF "  capture:                       yes, $n programs loaded, fallbacks: ${fb:-none}" \
		"$IT_TMP/v.txt" || fail "capture line: $(grep capture: "$IT_TMP/v.txt"), --check: $(cat "$IT_TMP/check.txt")"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$RIOT" version >"$IT_TMP/v.user" || fail "riot version unprivileged exited $?"
	grep -qxF "  capture:                       unknown (needs root, or CAP_BPF and CAP_PERFMON (missing CAP_BPF CAP_PERFMON))" \
		"$IT_TMP/v.user" || fail "unprivileged capture line: $(grep capture: "$IT_TMP/v.user")"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$RIOT" capture --check >"$IT_TMP/check.user" 2>&1 && fail "riot capture --check unprivileged exited 0"
	grep -q "will not work" "$IT_TMP/check.user" || fail "unprivileged --check: $(cat "$IT_TMP/check.user")"
fi
python3 - "$IT_TMP/v.json" "$uring" "$root" <<'PY' || fail "riot version --json"
import json, sys
v = json.load(open(sys.argv[1]))
if sys.argv[3] == "yes":
    assert v["capture"] is True and 0 < v["capture_programs"] <= v["capture_programs_total"], v
    assert v["capture_error"] is None, v
assert v["liburing"] == sys.argv[2], v
assert v["io_uring_engine_ops"] is True and v["io_uring_ops"] > 0, v
if sys.argv[3] == "yes":
    assert v["btf"] is True and v["ringbuf"] is True and v["task_storage"] is True, v
PY
echo PASS
