#!/usr/bin/env bash
# The distinct paths of a log are held in memory, at most 256 MiB of them
# (model/model.h, MODEL_PATH_BYTES_MAX): 320k failed stats of distinct
# 4 KB paths (a log of 2.3 MB) are refused by info, dump, report and
# replay --dry-run with one line that says so, instead of taking 1.3-2.6 GB;
# 1000 such paths (and the cwd) read as usual. Needs no root.
. "$(dirname "$0")/lib.sh"
T=$IT_TMP
paths_log() { # N OUT
	python3 - "$1" <<'PY' | "$BIN/mklog" -o "$2" || fail "mklog $1 paths"
import sys
print("snap_proc pid=100 cwd=/w")
for i in range(int(sys.argv[1])):
    print(f"stat path=/w/{i:06d}\\{{4000*a}} ret=-ENOENT")
PY
}
paths_log 1000 "$T/few.riot"
"$RIOT" info --json "$T/few.riot" >"$T/few.json" || fail "info of 1000 paths"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["paths"] != 1001)' \
	"$T/few.json" 2>/dev/null || fail "info: $(grep -o '"paths[^,]*' "$T/few.json")"

paths_log 320000 "$T/many.riot"
mkdir -p "$T/root"
want='many.riot: the log names more than 256 MiB of distinct paths, more than riot holds in memory'
refused() { # NAME ARGS...
	local name=$1 rc
	shift
	"$RIOT" "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, expected 1: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name: more than one line: $(cat "$T/err")"
	grep -qF "$want" "$T/err" || fail "$name: $(cat "$T/err")"
	echo "$name: $(cat "$T/err")"
}
refused info info "$T/many.riot"
refused dump dump "$T/many.riot"
refused report report "$T/many.riot" -o "$T/r.db"
refused "replay --dry-run" replay "$T/many.riot" --root "$T/root" --dry-run
echo ok
