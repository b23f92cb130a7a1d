/* replay_gen: writes small .riot logs with known content for the replay
 * tests and benchmarks.
 *
 * usage: replay_gen SHAPE -o FILE [--outside DIR] [-n N] [--threads T] [--gap-us US]
 * (--gap-us: captured time between one op's entry and the next's, default 2)
 *
 * pacing   one thread: openat, then pread64 of 4 KiB at 100, 300, 600 and
 *          1000 ms after the first op, close: 1 s of captured time
 * order    N rounds: thread A creates /o/aK, writes 4 KiB, closes it and
 *          renames it to /o/bK; thread B then opens /o/bK, reads 4 KiB and
 *          closes it (the captured order crosses threads on one path);
 *          then A makes the directory /o/dK and B creates /o/dK/f in it
 *          (the order crosses threads through the parent directory);
 *          A makes /o/eK, B and C create and unlink a file each in it, and
 *          A removes it (the rmdir waits for both threads' unlinks);
 *          last, one process writes /o/shared (64 x 4 KiB) and another
 *          then reads it through its own open
 * hostile  every way a log could lead out of the root: symlinks to DIR
 *          (--outside) and to "../../..", writes, mkdir, rename, link,
 *          unlink, truncate and stat through them, paths under /proc,
 *          /sys, /dev, and a write to DIR/victim itself
 * reads    T threads in T/4 processes, each: open its 1 MiB file
 *          /r/fK, N pread64 of 4 KiB, close (a cached-read trace)
 * meta     T threads, each: N rounds of creat /m/tK/fJ, close, stat,
 *          rename to /m/tK/gJ, unlink (a metadata-heavy trace)
 *
 * Every op is recorded as succeeding the way Linux would for a fresh tree,
 * so a faithful replay shows no divergence.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/log.h"

#define MS 1000000ull
#define START_T (10ull * 1000 * MS)

struct gen {
	struct riot_writer *w;
	uint64_t t;
	const char *outside;
	unsigned n, threads;
	uint64_t gap_ns;	/* between one op's entry and the next's */
	int rc;
};

static void add(struct gen *g, struct riot_rec *r)
{
	if (!g->rc)
		g->rc = riot_writer_add(g->w, r);
}

/* One syscall record: the fields are set by the caller through *sc. */
static struct riot_syscall *sc_init(struct riot_rec *r, struct gen *g, unsigned sys,
				    uint32_t pid, uint32_t tid, int64_t ret)
{
	memset(r, 0, sizeof(*r));
	r->type = RIOT_REC_SYSCALL;
	r->sc.sys = (uint16_t)sys;
	r->sc.pid = pid;
	r->sc.tid = tid;
	r->sc.t = START_T + g->t;
	r->sc.dur = 1000;
	r->sc.ret = ret;
	g->t += g->gap_ns;
	return &r->sc;
}

static void op_open(struct gen *g, uint32_t pid, uint32_t tid, const char *path, uint64_t flags,
		    int fd, uint64_t size, bool created)
{
	struct riot_rec r;
	struct riot_syscall *sc = sc_init(&r, g, RIOT_SYS_openat, pid, tid, fd);

	sc->has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE;
	sc->dirfd = AT_FDCWD;
	sc->path.s = path;
	sc->flags = flags;
	sc->mode = 0644;
	if (fd >= 0) {
		sc->has |= RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_CREATED;
		sc->size = size;
		sc->ftype = S_IFREG;
		sc->created = created;
	}
	add(g, &r);
}

static void op_fd(struct gen *g, unsigned sys, uint32_t pid, uint32_t tid, int fd, uint64_t count,
		  uint64_t off, int64_t ret)
{
	struct riot_rec r;
	struct riot_syscall *sc = sc_init(&r, g, sys, pid, tid, ret);

	sc->has = RIOT_HAS_FD;
	sc->fd = fd;
	if (sys == RIOT_SYS_pread64 || sys == RIOT_SYS_pwrite64 || sys == RIOT_SYS_read ||
	    sys == RIOT_SYS_write) {
		sc->has |= RIOT_HAS_COUNT;
		sc->count = count;
	}
	if (sys == RIOT_SYS_pread64 || sys == RIOT_SYS_pwrite64 || sys == RIOT_SYS_ftruncate) {
		sc->has |= RIOT_HAS_OFF;
		sc->off = off;
	}
	add(g, &r);
}

static void op_path(struct gen *g, unsigned sys, uint32_t pid, uint32_t tid, const char *path,
		    const char *path2, int64_t ret)
{
	struct riot_rec r;
	struct riot_syscall *sc = sc_init(&r, g, sys, pid, tid, ret);

	sc->has = RIOT_HAS_PATH | RIOT_HAS_MODE;
	sc->path.s = path;
	sc->mode = 0755;
	if (path2) {	/* rename/link destination, or a symlink's target */
		sc->has |= RIOT_HAS_PATH2;
		sc->path2.s = path2;
	}
	add(g, &r);
}

static void gen_pacing(struct gen *g)
{
	static const uint64_t at_ms[] = { 100, 300, 600, 1000 };

	op_open(g, 100, 100, "/p/data", O_RDONLY, 3, 65536, false);
	for (unsigned i = 0; i < 4; i++) {
		g->t = at_ms[i] * MS;
		op_fd(g, RIOT_SYS_pread64, 100, 100, 3, 4096, i * 4096, 4096);
	}
	op_fd(g, RIOT_SYS_close, 100, 100, 3, 0, 0, 0);
}

static void gen_order(struct gen *g)
{
	char a[64], b[64], d[64], f[80];

	op_path(g, RIOT_SYS_mkdir, 200, 200, "/o", NULL, 0);
	for (unsigned k = 0; k < g->n; k++) {
		snprintf(a, sizeof(a), "/o/a%u", k);
		snprintf(b, sizeof(b), "/o/b%u", k);
		op_open(g, 200, 200, a, O_CREAT | O_WRONLY | O_EXCL, 3, 0, true);
		op_fd(g, RIOT_SYS_write, 200, 200, 3, 4096, 0, 4096);
		op_fd(g, RIOT_SYS_close, 200, 200, 3, 0, 0, 0);
		op_path(g, RIOT_SYS_rename, 200, 200, a, b, 0);
		op_open(g, 200, 201, b, O_RDONLY, 4, 4096, false);
		op_fd(g, RIOT_SYS_read, 200, 201, 4, 4096, 0, 4096);
		op_fd(g, RIOT_SYS_close, 200, 201, 4, 0, 0, 0);
		/* a directory made by A, a file made in it by B */
		snprintf(d, sizeof(d), "/o/d%u", k);
		snprintf(f, sizeof(f), "/o/d%u/f", k);
		op_path(g, RIOT_SYS_mkdir, 200, 200, d, NULL, 0);
		op_open(g, 200, 201, f, O_CREAT | O_WRONLY | O_EXCL, 5, 0, true);
		op_fd(g, RIOT_SYS_write, 200, 201, 5, 4096, 0, 4096);
		op_fd(g, RIOT_SYS_close, 200, 201, 5, 0, 0, 0);
		/* a directory A makes, B and C fill and empty, A removes */
		snprintf(d, sizeof(d), "/o/e%u", k);
		op_path(g, RIOT_SYS_mkdir, 200, 200, d, NULL, 0);
		snprintf(f, sizeof(f), "/o/e%u/f", k);
		op_open(g, 200, 201, f, O_CREAT | O_WRONLY | O_EXCL, 6, 0, true);
		op_fd(g, RIOT_SYS_close, 200, 201, 6, 0, 0, 0);
		snprintf(a, sizeof(a), "/o/e%u/g", k);
		op_open(g, 200, 202, a, O_CREAT | O_WRONLY | O_EXCL, 7, 0, true);
		op_fd(g, RIOT_SYS_close, 200, 202, 7, 0, 0, 0);
		op_path(g, RIOT_SYS_unlink, 200, 201, f, NULL, 0);
		op_path(g, RIOT_SYS_unlink, 200, 202, a, NULL, 0);
		op_path(g, RIOT_SYS_rmdir, 200, 200, d, NULL, 0);
	}
	/* process 210 writes /o/shared through its open, then process 211
	 * reads it through another: the same file, two descriptions */
	op_open(g, 210, 210, "/o/shared", O_CREAT | O_WRONLY | O_EXCL, 3, 0, true);
	for (unsigned k = 0; k < 64; k++)
		op_fd(g, RIOT_SYS_write, 210, 210, 3, 4096, 0, 4096);
	op_fd(g, RIOT_SYS_close, 210, 210, 3, 0, 0, 0);
	op_open(g, 211, 211, "/o/shared", O_RDONLY, 3, 64 * 4096, false);
	for (unsigned k = 0; k < 64; k++)
		op_fd(g, RIOT_SYS_read, 211, 211, 3, 4096, 0, 4096);
	op_fd(g, RIOT_SYS_close, 211, 211, 3, 0, 0, 0);
}

static void gen_hostile(struct gen *g)
{
	char out[512], victim[600], inside[600];

	snprintf(out, sizeof(out), "%s", g->outside ? g->outside : "/tmp/riot-outside");
	snprintf(victim, sizeof(victim), "%s/victim", out);
	snprintf(inside, sizeof(inside), "%s/new", out);
	op_path(g, RIOT_SYS_mkdir, 300, 300, "/tmp", NULL, 0);
	op_path(g, RIOT_SYS_mkdir, 300, 300, "/h", NULL, 0);
	op_path(g, RIOT_SYS_symlink, 300, 300, "/h/abs", out, 0);
	op_path(g, RIOT_SYS_symlink, 300, 300, "/h/rel", "../../../../../..", 0);
	op_path(g, RIOT_SYS_symlink, 300, 300, "/h/etc", "/etc", 0);
	/* writes through the symlinks and to the outside path itself */
	op_open(g, 300, 300, "/h/abs/victim", O_WRONLY | O_TRUNC, 3, 0, false);
	op_fd(g, RIOT_SYS_write, 300, 300, 3, 100, 0, 100);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_open(g, 300, 300, victim, O_WRONLY | O_APPEND, 3, 0, false);
	op_fd(g, RIOT_SYS_write, 300, 300, 3, 100, 0, 100);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_open(g, 300, 300, "/h/rel/tmp/riot-hostile-created", O_CREAT | O_WRONLY, 3, 0, true);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_open(g, 300, 300, "/h/etc/passwd", O_RDONLY, 3, 4096, false);
	op_fd(g, RIOT_SYS_read, 300, 300, 3, 4096, 0, 4096);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_path(g, RIOT_SYS_mkdir, 300, 300, "/h/abs/newdir", NULL, 0);
	op_path(g, RIOT_SYS_mkdir, 300, 300, inside, NULL, 0);
	op_path(g, RIOT_SYS_truncate, 300, 300, "/h/abs/victim", NULL, 0);
	op_path(g, RIOT_SYS_stat, 300, 300, "/h/abs/victim", NULL, 0);
	op_path(g, RIOT_SYS_chmod, 300, 300, "/h/abs/victim", NULL, 0);
	op_path(g, RIOT_SYS_rename, 300, 300, "/h/abs/victim", "/h/moved", 0);
	op_path(g, RIOT_SYS_link, 300, 300, "/h/abs/keep", "/h/linked", 0);
	op_path(g, RIOT_SYS_unlink, 300, 300, "/h/abs/keep", NULL, 0);
	/* pseudo filesystems: skipped and counted */
	op_open(g, 300, 300, "/proc/self/status", O_RDONLY, 3, 0, false);
	op_fd(g, RIOT_SYS_read, 300, 300, 3, 4096, 0, 1000);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_open(g, 300, 300, "/dev/null", O_WRONLY, 3, 0, false);
	op_fd(g, RIOT_SYS_write, 300, 300, 3, 100, 0, 100);
	op_fd(g, RIOT_SYS_close, 300, 300, 3, 0, 0, 0);
	op_path(g, RIOT_SYS_stat, 300, 300, "/sys/kernel", NULL, 0);
}

static void gen_reads(struct gen *g)
{
	char path[64];
	unsigned t = g->threads;

	for (unsigned i = 0; i < t; i++) {
		snprintf(path, sizeof(path), "/r/f%u", i);
		op_open(g, 400 + i / 4, 1000 + i, path, O_RDONLY, 3 + (int)(i % 4), 1 << 20, false);
	}
	for (unsigned k = 0; k < g->n; k++)
		for (unsigned i = 0; i < t; i++) {
			uint64_t off = ((k * 7919u + i * 104729u) % 256u) * 4096u;

			op_fd(g, RIOT_SYS_pread64, 400 + i / 4, 1000 + i, 3 + (int)(i % 4), 4096, off,
			      4096);
		}
	for (unsigned i = 0; i < t; i++)
		op_fd(g, RIOT_SYS_close, 400 + i / 4, 1000 + i, 3 + (int)(i % 4), 0, 0, 0);
}

static void gen_meta(struct gen *g)
{
	char d[64], f[64], f2[64];

	op_path(g, RIOT_SYS_mkdir, 500, 500, "/m", NULL, 0);
	for (unsigned i = 0; i < g->threads; i++) {
		snprintf(d, sizeof(d), "/m/t%u", i);
		op_path(g, RIOT_SYS_mkdir, 500 + i / 4, 2000 + i, d, NULL, 0);
	}
	for (unsigned k = 0; k < g->n; k++)
		for (unsigned i = 0; i < g->threads; i++) {
			uint32_t pid = 500 + i / 4, tid = 2000 + i;

			snprintf(f, sizeof(f), "/m/t%u/f%u", i, k);
			snprintf(f2, sizeof(f2), "/m/t%u/g%u", i, k);
			op_open(g, pid, tid, f, O_CREAT | O_WRONLY | O_EXCL, 3 + (int)(i % 4), 0, true);
			op_fd(g, RIOT_SYS_close, pid, tid, 3 + (int)(i % 4), 0, 0, 0);
			op_path(g, RIOT_SYS_stat, pid, tid, f, NULL, 0);
			op_path(g, RIOT_SYS_rename, pid, tid, f, f2, 0);
			op_path(g, RIOT_SYS_unlink, pid, tid, f2, NULL, 0);
		}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "outside", required_argument, NULL, 'x' }, { "threads", required_argument, NULL, 't' },
		{ "gap-us", required_argument, NULL, 'g' },
		{ 0 },
	};
	struct riot_log_header h = {
		.host = "replay_gen", .kernel = "synthetic", .arch = "x86_64",
		.riot_version = RIOT_VERSION, .cmdline = "replay_gen", .start_t = START_T,
	};
	struct gen g = { .n = 100, .threads = 8, .gap_ns = 2000 };
	const char *out = NULL, *shape;
	int c;

	while ((c = getopt_long(argc, argv, "o:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': g.n = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'x': g.outside = optarg; break;
		case 't': g.threads = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'g': g.gap_ns = strtoull(optarg, NULL, 10) * 1000; break;
		default: return 2;
		}
	}
	if (!out || optind + 1 != argc || !g.threads) {
		fprintf(stderr, "usage: replay_gen pacing|order|hostile|reads|meta -o FILE "
			"[-n N] [--threads T] [--gap-us US] [--outside DIR]\n");
		return 2;
	}
	shape = argv[optind];
	g.w = riot_writer_open(out, &h, NULL);
	if (!g.w) {
		fprintf(stderr, "replay_gen: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (!strcmp(shape, "pacing")) gen_pacing(&g);
	else if (!strcmp(shape, "order")) gen_order(&g);
	else if (!strcmp(shape, "hostile")) gen_hostile(&g);
	else if (!strcmp(shape, "reads")) gen_reads(&g);
	else if (!strcmp(shape, "meta")) gen_meta(&g);
	else {
		fprintf(stderr, "replay_gen: unknown shape %s\n", shape);
		riot_writer_abort(g.w);
		return 2;
	}
	if (g.rc || riot_writer_close(g.w) < 0) {
		fprintf(stderr, "replay_gen: %s: write failed\n", out);
		return 1;
	}
	return 0;
}
