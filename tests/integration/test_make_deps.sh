#!/usr/bin/env bash
# test_make_deps: `make deps` installs what the build needs and `make
# deps-test` the rest; every target that runs tests, the demo or the
# benchmarks installs the latter first (CI is a fresh machine), and each
# tool they call comes from a package in those lists.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$IT_DIR/../.." && pwd)
command -v make >/dev/null || fail "make is missing"

make -C "$TOP" -pnq >"$IT_TMP/db" 2>/dev/null
list() { sed -n "s/^$1 := //p" "$IT_TMP/db"; }
BUILD=" $(list DEB_BUILD) "
TEST=" $(list DEB_TEST) "
[ "$BUILD" != "  " ] && [ "$TEST" != "  " ] || fail "no DEB_BUILD or DEB_TEST in the Makefile"
for t in check asan fuzz bench demo; do
	grep -qE "^$t: (.* )?deps-test( |$)" "$IT_TMP/db" || fail "make $t does not run deps-test first"
done
grep -qE '^deps-test: deps$' "$IT_TMP/db" || fail "deps-test does not follow deps"
# the benchmarks' PostgreSQL: bench installs it, the tests do not
grep -qE '^bench: (.* )?deps-bench( |$)' "$IT_TMP/db" || fail "make bench does not run deps-bench"
grep -qE '^deps-bench: deps-test$' "$IT_TMP/db" || fail "deps-bench does not follow deps-test"
BENCHP=" $(list DEB_BENCH) "
[[ "$BENCHP" == *" postgresql-15 "* ]] || fail "postgresql-15 (pgbench, postgres) is not in DEB_BENCH"
[[ "$TEST$BUILD" == *" postgresql-15 "* ]] && fail "postgresql-15 is in DEB_TEST or DEB_BUILD"
grep -qE '^all: ' "$IT_TMP/db" || fail "no all target"
grep -qE '^all: (.* )?deps(-test)?( |$)' "$IT_TMP/db" && fail "plain make installs packages (deps)"
# plain make installs nothing: it names the tools and pkg-config modules
# that are missing, and stops
out=$(make -C "$TOP" --no-print-directory have-deps BUILD_TOOLS="sh riot-no-such-tool" \
	PC_MODS="zlib riot-no-such-module" 2>&1) && fail "have-deps passed with a module missing"
[ "$(head -n 1 <<<"$out")" = "make: missing: riot-no-such-tool riot-no-such-module.pc; install them (on Debian: make deps, as root)" ] ||
	fail "have-deps said: $out"
make -C "$TOP" --no-print-directory have-deps >/dev/null 2>&1 || fail "have-deps fails with everything installed"
# ... and never asks Debian's package manager: a build works wherever the
# headers and pkg-config files are (dpkg here records that it was called)
mkdir -p "$IT_TMP/nodpkg"
for c in dpkg dpkg-query apt-get; do
	printf '#!/bin/sh\necho "$0 $*" >>%s/called\nexit 1\n' "$IT_TMP" >"$IT_TMP/nodpkg/$c"
	chmod +x "$IT_TMP/nodpkg/$c"
done
PATH=$IT_TMP/nodpkg:$PATH make -C "$TOP" --no-print-directory have-deps >/dev/null 2>&1 ||
	fail "have-deps fails without dpkg"
PATH=$IT_TMP/nodpkg:$PATH make -C "$TOP" --no-print-directory -n riot tools >/dev/null 2>&1 ||
	fail "make -n fails without dpkg"
[ ! -e "$IT_TMP/called" ] || fail "make (no deps target) called: $(cat "$IT_TMP/called")"
# compiler and linker flags come from pkg-config
grep -qE '^ALL_CFLAGS = .*\$\(PC_CFLAGS\)' "$IT_TMP/db" || fail "ALL_CFLAGS without pkg-config's --cflags"
grep -qE '^LIBS = \$\(PC_LIBS\)' "$IT_TMP/db" || fail "LIBS without pkg-config's --libs"
# make clean removes $(BUILD): the tree it is given, or build/ and the binaries
[ "$(make -C "$TOP" --no-print-directory -n clean BUILD=/riot-no-such-dir)" = "rm -rf /riot-no-such-dir " ] ||
	fail "make clean BUILD=...: $(make -C "$TOP" --no-print-directory -n clean BUILD=/riot-no-such-dir)"
[ "$(make -C "$TOP" --no-print-directory -n clean)" = "rm -rf build riot riot-x86 riot-arm64" ] ||
	fail "make clean: $(make -C "$TOP" --no-print-directory -n clean)"
# make test runs the tests (make check); make test-unit the quick ones
grep -qE '^test: check$' "$IT_TMP/db" || fail "make test is not make check"
grep -qE '^test-unit: all$' "$IT_TMP/db" || fail "make test-unit does not build first"
grep -qE '^test-unit: (.* )?deps' "$IT_TMP/db" && fail "make test-unit installs packages"
# objects depend on the headers they include (dependency files), so a
# second make after a build compiles nothing
[ -x "$TOP/riot" ] || fail "no riot built in $TOP"
again=$(make -C "$TOP" -n riot tools 2>&1 | grep -E -- ' -c -o |-o build/' || true)
[ -z "$again" ] || fail "a second make would build again: $(head -n 3 <<<"$again")"
ls "$TOP"/build/obj/model/model.d >/dev/null 2>&1 || fail "no dependency file for model/model.o"
grep -q 'formats/log.h' "$TOP/build/obj/model/model.d" || fail "model.d does not list formats/log.h"

# COMMAND PACKAGE [OWNER]: PACKAGE, in the test list, brings the command
# (the package that owns its file is OWNER, installed with PACKAGE)
while read -r cmd pkg owner; do
	[[ "$TEST" == *" $pkg "* ]] || fail "$pkg (for $cmd) is not in DEB_TEST"
	[[ "$BUILD" == *" $pkg "* ]] && fail "$pkg is in DEB_BUILD too"
	dpkg -S "bin/$cmd" 2>/dev/null | grep -qE "^(diversion by )?${owner:-$pkg}[:, ]" ||
		fail "$cmd does not come from $pkg: $(dpkg -S "bin/$cmd" 2>&1 | head -n 2)"
done <<'EOF2'
python3 python3 python3-minimal
sqlite3 sqlite3
script bsdutils
mkfs.ext4 e2fsprogs
mkfs.xfs xfsprogs
mkfs.btrfs btrfs-progs
tar tar
git git
strace strace
fio fio
bpftrace bpftrace
perf linux-perf
chromium chromium
shellcheck shellcheck
EOF2
for pkg in clang bpftool pkg-config libbpf-dev liburing-dev libsqlite3-dev libzstd-dev; do
	[[ "$BUILD" == *" $pkg "* ]] || fail "$pkg is not in DEB_BUILD"
done
# README names every package of both lists
for pkg in $BUILD $TEST; do
	grep -q "$pkg" "$TOP/README.md" || fail "README does not name $pkg"
done
echo PASS
