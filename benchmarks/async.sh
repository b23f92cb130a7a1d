#!/usr/bin/env bash
# benchmarks/async.sh: a program's own asynchronous I/O, captured and
# replayed. For fio --ioengine=io_uring and --ioengine=libaio (both
# --direct=1: the requests reach the device, so they queue), at iodepth 1,
# 16 and 64, 4 KiB random reads and writes on a SIZE_MB file:
#
#   IOPS      fio untraced, fio under riot capture (fio's JSON), and the
#             replay's (the io_uring and AIO requests over the time from
#             their streams' first issue to their last completion: the
#             replay of fio's start-up before them is not in it, as it is
#             not in fio's own rate)
#   cost      capture cost per request: 1/IOPS captured - 1/IOPS untraced
#   bytes     fio's io_bytes (read + written), the capture's asynchronous
#             requests' (riot info), the replay's (riot replay --json)
#   depth     in-flight depth at each request's submission, captured and
#             replayed (max and p50, riot replay --json)
#
# A capture without asynchronous requests (a riot whose capture does not
# record io_uring or AIO requests yet) gives "-" for what needs them; the
# IOPS and cost columns are still measured. Each configuration runs ROUNDS
# times; medians.
#
# Then the replay alone, on logs tests/bin/mklog writes: IOS io_uring
# requests (4 KiB random O_DIRECT reads and writes, one ring) submitted at
# depth 1, 16 and 64, replayed by each engine as fast as possible: IOPS,
# and depth captured and replayed.
#
# Environment: RIOT, BIN; SIZE_MB (default 64), IOS (requests per run,
# default 8192), ROUNDS (default 3), ENGINE (riot replay --engine, default
# riot's default).
set -euo pipefail
: "${RIOT:?set RIOT to the riot binary}" "${BIN:?set BIN to the tools directory}"
SIZE_MB=${SIZE_MB:-64}
IOS=${IOS:-8192}
ROUNDS=${ROUNDS:-3}
ENGINE=${ENGINE:-}

. "$(dirname "$0")/_lib.sh"
need_root async.sh BPF
command -v fio >/dev/null || { echo "async.sh: fio is missing (make deps-test)" >&2; exit 1; }
work=$(mktemp -d /var/tmp/riot-async.XXXXXX)
trap 'rm -rf "$work"' EXIT

fio_async() { # ioengine depth json-out [riot capture -o LOG --]
	local eng=$1 depth=$2 out=$3
	shift 3
	"$@" fio --name=async --filename="$work/data" --size="${SIZE_MB}m" --io_size=$((IOS * 4))k \
		--bs=4k --rw=randrw --ioengine="$eng" --iodepth="$depth" --direct=1 --randrepeat=1 \
		--norandommap --output-format=json >"$out" 2>"$work/fio.err"
}

# fio's JSON: "iops bytes" (reads and writes together).
fio_fig() {
	python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("%.0f %d" % (j["read"]["iops"] + j["write"]["iops"],
                   j["read"]["io_bytes"] + j["write"]["io_bytes"]))
PY
}

# The capture's io_uring and AIO requests and the bytes they moved: "requests bytes".
info_fig() {
	"$RIOT" dump "$1" --format jsonl --type syscall | python3 -c '
import json, sys
n = b = 0
for line in sys.stdin:
    r = json.loads(line)
    if r.get("op", "").startswith(("io_uring:", "aio:")):
        n += 1
        b += max(r.get("ret", 0), 0) if "read" in r["op"] or "write" in r["op"] else 0
print(n, b)'
}

# The replay's, of those requests: "iops bytes depth_cap_max depth_cap_p50 depth_rep_max depth_rep_p50".
replay_fig() {
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mine = {k: v for k, v in r["syscalls"].items() if k.startswith(("io_uring:", "aio:"))}
n = sum(v["issued"] for v in mine.values())
nbytes = sum(v["bytes"] for v in mine.values())
# the rings' and AIO contexts' streams (a process's mmap pages: ctx all ones)
rings = [s for s in r.get("async_streams", []) if s["ctx"] != 2**64 - 1]
span = (max(s["last_ns"] for s in rings) - min(s["first_ns"] for s in rings)) if rings else 0
secs = (span or r["elapsed_ns"]) / 1e9
print("%.0f %d %d %d %d %d" % (n / secs if secs and n else 0, nbytes,
      r.get("async_depth_captured_max", 0), r.get("async_depth_captured_p50", 0),
      r.get("async_depth_replayed_max", 0), r.get("async_depth_replayed_p50", 0)))
PY
}

eng_args=()
[ -n "$ENGINE" ] && eng_args=(--engine "$ENGINE")
printf 'riot async benchmark: fio 4 KiB randrw --direct=1, %d requests on %d MiB, median of %d rounds, %s, %s CPUs, load %s\n' \
	"$IOS" "$SIZE_MB" "$ROUNDS" "$(uname -r)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
echo "IOPS: fio untraced / under capture / the replay's; cost: capture us per request;"
echo "bytes (MiB): fio's / the capture's requests' / the replay's; depth max/p50:"
echo "in flight at submission, captured and replayed (riot replay --json)."
printf '\n%-8s %5s %8s %8s %8s %7s %8s %8s %8s %9s %9s\n' ioengine depth untraced captured replayed \
	cost fio-MiB cap-MiB rep-MiB depth-cap depth-rep
for eng in io_uring libaio; do
	for depth in 1 16 64; do
		rm -f "$work"/u "$work"/c "$work"/r "$work"/figs
		for _ in $(seq "$ROUNDS"); do
			fio_async "$eng" "$depth" "$work/u.json" || { cat "$work/fio.err" >&2; exit 1; }
			fio_fig "$work/u.json" >>"$work/u"
			fio_async "$eng" "$depth" "$work/c.json" "$RIOT" capture -q -o "$work/log.riot" -- ||
				{ cat "$work/fio.err" >&2; exit 1; }
			fio_fig "$work/c.json" >>"$work/c"
			read -r reqs capbytes < <(info_fig "$work/log.riot")
			rm -rf "$work/root"
			"$RIOT" replay "$work/log.riot" --root "$work/root" --json --no-block "${eng_args[@]}" \
				>"$work/r.json" 2>"$work/r.err" || { cat "$work/r.err" >&2; exit 1; }
			echo "$reqs $capbytes $(replay_fig "$work/r.json")" >>"$work/r"
		done
		u=$(cut -d' ' -f1 "$work/u" | median)
		c=$(cut -d' ' -f1 "$work/c" | median)
		fb=$(cut -d' ' -f2 "$work/c" | median)
		reqs=$(cut -d' ' -f1 "$work/r" | median)
		cb=$(cut -d' ' -f2 "$work/r" | median)
		ri=$(cut -d' ' -f3 "$work/r" | median)
		rb=$(cut -d' ' -f4 "$work/r" | median)
		dcm=$(cut -d' ' -f5 "$work/r" | median); dcp=$(cut -d' ' -f6 "$work/r" | median)
		drm=$(cut -d' ' -f7 "$work/r" | median); drp=$(cut -d' ' -f8 "$work/r" | median)
		awk -v e="$eng" -v d="$depth" -v u="$u" -v c="$c" -v reqs="$reqs" -v ri="$ri" \
			-v fb="$fb" -v cb="$cb" -v rb="$rb" -v dcm="$dcm" -v dcp="$dcp" -v drm="$drm" \
			-v drp="$drp" -v out="${BENCH_OUT:-}" 'BEGIN {
			cost = (u > 0 && c > 0) ? 1e6 / c - 1e6 / u : 0
			if (reqs > 0) {
				rs = sprintf("%8.0f", ri); cm = sprintf("%8.1f", cb / 1048576)
				rm = sprintf("%8.1f", rb / 1048576)
				dc = sprintf("%d/%d", dcm, dcp); dr = sprintf("%d/%d", drm, drp)
			} else {
				rs = sprintf("%8s", "-"); cm = rs; rm = rs; dc = "-"; dr = "-"
			}
			printf "%-8s %5d %8.0f %8.0f %s %7.1f %8.1f %s %s %9s %9s\n", e, d, u, c, rs, cost,
				fb / 1048576, cm, rm, dc, dr
			if (out != "") {
				k = "async_" e "_qd" d "_"
				printf "%siops_untraced %.0f\n%siops_captured %.0f\n%scapture_cost_us %.2f\n",
					k, u, k, c, k, cost >> out
				printf "%sfio_bytes %d\n", k, fb >> out
				if (reqs > 0) {
					printf "%siops_replayed %.0f\n%scaptured_bytes %d\n%sreplayed_bytes %d\n",
						k, ri, k, cb, k, rb >> out
					printf "%sdepth_captured_max %d\n%sdepth_replayed_max %d\n",
						k, dcm, k, drm >> out
				}
			}
		}'
	done
done
echo
echo "(- : the capture holds no io_uring or AIO requests: this riot's capture does not"
echo " record them, so there is nothing to replay and the cost is that of tracing the"
echo " io_uring_enter / io_submit / io_getevents syscalls alone)"

# A ring of IOS requests, each in flight until depth more were submitted.
synth_log() { # depth
	python3 - "$1" "$IOS" "$SIZE_MB" <<'PY'
import random, sys
depth, n, mb = (int(a) for a in sys.argv[1:])
rnd = random.Random(1)
print("snap_proc pid=100 cwd=/w")
print("openat dirfd=AT_FDCWD path=/w/data flags=O_RDWR|O_DIRECT ret=3 size=%d ftype=reg created=0 t=1000" % (mb << 20))
for i in range(n):
    op = rnd.choice(("read", "write"))
    off = rnd.randrange(mb << 8) * 4096
    print("io_uring:%s ctx=1 fd=3 off=%d count=4096 flags=0 ret=4096 t=%d dur=%d"
          % (op, off, 10000 + i * 1000, depth * 1000 - 1))
print("close fd=3 ret=0 t=%d" % (10000 + (n + depth) * 1000))
PY
}

echo
echo "replay alone: $IOS io_uring requests (4 KiB random O_DIRECT reads and writes) at"
echo "a known depth (tests/bin/mklog), as fast as possible; IOPS median of $ROUNDS;"
echo "depth max/p50 in flight at submission, captured and replayed."
printf '\n%-7s %5s %9s %10s %10s\n' engine depth IOPS depth-cap depth-rep
for e in $(riot_engines); do
	for depth in 1 16 64; do
		synth_log "$depth" >"$work/s.mklog"
		"$BIN/mklog" -o "$work/s.riot" "$work/s.mklog"
		rm -f "$work/r"
		for _ in $(seq "$ROUNDS"); do
			rm -rf "$work/root"
			"$RIOT" replay "$work/s.riot" --root "$work/root" --json --no-block --engine "$e" \
				>"$work/r.json" 2>"$work/r.err" || { cat "$work/r.err" >&2; exit 1; }
			replay_fig "$work/r.json" >>"$work/r"
		done
		ri=$(cut -d' ' -f1 "$work/r" | median)
		dc="$(cut -d' ' -f3 "$work/r" | median)/$(cut -d' ' -f4 "$work/r" | median)"
		dr="$(cut -d' ' -f5 "$work/r" | median)/$(cut -d' ' -f6 "$work/r" | median)"
		printf '%-7s %5d %9.0f %10s %10s\n' "$e" "$depth" "$ri" "$dc" "$dr"
		if [ -n "${BENCH_OUT:-}" ]; then
			echo "async_synth_${e}_qd${depth}_iops $ri" >>"$BENCH_OUT"
			echo "async_synth_${e}_qd${depth}_depth_replayed_max $(cut -d' ' -f5 "$work/r" | median)" >>"$BENCH_OUT"
		fi
	done
done
