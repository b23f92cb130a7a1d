#!/usr/bin/env bash
# test_layers: code flows one way between riot's folders. The include graph
# of the tree (scripts/layers.py) has no include against its layers (a
# folder including one beside it or above it, as anon/ including report/),
# no folder cycle and no header that reaches itself, and every include of a
# project header is spelled from the top of the tree; inside a folder no two
# modules depend on each other unless scripts/layers.py's ALLOWED_CYCLES
# says why, and every cycle listed there is still one; the check finds each
# when a tree has it.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
LAYERS=$TOP/scripts/layers.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

out=$(python3 "$LAYERS" "$TOP" 2>&1) || fail "include cycles in the tree: $out"
[ -z "$out" ] || fail "layers.py printed on a clean tree: $out"
# the graph holds the edges the layout promises, and none back
graph=$(python3 "$LAYERS" "$TOP" --graph)
for e in "model -> formats" "convert -> model" "replay -> model" "report -> formats"; do
	grep -qx "$e" <<<"$graph" || fail "no edge '$e' in the include graph"
done
for e in "formats -> model" "formats -> convert" "model -> replay" "lib -> formats" \
	"anon -> report" "convert -> report"; do
	grep -qx "$e" <<<"$graph" && fail "edge '$e' runs against the flow"
done

# A tree with formats/ reaching back into model/: one folder cycle, named
mkdir -p "$T/formats" "$T/model" "$T/lib" "$T/anon" "$T/report"
printf '#include "report/r.h"\n' >"$T/anon/a.c"
printf '#include "formats/f.h"\n' >"$T/report/r.h"
printf '#include "model/m.h"\n' >"$T/formats/f.h"
printf '#include "formats/f.h"\n' >"$T/model/m.h"
printf '#include "a.h"\n' >"$T/lib/b.h"
printf '#include "b.h"\n' >"$T/lib/a.h"
printf '#include "lib/a.h"\n' >"$T/lib/c.c"
out=$(python3 "$LAYERS" "$T") && fail "layers.py passed a tree with cycles"
want="include spelled \"b.h\" in lib/a.h: write \"lib/b.h\"
include spelled \"a.h\" in lib/b.h: write \"lib/a.h\"
against the layers: anon may not include report (anon/a.c includes report/r.h)
against the layers: formats may not include model (formats/f.h includes model/m.h)
folder cycle: formats <-> model (formats/f.h includes model/m.h; model/m.h includes formats/f.h)
header cycle: formats/f.h -> model/m.h
header cycle: lib/a.h -> lib/b.h
module cycle: lib/a <-> lib/b (lib/a -> lib/b: lib/a.h includes lib/b.h; lib/b -> lib/a: lib/b.h includes lib/a.h)"
[ "$out" = "$want" ] || fail "layers.py said:
$out
want:
$want"

# Modules of one folder calling each other: a cycle, unless the tree's own
# script allows it; an allowed cycle the tree no longer has fails too
C="$T/cyc"
mkdir -p "$C/scripts" "$C/lib"
printf '#include "lib/p.h"\nint q(void)\n{\n\treturn p();\n}\n' >"$C/lib/q.c"
printf 'int p(void);\n' >"$C/lib/p.h"
printf 'int q(void);\nint p(void)\n{\n\treturn q() + 1;\n}\n' >"$C/lib/p.c"
printf 'int r(void);\n' >"$C/lib/r.h"
cp "$LAYERS" "$C/scripts/layers.py"
out=$(python3 "$C/scripts/layers.py" "$C" --cycles)
want="module cycle: lib/p <-> lib/q
  lib/p -> lib/q: lib/p.c names q()
  lib/q -> lib/p: lib/q.c includes lib/p.h"
[ "$out" = "$want" ] || fail "layers.py --cycles said:
$out
want:
$want"
python3 "$C/scripts/layers.py" "$C" >/dev/null && fail "layers.py passed an unlisted cycle"
python3 - "$C/scripts/layers.py" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"ALLOWED_CYCLES = \[.*?\n\]", 'ALLOWED_CYCLES = [(["lib/p", "lib/q"], "a test"), '
           '(["lib/q", "lib/r"], "gone")]', s, flags=re.S)
open(p, "w").write(s)
PY
out=$(python3 "$C/scripts/layers.py" "$C") && fail "layers.py passed a stale allowed cycle"
want="allowed cycle no longer found, take it off ALLOWED_CYCLES: lib/q <-> lib/r"
[ "$out" = "$want" ] || fail "layers.py on a stale allowed cycle said:
$out
want:
$want"
echo PASS
