#!/usr/bin/env bash
# The kernel's syscalls against bpf/syscalls.def, the other way round from
# test_syscalls_tracefs.sh: every syscall tracepoint of the running kernel
# that takes an fd or a path (by the names and types of its arguments in
# tracefs's format files, see syscalls_reverse.py) is a row of the table
# or is listed, with its reason, in bpf/syscalls.unrecorded. A new one
# fails, named. FORMATS_DIR=DIR checks a copy of another kernel's
# events/syscalls instead (sys_enter_NAME/format files, as the kernel
# matrix copies them out of its guests); that needs no root.
. "$(dirname "$0")/lib.sh"
DEF=$IT_DIR/../../bpf/syscalls.def
UNREC=$IT_DIR/../../bpf/syscalls.unrecorded
command -v python3 >/dev/null 2>&1 || fail "python3 is required by the integration tests"
if [ -n "${FORMATS_DIR:-}" ]; then
	TP=$FORMATS_DIR
	[ -d "$TP" ] || fail "FORMATS_DIR=$TP is not a directory"
else
	[ "$(id -u)" -eq 0 ] || unavailable "mounting tracefs needs root"
	TP=/sys/kernel/tracing/events/syscalls
	[ -d "$TP" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d "$TP" ] || TP=/sys/kernel/debug/tracing/events/syscalls
	[ -d "$TP" ] || unavailable "no syscall tracepoints in tracefs"
fi
n=$(find "$TP/" -mindepth 1 -maxdepth 1 -name 'sys_enter_*' | wc -l)
[ "$n" -gt 100 ] || fail "only $n sys_enter_* tracepoints in $TP"

python3 "$IT_DIR/syscalls_reverse.py" "$TP" "$DEF" "$UNREC" >"$IT_TMP/out" 2>&1
rc=$?
cat "$IT_TMP/out"
[ "$rc" -eq 0 ] || fail "syscalls of $TP take an fd or a path and are neither rows of syscalls.def nor listed in syscalls.unrecorded (exit $rc)"
grep -q '^ok: ' "$IT_TMP/out" || fail "no summary line"

# The gate can fail: a copy of the format files with a made-up syscall
# taking an fd must be refused, naming it; so must a name listed as not
# recorded that is a row of the table. (Format files are copied with cat:
# tracefs gives them size 0.)
copy=$IT_TMP/formats
mkdir "$copy" || fail "mkdir $copy"
for d in "$TP"/sys_enter_*; do
	e=${d##*/}
	mkdir "$copy/$e" || fail "mkdir $copy/$e"
	cat "$d/format" >"$copy/$e/format" || fail "cannot copy $d/format"
done
mkdir "$copy/sys_enter_riot_fake_newcall"
cat >"$copy/sys_enter_riot_fake_newcall/format" <<'EOF'
name: sys_enter_riot_fake_newcall
ID: 99999
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:int __syscall_nr;	offset:8;	size:4;	signed:1;
	field:int fd;	offset:16;	size:8;	signed:0;

print fmt: "fd: 0x%08lx", ((unsigned long)(REC->fd))
EOF
python3 "$IT_DIR/syscalls_reverse.py" "$copy" "$DEF" "$UNREC" >"$IT_TMP/neg" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$IT_TMP/neg"; fail "a new syscall taking an fd: exit $rc, not 1"; }
grep -q '^NEW: riot_fake_newcall (args: int fd)$' "$IT_TMP/neg" ||
	{ cat "$IT_TMP/neg"; fail "a new syscall taking an fd is not named"; }
[ "$(grep -c '^NEW: ' "$IT_TMP/neg")" -eq 1 ] || { cat "$IT_TMP/neg"; fail "more than the new syscall reported"; }

{ cat "$UNREC"; printf 'read\tmade up: a row of the table\n'; } >"$IT_TMP/unrec"
python3 "$IT_DIR/syscalls_reverse.py" "$TP" "$DEF" "$IT_TMP/unrec" >"$IT_TMP/neg" 2>&1
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q '^CONTRADICTION: read ' "$IT_TMP/neg"; then
	cat "$IT_TMP/neg"
	fail "a row of the table listed as not recorded passes (exit $rc)"
fi
echo "ok: the gate fails on a new syscall taking an fd and on a listed row"
