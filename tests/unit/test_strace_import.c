/* tests/unit/test_strace_import.c: strace lines in, exact records out. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "convert/import_strace_lex.h"
#include "convert/strace.h"
#include "tests/unit/unit.h"

#define MAX_RECS 64

/* A record as emitted, with its strings copied. */
struct got {
	struct riot_rec r;
	char path[256], path2[256];
};

static struct got recs[MAX_RECS];
static int nrecs;

static void copy_str(struct riot_str *s, char *buf)
{
	if (!s->s)
		return;
	snprintf(buf, 256, "%s", s->s);
	s->s = buf;
}

static int collect(const struct riot_rec *r, void *arg)
{
	struct got *g;

	(void)arg;
	if (nrecs == MAX_RECS)
		return -ENOSPC;
	g = &recs[nrecs++];
	g->r = *r;
	switch (r->type) {
	case RIOT_REC_SYSCALL:
		copy_str(&g->r.sc.path, g->path);
		copy_str(&g->r.sc.path2, g->path2);
		break;
	case RIOT_REC_PROC:
		copy_str(&g->r.proc.path, g->path);
		copy_str(&g->r.proc.comm, g->path2);
		break;
	case RIOT_REC_SNAP_PROC: copy_str(&g->r.sproc.cwd, g->path); break;
	case RIOT_REC_SNAP_FD: copy_str(&g->r.sfd.path, g->path); break;
	}
	return 0;
}

static struct strace_importer *im;

static void feed(const char *line)
{
	CHECK_EQ(strace_importer_line(im, line, strlen(line)), 0);
}

static const struct riot_syscall *sc_at(int i, unsigned sys)
{
	CHECK(i < nrecs);
	if (i >= nrecs)
		return NULL;
	CHECK_EQ(recs[i].r.type, RIOT_REC_SYSCALL);
	CHECK_EQ(recs[i].r.sc.sys, sys);
	return recs[i].r.type == RIOT_REC_SYSCALL ? &recs[i].r.sc : NULL;
}

#define T0 1700000000000000000ull

static void test_open_and_snapshots(void)
{
	const struct riot_syscall *sc;

	nrecs = 0;
	feed("1234 1700000000.000100 openat(AT_FDCWD</home/u>, \"f.txt\", O_RDONLY|O_CLOEXEC) = 3</home/u/f.txt> <0.000010>");
	CHECK_EQ(nrecs, 2);
	CHECK_EQ(recs[0].r.type, RIOT_REC_SNAP_PROC);
	CHECK_EQ(recs[0].r.sproc.pid, 1234);
	CHECK_STR(recs[0].r.sproc.cwd.s, "/home/u");
	sc = sc_at(1, RIOT_SYS_openat);
	if (sc) {
		CHECK_EQ(sc->pid, 1234);
		CHECK_EQ(sc->tid, 1234);
		CHECK_U64(sc->t, T0 + 100000);
		CHECK_U64(sc->dur, 10000);
		CHECK_EQ(sc->ret, 3);
		CHECK_EQ(sc->dirfd, AT_FDCWD);
		CHECK_STR(sc->path.s, "f.txt");
		CHECK_U64(sc->flags, O_RDONLY | O_CLOEXEC);
		CHECK_U64(sc->has & (RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS),
			  RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS);
	}

	/* fd 5 was never opened in the trace: a SNAP_FD first; fd 3 was */
	nrecs = 0;
	feed("1234 1700000000.000200 read(5</data/x (deleted)>, \"abc\", 10) = 3 <0.000002>");
	feed("1234 1700000000.000300 read(3</home/u/f.txt>, \"\"..., 4096) = 0 <0.000001>");
	CHECK_EQ(nrecs, 3);
	CHECK_EQ(recs[0].r.type, RIOT_REC_SNAP_FD);
	CHECK_EQ(recs[0].r.sfd.pid, 1234);
	CHECK_EQ(recs[0].r.sfd.fd, 5);
	CHECK_STR(recs[0].r.sfd.path.s, "/data/x");
	CHECK_EQ(recs[0].r.sfd.ftype, S_IFREG);
	CHECK_EQ(recs[0].r.sfd.flags, O_RDWR);
	sc = sc_at(1, RIOT_SYS_read);
	if (sc) {
		CHECK_EQ(sc->fd, 5);
		CHECK_U64(sc->count, 10);
		CHECK_EQ(sc->ret, 3);
	}
	sc = sc_at(2, RIOT_SYS_read);
	if (sc)
		CHECK_EQ(sc->ret, 0);

	/* errors; the cwd is known now: no second SNAP_PROC */
	nrecs = 0;
	feed("1234 1700000000.000400 openat(AT_FDCWD</home/u>, \"nope\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000003>");
	CHECK_EQ(nrecs, 1);
	sc = sc_at(0, RIOT_SYS_openat);
	if (sc)
		CHECK_EQ(sc->ret, -ENOENT);

	/* escapes, mode, flags */
	nrecs = 0;
	feed("1234 1700000000.000500 openat(AT_FDCWD</home/u>, \"a\\\"b\\\\c\\x41\\101\\n\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4</home/u/x> <0.000004>");
	sc = sc_at(0, RIOT_SYS_openat);
	if (sc) {
		CHECK_STR(sc->path.s, "a\"b\\cAA\n");
		CHECK_EQ(sc->mode, 0644);
		CHECK_U64(sc->flags, O_WRONLY | O_CREAT | O_TRUNC);
	}
}

static void test_calls(void)
{
	const struct riot_syscall *sc;

	nrecs = 0;
	feed("1234 1700000001.000000 pread64(3</home/u/f.txt>,  <unfinished ...>");
	feed("1234 1700000001.500000 <... pread64 resumed>\"data\", 4, 100) = 4 <0.500000>");
	feed("1234 1700000001.600000 lseek(3</home/u/f.txt>, -10, SEEK_END) = 90 <0.000001>");
	feed("1234 1700000001.700000 fcntl(3</home/u/f.txt>, F_DUPFD_CLOEXEC, 10) = 10</home/u/f.txt> <0.000001>");
	feed("1234 1700000001.800000 newfstatat(AT_FDCWD</home/u>, \"f.txt\", {st_mode=S_IFREG|0644, st_size=100, ...}, 0) = 0 <0.000001>");
	feed("1234 1700000001.900000 copy_file_range(3</home/u/f.txt>, [0 => 6], 4</home/u/x>, NULL, 6, 0) = 6 <0.000001>");
	feed("1234 1700000002.000000 preadv2(3</home/u/f.txt>, [{iov_base=\"ab\", iov_len=2}], 1, 7, RWF_NOWAIT) = 2 <0.000001>");
	feed("1234 1700000002.100000 close(3</home/u/f.txt>) = 0 <0.000001>");
	CHECK_EQ(nrecs, 7);
	sc = sc_at(0, RIOT_SYS_pread64);
	if (sc) {
		CHECK_U64(sc->t, T0 + 1000000000ull);
		CHECK_U64(sc->dur, 500000000ull);
		CHECK_U64(sc->off, 100);
		CHECK_U64(sc->count, 4);
		CHECK_EQ(sc->ret, 4);
	}
	sc = sc_at(1, RIOT_SYS_lseek);
	if (sc) {
		CHECK_EQ((int64_t)sc->off, -10);
		CHECK_EQ(sc->cmd, SEEK_END);
		CHECK_EQ(sc->ret, 90);
	}
	sc = sc_at(2, RIOT_SYS_fcntl);
	if (sc) {
		CHECK_EQ(sc->cmd, F_DUPFD_CLOEXEC);
		CHECK_U64(sc->arg, 10);
	}
	sc = sc_at(3, RIOT_SYS_newfstatat);
	if (sc) {
		CHECK_U64(sc->size, 100);
		CHECK_EQ(sc->ftype, S_IFREG);
	}
	sc = sc_at(4, RIOT_SYS_copy_file_range);
	if (sc) {
		CHECK_U64(sc->off, 0);
		CHECK(sc->has & RIOT_HAS_OFF);
		CHECK(!(sc->has & RIOT_HAS_OFF2));
		CHECK_EQ(sc->fd2, 4);
		CHECK_U64(sc->count, 6);
	}
	sc = sc_at(5, RIOT_SYS_preadv2);
	if (sc) {
		CHECK_U64(sc->off, 7);
		CHECK_EQ(sc->iovcnt, 1);
		CHECK_U64(sc->flags, 8);	/* RWF_NOWAIT */
	}
}

static void test_processes(void)
{
	const struct riot_syscall *sc;

	nrecs = 0;
	feed("1234 1700000003.000000 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[1240], tls=0x7f00, child_tidptr=0x7f10) = 1240 <0.000100>");
	feed("1240 1700000003.100000 write(4</home/u/x>, \"x\", 1) = 1 <0.000001>");
	CHECK_EQ(nrecs, 3);
	CHECK_EQ(recs[0].r.type, RIOT_REC_PROC);
	CHECK_EQ(recs[0].r.proc.kind, RIOT_PROC_FORK);
	CHECK_EQ(recs[0].r.proc.pid, 1234);
	CHECK_EQ(recs[0].r.proc.child_pid, 1234);
	CHECK_EQ(recs[0].r.proc.child_tid, 1240);
	CHECK(recs[0].r.proc.clone_flags & CLONE_THREAD);
	sc_at(1, RIOT_SYS_clone);
	sc = sc_at(2, RIOT_SYS_write);
	if (sc) {
		CHECK_EQ(sc->pid, 1234);	/* a thread of 1234 */
		CHECK_EQ(sc->tid, 1240);
	}

	/* the child's lines come before vfork returns: one FORK, at once */
	nrecs = 0;
	feed("1234 1700000004.000000 vfork( <unfinished ...>");
	feed("1250 1700000004.000100 execve(\"/usr/bin/true\", [\"true\"], 0x7ffd /* 3 vars */ <unfinished ...>");
	feed("1234 1700000004.000300 <... vfork resumed>) = 1250 <0.000300>");
	feed("1250 1700000004.000400 <... execve resumed>) = 0 <0.000300>");
	feed("1250 1700000004.000500 +++ exited with 3 +++");
	feed("1240 1700000004.000600 +++ killed by SIGKILL (core dumped) +++");
	CHECK_EQ(nrecs, 6);
	CHECK_EQ(recs[0].r.type, RIOT_REC_PROC);
	CHECK_EQ(recs[0].r.proc.kind, RIOT_PROC_FORK);
	CHECK_EQ(recs[0].r.proc.child_pid, 1250);
	CHECK_U64(recs[0].r.proc.clone_flags, CLONE_VM | CLONE_VFORK | 17);
	CHECK_U64(recs[0].r.proc.t, T0 + 4000100000ull);
	sc_at(1, RIOT_SYS_vfork);
	CHECK_EQ(recs[2].r.type, RIOT_REC_PROC);
	CHECK_EQ(recs[2].r.proc.kind, RIOT_PROC_EXEC);
	CHECK_STR(recs[2].r.proc.path.s, "/usr/bin/true");
	CHECK_STR(recs[2].r.proc.comm.s, "true");
	sc = sc_at(3, RIOT_SYS_execve);
	if (sc)
		CHECK_U64(sc->t, T0 + 4000100000ull);
	CHECK_EQ(recs[4].r.proc.kind, RIOT_PROC_EXIT);
	CHECK_EQ(recs[4].r.proc.exit_code, 3 << 8);
	CHECK_EQ(recs[5].r.proc.kind, RIOT_PROC_EXIT);
	CHECK_EQ(recs[5].r.proc.pid, 1234);
	CHECK_EQ(recs[5].r.proc.tid, 1240);
	CHECK_EQ(recs[5].r.proc.exit_code, 9 | 0x80);
}

static void test_skips(void)
{
	const struct strace_stats *st = strace_importer_stats(im);
	uint64_t before[STRACE_SKIP_COUNT];

	memcpy(before, st->skipped, sizeof(before));
	nrecs = 0;
	feed("1234 1700000005.000000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---");
	feed("1234 1700000005.000001 brk(NULL) = 0x5555 <0.000001>");
	/* no file shown behind the address: left out like other calls */
	feed("1234 1700000005.000001 madvise(0x7f0000000000, 8192, MADV_DONTNEED) = 0 <0.000001>");
	feed("1234 1700000005.000001 mremap(0x7f0000000000, 8192, 16384, MREMAP_MAYMOVE) = 0x7f0000004000 <0.000001>");
	feed("1234 1700000005.000002 write(1</dev/pts/0>, \"a\", 1) = ?");
	feed("1234 1700000005.000003 read(0</dev/pts/0<char 136:0>>, 0x7ffc, 4096) = ? ERESTARTSYS (To be restarted if SA_RESTART is set) <0.1>");
	feed("1234 1700000005.000004 <... write resumed>) = 1 <0.000001>");
	feed("openat(AT_FDCWD, \"x\", O_RDONLY) = 3");
	feed("strace: Process 1234 attached");
	feed("hello from the program");
	feed("1234 1700000005.000005 read(3</x>, \"\", 1 <unfinished ...>");
	feed("1234 1700000005.000006 close(3, 4, 5) = 0 <0.000001>");
	feed("1234 1700000005.000007 openat(AT_FDCWD, \"y\", O_BOGUS) = 5 <0.000001>");
	CHECK_EQ(strace_importer_finish(im), 0);
	CHECK_EQ(nrecs, 2);	/* close and openat */
	CHECK_U64(st->skipped[STRACE_SKIP_SIGNAL] - before[STRACE_SKIP_SIGNAL], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_OTHER_SYSCALL] - before[STRACE_SKIP_OTHER_SYSCALL], 3);
	CHECK_U64(st->skipped[STRACE_SKIP_NO_RESULT] - before[STRACE_SKIP_NO_RESULT], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_RESTARTED] - before[STRACE_SKIP_RESTARTED], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_ORPHAN_RESUME] - before[STRACE_SKIP_ORPHAN_RESUME], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_NO_TIMESTAMP] - before[STRACE_SKIP_NO_TIMESTAMP], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_MESSAGE] - before[STRACE_SKIP_MESSAGE], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_UNPARSED] - before[STRACE_SKIP_UNPARSED], 1);
	CHECK_U64(st->skipped[STRACE_SKIP_UNFINISHED] - before[STRACE_SKIP_UNFINISHED], 1);
	CHECK_EQ(st->unknown_flags, 1);
}

static void test_lexer(void)
{
	struct sv s;
	int64_t v;
	uint64_t u;
	struct sv note;
	struct strace_line ln;
	char buf[64];
	bool trunc;
	uint32_t ft;

#define SV(lit) ((struct sv){ lit, sizeof(lit) - 1 })
	CHECK_EQ(strace_int(SV("0x1f"), &v, NULL), 0);
	CHECK_EQ(v, 31);
	CHECK_EQ(strace_int(SV("0755"), &v, NULL), 0);
	CHECK_EQ(v, 0755);
	CHECK_EQ(strace_int(SV("-100"), &v, NULL), 0);
	CHECK_EQ(v, -100);
	CHECK_EQ(strace_int(SV("3</a"), &v, NULL), -EINVAL);
	CHECK_EQ(strace_int(SV("7</dev/null<char 1:3>>"), &v, &note), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(strace_note_path(note, buf, sizeof(buf), &trunc, &ft), 0);
	CHECK_STR(buf, "/dev/null");
	CHECK_EQ(ft, S_IFCHR);
	CHECK_EQ(strace_int(SV("12abc"), &v, NULL), -EINVAL);
	CHECK_EQ(strace_int(SV("99999999999999999999999"), &v, NULL), -EINVAL);
	CHECK_EQ(strace_flags(SV("O_RDWR|0x80000"), &u), 0);
	CHECK_U64(u, O_RDWR | 0x80000);
	CHECK_EQ(strace_flags(SV("O_RDWR|O_NOPE"), &u), -ENOENT);
	CHECK_U64(u, O_RDWR);
	CHECK_EQ(strace_string(SV("\"abc\"..."), buf, sizeof(buf), &trunc), 0);
	CHECK_STR(buf, "abc");
	CHECK(trunc);
	CHECK_EQ(strace_string(SV("\"abc"), buf, sizeof(buf), &trunc), -EINVAL);
	CHECK_EQ(strace_string(SV("\"a\\0b\""), buf, sizeof(buf), &trunc), 0);
	CHECK_STR(buf, "ab");
	CHECK(trunc);	/* a NUL cannot be in a log string */
	CHECK_EQ(strace_offp(SV("[5 => 9]"), &u), 0);
	CHECK_U64(u, 5);
	s = SV("{flags=O_RDONLY|O_CLOEXEC, mode=0, resolve=RESOLVE_IN_ROOT}");
	CHECK(strace_field(s, "resolve", &note));
	CHECK_EQ(strace_flags(note, &u), 0);
	CHECK_U64(u, 0x10);
	CHECK_EQ(strace_split_line("[pid  77] 1.5 close(3) = 0", 27, &ln), 0);
	CHECK_EQ(ln.kind, STRACE_LINE_CALL);
	CHECK_EQ(ln.tid, 77);
	CHECK_U64(ln.t, 1500000000ull);
	CHECK_EQ(strace_split_line("1.000001 close(3) = 0", 21, &ln), 0);
	CHECK(!ln.has_tid);
	CHECK_U64(ln.t, 1000001000ull);
	CHECK_EQ(strace_errno(SV("EBADF")), EBADF);
	CHECK_EQ(strace_errno(SV("EWHAT")), 0);
}

/* Bytes no strace would write never crash it and never leave the input. */
static void test_garbage(void)
{
	static const char *const lines[] = {
		"1 1.1 openat(", "1 1.1 openat(\"", "1 1.1 read(3<, \"\", 1) = 1",
		"1 1.1 read(3</x>, \"\\", "1 1.1 close(3) = ", "1 1.1 close(3) = -1",
		"1 1.1 close(3) = -1 EBADF (", "1 1.1 <... close resumed", "[pid",
		"[pid 5", "1 1.1 +++ killed by SIGWHAT +++", "1 1.1 +++ exited with 999 +++",
		"1 1.1 clone(flags=) = 5", "1 1.1 lseek(3, 0, SEEK_SET) = 0 <1.>",
		"1 1.1 statx(AT_FDCWD</x>, \"a\", 0, STATX_ALL, {stx_mode=, stx_size=}) = 0",
	};

	for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t n = strlen(lines[i]);
		char *copy = malloc(n);	/* exactly n bytes: ASan sees overreads */

		memcpy(copy, lines[i], n);
		CHECK_EQ(strace_importer_line(im, copy, n), 0);
		free(copy);
	}
}

/* Many tasks: 300k pids that each make one call, then 50k tasks that each
 * leave a clone unfinished while 50k new tids appear, each the child of the
 * oldest pending clone. Exact counts; linear work (a scan of the live tasks
 * per new task made this quadratic). */
struct many {
	unsigned syscalls, forks, exits, wrong_parent;
	uint32_t next_parent;
};

static int count_many(const struct riot_rec *r, void *arg)
{
	struct many *m = arg;

	if (r->type == RIOT_REC_SYSCALL)
		m->syscalls++;
	if (r->type == RIOT_REC_PROC && r->proc.kind == RIOT_PROC_EXIT)
		m->exits++;
	if (r->type == RIOT_REC_PROC && r->proc.kind == RIOT_PROC_FORK) {
		m->forks++;
		m->wrong_parent += r->proc.pid != m->next_parent;
		m->next_parent++;
	}
	return 0;
}

static void test_many_tasks(void)
{
	struct strace_import_opts o = { 0 };
	struct many m = { .next_parent = 1000000 };
	struct strace_importer *x = strace_importer_new(&o, count_many, &m);
	char line[200];
	int n;

	CHECK(x != NULL);
	if (!x)
		return;
	for (uint32_t pid = 2; pid < 300002; pid++) {
		n = snprintf(line, sizeof(line), "%u 1700000001.%06u close(7) = 0 <0.000001>",
			     pid, pid % 1000000);
		CHECK_EQ(strace_importer_line(x, line, (size_t)n), 0);
	}
	for (uint32_t pid = 2; pid < 300002; pid += 2) {	/* half of them end */
		n = snprintf(line, sizeof(line), "%u 1700000002.000000 +++ exited with 0 +++", pid);
		CHECK_EQ(strace_importer_line(x, line, (size_t)n), 0);
	}
	for (uint32_t pid = 1000000; pid < 1050000; pid++) {
		n = snprintf(line, sizeof(line), "%u 1700000003.000000 close(9) = 0", pid);
		CHECK_EQ(strace_importer_line(x, line, (size_t)n), 0);
	}
	for (uint32_t pid = 1000000; pid < 1050000; pid++) {
		n = snprintf(line, sizeof(line), "%u 1700000003.000000 clone(child_stack=NULL, "
			     "flags=CLONE_CHILD_CLEARTID|SIGCHLD <unfinished ...>", pid);
		CHECK_EQ(strace_importer_line(x, line, (size_t)n), 0);
	}
	for (uint32_t tid = 2000000; tid < 2050000; tid++) {
		n = snprintf(line, sizeof(line), "%u 1700000004.000000 close(8) = 0 <0.000001>",
			     tid);
		CHECK_EQ(strace_importer_line(x, line, (size_t)n), 0);
	}
	CHECK_EQ(strace_importer_finish(x), 0);
	CHECK_EQ(m.syscalls, 300000 + 50000 + 50000);
	CHECK_EQ(m.exits, 150000);
	CHECK_EQ(m.forks, 50000);
	CHECK_EQ(m.wrong_parent, 0);
	CHECK_EQ(strace_importer_stats(x)->forks_guessed, 49999);
	strace_importer_free(x);
}

int main(void)
{
	struct strace_import_opts o = { 0 };

	im = strace_importer_new(&o, collect, NULL);
	CHECK(im != NULL);
	if (!im)
		return unit_done();
	test_lexer();
	test_open_and_snapshots();
	test_calls();
	test_processes();
	test_skips();
	test_garbage();
	strace_importer_free(im);
	test_many_tasks();
	return unit_done();
}
