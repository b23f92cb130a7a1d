#!/usr/bin/env bash
# test_bpf_loops: no loop of the BPF objects the build made is closed by a
# fall-through, which verifiers before Linux 6.4 refuse (Debian 12's 6.1:
# "back-edge from insn N to N+1"); the Makefile keeps clang's block
# placement off for it. The checker itself must find such a loop in a
# program made to have one.
# test-unit: needs neither root nor BPF
. "$(dirname "$0")/lib.sh"
top=$(cd "$IT_DIR/../.." && pwd)
objs=("$top"/build/*.bpf.o)
[ -f "${objs[0]}" ] || fail "no BPF objects in $top/build (build first)"
python3 "$top/scripts/bpf_loops.py" "${objs[@]}" || fail "a loop the 6.1 verifier refuses"
# The same loop as bpf/riot.bpf.c's path_outside(), with block placement
# on: clang enters it past its first load, the checker must say so.
cat >"$IT_TMP/loop.c" <<'C'
unsigned char prefix[256];
unsigned int plen;
int scan(const unsigned char *p)
{
	int i;
	unsigned char c;

	if (p[0] != '/')
		return 0;
	for (i = 0; i < 256; i++) {
		if (i >= plen)
			break;
		if (p[i] != prefix[i])
			goto differs;
	}
	return 0;
differs:
	for (i = 0; i < 256; i++) {
		c = p[i];
		if (c == 0)
			return 1;
		if (c == '/' && (p[i + 1] == '/' || p[i + 1] == 0))
			return 0;
	}
	return 0;
}
C
clang -O2 -target bpf -mcpu=v1 -c "$IT_TMP/loop.c" -o "$IT_TMP/loop.o" || fail "clang -target bpf"
python3 "$top/scripts/bpf_loops.py" "$IT_TMP/loop.o" >"$IT_TMP/out" &&
	fail "the checker found no fall-through loop in $IT_TMP/loop.c: $(cat "$IT_TMP/out")"
grep -q "scan: a loop closed by a fall-through" "$IT_TMP/out" || fail "checker said: $(cat "$IT_TMP/out")"
clang -O2 -target bpf -mcpu=v1 -mllvm -disable-block-placement -c "$IT_TMP/loop.c" \
	-o "$IT_TMP/loop2.o" || fail "clang -target bpf"
python3 "$top/scripts/bpf_loops.py" "$IT_TMP/loop2.o" || fail "block placement off still closes a loop by a fall-through"
echo "PASS: ${#objs[@]} objects, no loop closed by a fall-through"
