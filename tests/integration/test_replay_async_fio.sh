#!/usr/bin/env bash
# test_replay_async_fio: fio's own io_uring (plain, and with registered
# files and fixed buffers) and libaio requests (iodepth 16, O_DIRECT),
# captured and replayed by both engines: the replay moves the bytes fio
# reports per direction (its JSON io_bytes), and as fast as possible keeps
# the captured in-flight depth exactly (max and p50).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
require_capture
command -v fio >/dev/null || fail "fio is missing (make deps-test)"

for run in io_uring io_uring-fixed libaio; do
	eng=${run%-fixed}
	extra=()
	[ "$run" = io_uring-fixed ] && extra=(--registerfiles=1 --fixedbufs=1)
	log=$IT_TMP/$run.riot
	"$RIOT" capture -q -o "$log" -- fio --name=a --filename="$IT_TMP/data-$run" --size=8m \
		--io_size=4m --bs=4k --rw=randrw --ioengine="$eng" --iodepth=16 --direct=1 \
		--randrepeat=1 "${extra[@]}" --output-format=json >"$IT_TMP/fio-$run.json" 2>"$IT_TMP/cap.err" ||
		fail "$run: capture of fio: $(head -c 800 "$IT_TMP/cap.err")"
	"$RIOT" info "$log" --json >"$IT_TMP/info-$run.json" || fail "$run: riot info"
	for e in sync uring; do
		replay_json "$log" "$IT_TMP/root-$run-$e" --engine "$e" --no-block
		python3 - "$IT_TMP/fio-$run.json" "$IT_TMP/info-$run.json" "$IT_TMP/replay.json" "$eng" "$run" <<'PY' ||
import json, sys
fio = json.load(open(sys.argv[1]))["jobs"][0]
info = json.load(open(sys.argv[2]))
r = json.load(open(sys.argv[3]))
pre = "io_uring:" if sys.argv[4] == "io_uring" else "aio:"
bad = []
reqs = sum(n for k, n in info["ops"].items() if k.startswith(pre) and ("read" in k or "write" in k))
if reqs != fio["read"]["total_ios"] + fio["write"]["total_ios"]:
    bad.append("captured %d requests, fio made %d" % (reqs, fio["read"]["total_ios"] + fio["write"]["total_ios"]))
for d in ("read", "write"):
    got = sum(v["bytes"] for k, v in r["syscalls"].items() if k.startswith(pre) and d in k)
    issued = sum(v["issued"] for k, v in r["syscalls"].items() if k.startswith(pre) and d in k)
    if got != fio[d]["io_bytes"] or issued != fio[d]["total_ios"]:
        bad.append("replay %s %d requests, %d bytes; fio %d, %d" % (
            d, issued, got, fio[d]["total_ios"], fio[d]["io_bytes"]))
if not 1 < r["async_depth_captured_max"] <= 16:
    bad.append("captured depth max %d, fio's iodepth 16" % r["async_depth_captured_max"])
for k in ("max", "p50"):
    if r["async_depth_replayed_" + k] != r["async_depth_captured_" + k]:
        bad.append("depth %s: captured %d, replayed %d" % (k, r["async_depth_captured_" + k],
                                                           r["async_depth_replayed_" + k]))
for b in bad:
    print(sys.argv[5] + ": " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
			fail "$run, $e engine: replay of fio"
		echo "$run, $e engine: fio's bytes per direction and the captured depth replayed"
	done
done
