# riot: one static binary.
#   make            build ./riot where the tools (cc, clang, bpftool,
#                   llvm-strip, pkg-config) and the libraries' headers and
#                   pkg-config files are (it names what is missing)
#   make deps       install those on Debian (as root)
#   make deps-test  also what the tests, the demo and the benchmarks need
#   make deps-bench also the benchmarks' PostgreSQL (make bench runs it)
#   make test-unit  the tests that need neither root nor BPF, in seconds
#   make check      build, then run every test (unit, integration, fuzz,
#                   shellcheck, the kernel matrix); make test is make check
#   make asan       build with ASan+UBSan into build/asan and run the tests
#   make fuzz       run the fuzz targets (FUZZ_SECONDS each, default 60)
#   make bench      benchmarks/ (riot against its peers)
#   make demo       the main job on the bundled workload
#   make install    PREFIX=/usr/local
#   make clean      remove $(BUILD) (default build/) and the binaries
#   make ARCH=arm64 cross-build ./riot-arm64 and the tools (build/arm64)
#   V=1             show full commands
.DELETE_ON_ERROR:
.SECONDARY:
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.SUFFIXES:

VERSION   := 0.1.0
PREFIX    ?= /usr/local

# The architecture riot is built for: this machine's (uname -m), or the
# one `make ARCH=...` names (x86 or arm64, the kernel's names), built
# then with Debian's cross compiler CROSS (aarch64-linux-gnu-gcc from
# gcc-aarch64-linux-gnu) against the libraries' :arm64 packages, into
# build/ARCH, the binary ./riot-ARCH. Only the command line's ARCH counts:
# one left in the environment does not cross-build by surprise.
HOST_ARCH := $(shell uname -m | sed -e 's/^x86_64$$/x86/' -e 's/^aarch64$$/arm64/')
ifneq ($(origin ARCH),command line)
ARCH      := $(HOST_ARCH)
endif
GNU_x86   := x86_64-linux-gnu
GNU_arm64 := aarch64-linux-gnu
DEB_x86   := amd64
DEB_arm64 := arm64
ifeq ($(GNU_$(ARCH)),)
$(error ARCH=$(ARCH): riot builds for x86 and arm64)
endif
ifneq ($(ARCH),$(HOST_ARCH))
CROSS     ?= $(GNU_$(ARCH))-
BUILD     ?= build/$(ARCH)
RIOT_BIN  := riot-$(ARCH)
else
BUILD     ?= build
RIOT_BIN  := riot
endif
CC        ?= cc
ifeq ($(origin CC),default)
CC        := $(CROSS)gcc
endif
ifeq ($(origin AR),default)
AR        := $(CROSS)ar
endif
CLANG     ?= clang
BPFTOOL   ?= bpftool
LLVM_STRIP ?= llvm-strip
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# What the build needs, by the names any distribution knows: the tools
# (PATH) and the libraries' pkg-config modules, whose --cflags and
# --static --libs the build uses. A cross build reads ARCH's modules
# (Debian's multiarch directory; PKG_CONFIG_LIBDIR given on the command
# line wins).
BUILD_TOOLS = $(firstword $(CC)) $(CLANG) $(BPFTOOL) $(LLVM_STRIP) $(PKG_CONFIG) \
	$(if $(STATIC),file)
PC_MODS   := libbpf libelf zlib libzstd liburing sqlite3 ncursesw
ifneq ($(CROSS),)
PKG_CONFIG_LIBDIR ?= /usr/lib/$(GNU_$(ARCH))/pkgconfig:/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR
endif
PC_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PC_MODS) 2>/dev/null)
PC_LIBS   = $(shell $(PKG_CONFIG) --static --libs $(PC_MODS) 2>/dev/null)

# Debian packages, only for the deps targets: DEB_BUILD to build riot
# (`make deps`); DEB_TEST also for the tests, the fuzzers, the demo and
# the benchmarks (`make deps-test`: peers to measure against, file
# systems to replay onto, a browser for the HTML report, shellcheck, the
# fleet engines the examples/ recipes run on).
# README lists both.
# Packages are asked for in the build machine's architecture: with
# arm64's -dev packages beside them (multiarch, for make kernels), a
# bare name answers for both.
DEB_QUAL   = $(addprefix :,$(shell dpkg --print-architecture 2>/dev/null))
DEB_BUILD := clang llvm bpftool pkg-config libbpf-dev libelf-dev zlib1g-dev libzstd-dev \
	liburing-dev libsqlite3-dev libncurses-dev ncurses-base file
# A cross build takes the compiler and C library for ARCH, and the
# libraries' packages of ARCH (dpkg --add-architecture; Multi-Arch, they sit
# beside the build machine's).
ifneq ($(CROSS),)
DEB_BUILD := clang llvm bpftool pkg-config file gcc-$(subst _,-,$(GNU_$(ARCH))) \
	libc6-dev-$(DEB_$(ARCH))-cross $(addsuffix :$(DEB_$(ARCH)),libbpf-dev \
	libelf-dev zlib1g-dev libzstd-dev liburing-dev libsqlite3-dev libncurses-dev) ncurses-base
endif
DEB_TEST  := python3 sqlite3 libclang-rt-14-dev bsdutils e2fsprogs xfsprogs btrfs-progs \
	tar git strace fio bpftrace linux-perf chromium shellcheck slurm-wlm munge \
	openssh-server python3-yaml tmux
# for the benchmarks only: a PostgreSQL server and pgbench, rsync
DEB_BENCH := postgresql-15 rsync

WARN      := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS    ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -I$(BUILD) -I. $(PC_CFLAGS) \
	-DRIOT_VERSION='"$(VERSION)"' -D_GNU_SOURCE
LIBS       = $(PC_LIBS) -lpthread -lm -ldl
STATIC    ?= -static
# Static links print glibc's note that SQLite's (unused) extension loader
# calls dlopen; it is the only linker output we hide.
LINK_QUIET := 2>&1 | { grep -v -e 'unixDlOpen' -e "Using 'dlopen' in statically" || true; }

# Every .c in these folders is part of the program; riot.c is main().
SRC_DIRS  := lib formats model convert capture top replay report inspect anon
LIB_SRCS  := $(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
TOOL_SRCS := $(sort $(wildcard tests/bin/*.c))
TOOL_BINS := $(patsubst tests/bin/%.c,$(BUILD)/bin/%,$(TOOL_SRCS))
BENCH_SRCS := $(sort $(wildcard benchmarks/*.c))
BENCH_BINS := $(patsubst benchmarks/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))
# Objects depend on the headers they include, as the compiler lists them
# (-MMD: build/obj/X.d beside each object, read back below).
DEPFLAGS  := -MMD -MP

# The tests, fuzzers, benchmarks and the demo run what they build: not
# from a cross build (copy ./riot-ARCH and build/ARCH/bin to the machine).
NATIVE_ONLY := check test test-unit asan fuzz bench demo deps-test deps-bench kernels deps-kernels
ifneq ($(CROSS),)
ifneq ($(filter $(NATIVE_ONLY),$(MAKECMDGOALS)),)
$(error make $(filter $(NATIVE_ONLY),$(MAKECMDGOALS)): not with ARCH=$(ARCH), a cross build)
endif
endif

.PHONY: kernels deps-kernels all deps deps-test deps-bench have-deps check test test-unit asan \
	fuzz bench demo install clean tools
all: $(RIOT_BIN) tools

# Installs what is missing of the packages given, and does nothing when all
# is there. One make at a time (flock): a `make check` and a `make asan`
# started together would otherwise both run apt-get, and one fails on its
# lock.
define install_missing
	@if command -v flock >/dev/null && { : >>/tmp/riot-deps.lock; } 2>/dev/null && \
		exec 9</tmp/riot-deps.lock; then flock 9; fi; \
	missing=""; for p in $(1); do \
		{ dpkg-query -W -f='$${Status}' $$(case $$p in *:*) echo $$p;; *) echo $$p$(DEB_QUAL);; esac) 2>/dev/null || \
			dpkg-query -W -f='$${Status}' $$p 2>/dev/null; } | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "  DEPS    installing:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "make $@: need root to install:$$missing" >&2; exit 1; fi; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null || exit 1; \
	fi
endef

deps:
ifneq ($(CROSS),)
	@dpkg --print-foreign-architectures | grep -qx $(DEB_$(ARCH)) || \
		{ echo "  DEPS    dpkg --add-architecture $(DEB_$(ARCH))"; dpkg --add-architecture $(DEB_$(ARCH)); }
endif
	$(call install_missing,$(DEB_BUILD))

# Plain `make` installs nothing and asks no package manager: it stops
# early, naming the tools and pkg-config modules that are missing.
have-deps:
	@missing=""; for t in $(BUILD_TOOLS); do \
		command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	for m in $(PC_MODS); do \
		$(PKG_CONFIG) --exists $$m 2>/dev/null || missing="$$missing $$m.pc"; done; \
	if [ -n "$$missing" ]; then \
		echo "make: missing:$$missing; install them (on Debian: make deps, as root)" >&2; exit 1; fi

# After deps: two apt-get runs at once would fight over dpkg's lock.
deps-test: deps
	$(call install_missing,$(DEB_TEST))

# A cross build's `make riot` makes ./riot-ARCH.
ifneq ($(RIOT_BIN),riot)
.PHONY: riot
riot: $(RIOT_BIN)
endif

$(RIOT_BIN): $(BUILD)/riot
	$(Q)cp $< $@
	$(Q)if [ -n "$(STATIC)" ] && ! file -b $@ | grep -q 'statically linked'; then \
		echo "riot: the binary is not statically linked" >&2; rm -f $@; exit 1; fi

$(BUILD)/riot: $(BUILD)/obj/riot.o $(BUILD)/libriot.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(STATIC) -o $@ $^ $(LIBS) $(LINK_QUIET)

$(BUILD)/libriot.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The skeletons and the schema are made before the first compile (order
# only); after that the .d files say which objects include them.
GENERATED := $(BPF_SKELS) $(BUILD)/report_schema.h $(BUILD)/terminfo_fallback.h
$(BUILD)/obj/%.o: %.c | $(BUILD) $(GENERATED)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# report/schema.sql, embedded as a C string literal (report/db.c), and
# the schema version its first line names; remade when this rule changes.
$(BUILD)/report_schema.h: report/schema.sql Makefile | $(BUILD)
	$(call msg,GEN,$@)
	$(Q){ echo 'static const char report_schema_sql[] ='; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
		echo ';'; \
		sed -n '1s/.*(schema version \([0-9][0-9]*\)).*/#define REPORT_SCHEMA_VERSION \1/p' $<; \
		} > $@
	$(Q)grep -q '^#define REPORT_SCHEMA_VERSION [0-9]' $@ || \
		{ echo "make: $<: no '(schema version N)' on its first line" >&2; rm -f $@; exit 1; }

# riot top's terminal description for a host whose terminfo lacks $TERM
# (top/term.c): xterm-256color as the build machine compiled it, embedded.
TERMINFO_SRC ?= $(firstword $(wildcard /lib/terminfo/x/xterm-256color \
	/usr/share/terminfo/x/xterm-256color /usr/lib/terminfo/x/xterm-256color))
$(BUILD)/terminfo_fallback.h: $(TERMINFO_SRC) | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)test -n "$(TERMINFO_SRC)" || { echo "make: no compiled xterm-256color terminfo entry (Debian: ncurses-base)" >&2; exit 1; }
	$(Q){ echo 'static const unsigned char terminfo_fallback[] = {'; \
		od -An -v -tx1 $< | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
		echo '};'; } > $@

# `riot version` names the liburing built against, as its pkg-config
# module says. Asked when cmd_version.o is compiled, not when make starts:
# on a fresh machine `make deps` installs it in between.
URING_VER = $(shell $(PKG_CONFIG) --modversion liburing 2>/dev/null)
$(BUILD)/obj/inspect/cmd_version.o: ALL_CFLAGS += -DRIOT_LIBURING_VERSION='"$(URING_VER)"'

# BPF: compiled against the committed bpf/ARCH/vmlinux.h (the kernel's
# types of the architecture: pt_regs, ...; scripts/gen-vmlinux.sh makes
# it), embedded by a skeleton. The syscall numbers are x86_64's in
# syscalls.def; another architecture's come from its <asm/unistd.h>, as
# the compiler for it sees them (scripts/gen-syscall-nr.sh:
# $(BUILD)/syscall_nr.h).
# The instruction set is pinned (-mcpu=v1: what clang 14, Debian 12's,
# emits by default; every verifier since 4.x takes it). Block placement
# stays off: it enters a rotated loop in its middle, so that the loop is
# closed by a fall-through, which verifiers before 6.4 refuse ("back-edge
# from insn N to N+1", seen on Debian 12's 6.1). scripts/bpf_loops.py,
# run by make check, finds any such loop in the objects.
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v1 -mllvm -disable-block-placement
ifneq ($(ARCH),x86)
SYSCALL_NR := $(BUILD)/syscall_nr.h
endif
$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) bpf/$(ARCH)/vmlinux.h bpf/syscalls.def \
		$(SYSCALL_NR) | $(BUILD)
	$(call msg,BPF,$<)
	$(Q)$(CLANG) $(BPF_CFLAGS) -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-Wno-unused-function -I bpf/$(ARCH) -I bpf -I $(BUILD) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(BUILD)/syscall_nr.h: bpf/syscalls.def scripts/gen-syscall-nr.sh | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)sh scripts/gen-syscall-nr.sh '$(CC)' > $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# Every build step waits for the check of the build packages (order only:
# it never forces a rebuild), so a fresh machine gets one clear line.
$(BUILD): | have-deps
	$(Q)mkdir -p $(BUILD)

# Test programs and tools link the same library as riot.
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libriot.a
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(STATIC) -o $@ $< $(BUILD)/libriot.a $(LIBS) $(LINK_QUIET)

$(BUILD)/bin/%: tests/bin/%.c $(BUILD)/libriot.a
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(STATIC) -o $@ $< $(BUILD)/libriot.a $(LIBS) -lpthread $(LINK_QUIET)

$(BUILD)/bench/%: benchmarks/%.c $(BUILD)/libriot.a
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(STATIC) -o $@ $< $(BUILD)/libriot.a $(LIBS) $(LINK_QUIET)

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/*/*.d $(BUILD)/tests/*.d $(BUILD)/bin/*.d \
	$(BUILD)/bench/*.d)

tools: $(UNIT_BINS) $(TOOL_BINS) $(BENCH_BINS)

# Sanitizer builds cannot be static: a second tree under build/asan.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
# The build runs after deps-test, not beside it (make -j): a sub-make.
check: deps-test
	$(Q)$(MAKE) --no-print-directory all
	$(Q)RIOT=$(CURDIR)/riot BIN=$(CURDIR)/$(BUILD)/bin TESTS=$(CURDIR)/$(BUILD)/tests \
		FUZZ_SECONDS=$${FUZZ_SECONDS:-20} MAKE_FUZZ="$(MAKE) --no-print-directory fuzz" \
		MAKE_KERNELS="$(MAKE) --no-print-directory kernels" bash tests/run.sh

# make test is make check: every test.
test: check

# The tests that need neither root nor BPF (tests/unit, and the
# integration tests marked "# test-unit: ..."): installs nothing, runs as
# any user.
test-unit: all
	$(Q)RIOT=$(CURDIR)/riot BIN=$(CURDIR)/$(BUILD)/bin TESTS=$(CURDIR)/$(BUILD)/tests \
		UNIT_ONLY=1 bash tests/run.sh

asan: deps-test
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan STATIC= CFLAGS="$(ASAN_FLAGS)" \
		build/asan/riot build/asan/libriot.a \
		$(patsubst $(BUILD)/%,build/asan/%,$(UNIT_BINS) $(TOOL_BINS))
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		RIOT=$(CURDIR)/build/asan/riot BIN=$(CURDIR)/build/asan/bin \
		TESTS=$(CURDIR)/build/asan/tests NO_FUZZ=1 bash tests/run.sh

# libFuzzer target for the log reader; clang's runtime from libclang-rt-14-dev.
FUZZ_SECONDS ?= 60
# The log codec and what it stands on; the strace target adds the importer
# (convert/) and the model it resolves through, the plan target the model
# and the replay and init planners, the mklog target the same from text.
FUZZ_SRCS := $(wildcard formats/*.c lib/*.c)
FUZZ_HDRS := $(wildcard */*.h) bpf/syscalls.def
FUZZ_EXTRA_fuzz_strace := $(wildcard model/*.c) convert/import_strace.c \
	convert/import_strace_lex.c
FUZZ_EXTRA_fuzz_plan := $(wildcard model/*.c) replay/plan.c replay/classify.c \
	replay/tree_create.c replay/tree_derive.c replay/root_setup.c replay/fill.c replay/root.c
FUZZ_EXTRA_fuzz_mklog := $(FUZZ_EXTRA_fuzz_plan)
.SECONDEXPANSION:
$(BUILD)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) tests/bin/mklog_text.h $(FUZZ_SRCS) \
		$$(FUZZ_EXTRA_$$*) $(FUZZ_HDRS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE \
		-DRIOT_VERSION='"$(VERSION)"' -o $@ $< $(FUZZ_SRCS) $(FUZZ_EXTRA_$*) \
		-lzstd -lz -lpthread
fuzz: deps-test $(BUILD)/fuzz/fuzz_reader $(BUILD)/fuzz/fuzz_strace $(BUILD)/fuzz/fuzz_plan \
		$(BUILD)/fuzz/fuzz_mklog \
		$(BUILD)/bin/genlog $(BUILD)/bin/mklog
	$(Q)bash tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)

# make kernels: the capture-and-replay suite on Debian 12's kernels, booted
# under QEMU (tests/kernels/run.sh), for x86_64 and arm64. KERNELS=PATH...
# boots those kernel images instead; KERNEL_CACHE keeps the packages
# (default /var/cache/riot/kernels, which make clean leaves alone).
DEB_KERNELS := qemu-system-x86 qemu-system-arm busybox-static cpio kmod e2fsprogs \
	xz-utils zstd file
deps-kernels: deps-test
	$(call install_missing,$(DEB_KERNELS))
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 deps

kernels: deps-kernels
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 riot build/arm64/bin/workload \
		build/arm64/bin/demo_workload build/arm64/bin/sysloop
	$(Q)RIOT=$(CURDIR)/riot BIN=$(CURDIR)/$(BUILD)/bin RIOT_ARM64=$(CURDIR)/riot-arm64 \
		BIN_ARM64=$(CURDIR)/build/arm64/bin bash tests/kernels/run.sh

deps-bench: deps-test
	$(call install_missing,$(DEB_BENCH))

bench: deps-test deps-bench
	$(Q)$(MAKE) --no-print-directory all
	$(Q)RIOT=$(CURDIR)/riot BIN=$(CURDIR)/$(BUILD)/bin BENCH=$(CURDIR)/$(BUILD)/bench \
		bash benchmarks/run.sh

demo: deps-test
	$(Q)$(MAKE) --no-print-directory all
	$(Q)RIOT=$(CURDIR)/riot BIN=$(CURDIR)/$(BUILD)/bin bash scripts/demo.sh

install: $(RIOT_BIN)
	install -D -m 0755 $(RIOT_BIN) $(DESTDIR)$(PREFIX)/bin/riot

# $(BUILD) only (make clean BUILD=build/asan), or the default build/,
# which holds the cross builds' and ASan's trees too, with the binaries.
clean:
	rm -rf $(BUILD) $(if $(filter build,$(BUILD)),riot riot-x86 riot-arm64,$(if $(CROSS),$(RIOT_BIN)))
