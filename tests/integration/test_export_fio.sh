#!/usr/bin/env bash
# riot export fio: a known trace (imported from strace text) exported, its
# tree made by riot init, replayed by fio with both engines; fio must move
# exactly the bytes the trace moved, at the offsets the log implies.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null 2>&1 || unavailable "fio is not installed (make deps)"
T=$IT_TMP/trace.txt
cat >"$T" <<'TRACE'
100 1700000000.000000 newfstatat(AT_FDCWD</w>, "/data/b.dat", {st_mode=S_IFREG|0644, st_size=10000, ...}, 0) = 0 <0.000005>
100 1700000000.000100 openat(AT_FDCWD</w>, "/data/a.dat", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3</data/a.dat> <0.000010>
100 1700000000.001000 write(3</data/a.dat>, "\0\0"..., 4096) = 4096 <0.000010>
100 1700000000.002000 write(3</data/a.dat>, "\0\0"..., 4096) = 4096 <0.000010>
100 1700000000.003000 lseek(3</data/a.dat>, 1000, SEEK_SET) = 1000 <0.000001>
100 1700000000.004000 read(3</data/a.dat>, "\0\0"..., 8192) = 7192 <0.000010>
100 1700000000.005000 fsync(3</data/a.dat>) = 0 <0.000100>
100 1700000000.006000 close(3</data/a.dat>) = 0 <0.000001>
100 1700000000.007000 openat(AT_FDCWD</w>, "/data/b.dat", O_RDONLY) = 3</data/b.dat> <0.000010>
100 1700000000.008000 pread64(3</data/b.dat>, "\0\0"..., 5000, 5000) = 5000 <0.000010>
100 1700000000.009000 read(3</data/b.dat>, "\0\0"..., 3000) = 3000 <0.000010>
100 1700000000.010000 close(3</data/b.dat>) = 0 <0.000001>
100 1700000000.011000 exit_group(0) = ?
100 1700000000.011100 +++ exited with 0 +++
TRACE
"$RIOT" import strace "$T" -o "$IT_TMP/t.riot" >"$IT_TMP/imp.out" 2>&1 || fail "import: $(cat "$IT_TMP/imp.out")"
R=$IT_TMP/root
"$RIOT" init "$IT_TMP/t.riot" --root "$R" >"$IT_TMP/init.out" 2>&1 || fail "riot init: $(cat "$IT_TMP/init.out")"
for engine in io_uring psync; do
	E=$IT_TMP/fio-$engine
	"$RIOT" export fio "$IT_TMP/t.riot" -o "$E" --root "$R" --engine "$engine" >"$IT_TMP/exp.out" 2>&1 ||
		fail "export: $(cat "$IT_TMP/exp.out")"
	want=$(printf '%s\n' "fio version 3 iolog" "1 $R/data/a.dat add" "1000 $R/data/a.dat open" \
		"1000 $R/data/a.dat write 0 4096" "2000 $R/data/a.dat write 4096 4096" \
		"4000 $R/data/a.dat read 1000 7192" "5000 $R/data/a.dat sync 0 0" \
		"6001 $R/data/a.dat close" "8000 $R/data/b.dat add" "8000 $R/data/b.dat open" \
		"8000 $R/data/b.dat read 5000 5000" "9000 $R/data/b.dat read 0 3000" \
		"10001 $R/data/b.dat close")
	got=$(cat "$E/riot-100.iolog")
	[ "$got" = "$want" ] || fail "iolog differs:
--- want
$want
--- got
$got"
	grep -q "^ioengine=$engine$" "$E/riot.fio" || fail "job file without ioengine=$engine"
	fio --output-format=json "$E/riot.fio" >"$IT_TMP/fio.json" 2>"$IT_TMP/fio.err" ||
		fail "fio $engine exited $?: $(tail -5 "$IT_TMP/fio.err")"
	python3 - "$IT_TMP/fio.json" <<'PY' || fail "fio $engine did not replay the trace's bytes"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
jobs = d["jobs"]
ok = len(jobs) == 1 and jobs[0]["error"] == 0
rb = sum(j["read"]["io_bytes"] for j in jobs)
wb = sum(j["write"]["io_bytes"] for j in jobs)
if (rb, wb) != (7192 + 5000 + 3000, 8192) or not ok:
    print("jobs %d error %s read %d written %d" % (len(jobs), jobs[0]["error"] if jobs else "-", rb, wb))
    sys.exit(1)
PY
done
[ "$(stat -c %s "$R/data/a.dat")" = 8192 ] || fail "a.dat is $(stat -c %s "$R/data/a.dat") bytes, not 8192"
echo "ok: iolog exact, fio moved the trace's bytes with io_uring and psync"

# A file in a directory the workload made: riot init does not make it and
# fio cannot, so the printed route would fail (err=2 on open): refused,
# with the directory named, and no job file written.
cat >"$IT_TMP/mkdir.txt" <<'TRACE'
100 1700000000.000000 mkdir("/data/t0", 0755) = 0 <0.000010>
100 1700000000.000100 openat(AT_FDCWD</w>, "/data/t0/f0.bin", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</data/t0/f0.bin> <0.000010>
100 1700000000.001000 write(3</data/t0/f0.bin>, "\0\0"..., 4096) = 4096 <0.000010>
100 1700000000.002000 close(3</data/t0/f0.bin>) = 0 <0.000001>
100 1700000000.003000 exit_group(0) = ?
100 1700000000.003100 +++ exited with 0 +++
TRACE
"$RIOT" import strace "$IT_TMP/mkdir.txt" -o "$IT_TMP/m.riot" >"$IT_TMP/imp.out" 2>&1 || fail "import: $(cat "$IT_TMP/imp.out")"
"$RIOT" export fio "$IT_TMP/m.riot" -o "$IT_TMP/fio-m" --root "$R" >"$IT_TMP/exp.out" 2>&1 &&
	fail "export of a file in a directory the workload made succeeded"
[ "$(cat "$IT_TMP/exp.out")" = "riot: export: /data/t0 is a directory the workload made, and fio cannot make directories: replay this log with riot replay" ] ||
	fail "export said: $(cat "$IT_TMP/exp.out")"
[ ! -e "$IT_TMP/fio-m/riot.fio" ] || fail "a job file was written for a refused export"
echo "ok: a file in a directory the workload made is refused with its reason"

