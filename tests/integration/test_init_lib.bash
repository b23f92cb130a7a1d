# tests/integration/test_init_lib.bash: sourced (after lib.sh) by the init
# and confinement tests. Not a test itself (run.sh runs test_*.sh only).
[ -n "${IT_TMP:-}" ] && [ -d "$IT_TMP" ] || { echo "FAIL: lib.sh first" >&2; exit 1; }
[ -x "$RIOT" ] || fail "RIOT=$RIOT is not an executable"
[ -x "$BIN/mklog" ] || fail "$BIN/mklog is missing (build tests/bin/mklog.c)"
command -v python3 >/dev/null 2>&1 || fail "python3 is required"

# tree_of DIR: "dir P", "file P SIZE", "symlink P -> TARGET" (the format of
# `riot init --dry-run`) for everything beneath DIR but riot's marker,
# sorted; bytes outside printable ASCII and '\' as \xHH.
tree_of() {
	python3 - "$1" <<'PY'
import os, stat, sys
root = os.fsencode(sys.argv[1])
def esc(b):
    return ''.join(chr(c) if 0x20 <= c < 0x7f and c != 0x5c else '\\x%02x' % c for c in b)
out = []
for dp, dns, fns in os.walk(root):
    for n in dns + fns:
        p = os.path.join(dp, n)
        rel = p[len(root):]
        if rel == b'/.riot-root':
            continue
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            out.append('symlink %s -> %s' % (esc(rel), esc(os.readlink(p))))
        elif stat.S_ISDIR(st.st_mode):
            out.append('dir %s' % esc(rel))
        elif stat.S_ISREG(st.st_mode):
            out.append('file %s %d' % (esc(rel), st.st_size))
        else:
            out.append('other %s' % esc(rel))
print('\n'.join(sorted(out)))
PY
}

# expect_summary FILE TEXT: FILE's last line is TEXT followed by the seconds.
expect_summary() {
	local last
	last=$(tail -n 1 "$1")
	case "$last" in
	"$2 "*" s") ;;
	*) fail "summary: got '$last', want '$2 N s'" ;;
	esac
}

# snapshot DIR: names, types, sizes, mtimes and atimes of everything under
# DIR (under relatime the first read of a file after a write moves its
# atime). Take one and discard it before the one to compare: the first
# listing moves the directory's own atime.
snapshot() {
	find "$1" -printf '%p %y %s %T@ %A@\n' | sort
}
