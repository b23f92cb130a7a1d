#!/usr/bin/env bash
# test_semantics_table: a syscall's meaning past capture is its row of
# formats/semantics.def. The readers of the table (the resolver, the
# replay plan, init, the fio export) switch on its columns, never on
# syscall ids, so no syscall falls to a default one of them forgot; and
# ARCHITECTURE.md says so where it tells how a syscall is added.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)

for f in model/model.c replay/plan.c replay/classify.c replay/tree_derive.c convert/export_fio.c; do
	[ -f "$TOP/$f" ] || fail "$f is missing"
	hits=$(grep -n 'case RIOT_SYS_' "$TOP/$f") &&
		fail "$f switches on syscall ids, not on formats/semantics.def's columns:
$hits"
done

# every syscall has its row, and no row is left over
ids=$(grep -cE '^RIOT_(SYSCALL|ASYNC_OP)\(' "$TOP/bpf/syscalls.def")
rows=$(grep -cE '^RIOT_SEM\(' "$TOP/formats/semantics.def")
[ "$ids" -eq "$rows" ] || fail "bpf/syscalls.def has $ids syscalls, formats/semantics.def $rows rows"
diff <(sed -nE 's/^RIOT_(SYSCALL|ASYNC_OP)\(([a-z0-9_]+),.*/\2/p' "$TOP/bpf/syscalls.def" | sort) \
	<(sed -nE 's/^RIOT_SEM\(([a-z0-9_]+),.*/\1/p' "$TOP/formats/semantics.def" | sort) ||
	fail "the syscalls of bpf/syscalls.def and the rows of formats/semantics.def differ"

# ARCHITECTURE.md's "a new syscall" names the two rows
row=$(grep '^| a new syscall |' "$TOP/ARCHITECTURE.md") || fail "ARCHITECTURE.md has no 'a new syscall' row"
for w in bpf/syscalls.def formats/semantics.def test_semantics; do
	grep -qF "$w" <<<"$row" || fail "ARCHITECTURE.md's 'a new syscall' row does not name $w"
done
grep -q 'replay/syscalls.def' "$TOP/ARCHITECTURE.md" && fail "ARCHITECTURE.md names replay/syscalls.def, which is gone"
echo PASS
