/* benchmarks/replay_floor.c: the speed floor of a replay, the least time
 * a replayer can take for a log's data operations on this machine.
 *
 *   replay_floor LOG --root ROOT [--rounds N] [--measure] [--shared-fds]
 *                [--speed S]
 *
 * Reads LOG once through riot's reader and resolver (the operations riot
 * export fio would give fio: every read and write at its captured offset
 * and length, fsync and fdatasync, on regular files) into an array, opens
 * each file once beneath ROOT (create the tree first: riot init LOG --root
 * ROOT; files the workload created are created here), then issues the array with pread, pwrite, fsync and fdatasync in
 * one thread, nothing else, N times (default 3). Threads of the log are
 * issued in log order in that one thread: a floor for single-stream logs.
 * Writes write a buffer of random bytes.
 *
 * --measure adds what any replay that measures must add, nothing else:
 * each call timed by two clock reads into a latency histogram (lib/hist),
 * and a write's bytes made for its block by riot's fill (--fill random:
 * unique blocks, so no filesystem is flattered), outside the call's time.
 * The gap between the two floors is the price of measuring; the gap
 * between this floor and riot is riot's own machinery.
 *
 * --shared-fds starts one more thread, which only waits, before the
 * rounds: the process's fd table is then shared, as it is in any replayer
 * that reads its log on one thread and issues on another, and Linux takes
 * and drops a reference to the file on every fd call (a program alone in
 * its table skips that). What it adds to --measure is the price of a
 * second thread, not of anything riot does.
 *
 * --speed S paces --measure's loop: each call is issued when it is due,
 * its captured entry time over S from the first call's (all threads' calls
 * in log order), the thread spinning on the clock in between and never
 * sleeping. Each call's lateness (the clock read right before the call,
 * less its due time) goes to a second histogram. It is the floor of a
 * paced replay: a thread of its own on the CPU, nothing between the calls
 * but the clock; the CPU the machine takes from it, and calls that last
 * longer than the schedule allows, are all that makes it late.
 *
 * Prints "ops N threads T elapsed_ns E ops_per_s R" with the best round's
 * elapsed time (first call to last return), and with --speed
 * " delay_p50_ns P delay_p99_ns Q delay_max_ns M" of the last round.
 * Exits 1 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert/fio.h"
#include "lib/hist.h"
#include "replay/fill.h"

enum verb { V_READ, V_WRITE, V_FSYNC, V_FDATASYNC };

struct floor_op {
	uint64_t t;		/* captured entry, ns after the first op's */
	uint64_t off;
	uint32_t len;
	uint16_t file;		/* index into files[] */
	uint8_t verb;
};

#define MAX_FILES 4096
#define MAX_TIDS 256

struct floor {
	struct floor_op *ops;
	size_t nops, cap;
	char *names[MAX_FILES];
	int fds[MAX_FILES];
	unsigned nfiles;
	uint32_t tids[MAX_TIDS];
	unsigned ntids;
	size_t max_len;
	uint64_t t_first;	/* the first op's captured entry */
};

static int file_index(struct floor *f, const char *name)
{
	for (unsigned i = 0; i < f->nfiles; i++)
		if (strcmp(f->names[i], name) == 0)
			return (int)i;
	if (f->nfiles == MAX_FILES)
		return -E2BIG;
	f->names[f->nfiles] = strdup(name);
	if (!f->names[f->nfiles])
		return -ENOMEM;
	return (int)f->nfiles++;
}

static int collect(void *arg, uint32_t tid, uint64_t t, const char *name, const char *verb,
		   uint64_t off, uint64_t len)
{
	struct floor *f = arg;
	int ix = file_index(f, name);
	unsigned k;

	if (ix < 0)
		return ix;
	for (k = 0; k < f->ntids && f->tids[k] != tid; k++)
		;
	if (k == f->ntids && f->ntids < MAX_TIDS)
		f->tids[f->ntids++] = tid;
	if (f->nops == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4096;
		struct floor_op *n = realloc(f->ops, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->ops = n;
		f->cap = cap;
	}
	if (len > (1u << 30))
		return -EFBIG;
	if (!f->nops)
		f->t_first = t;
	f->ops[f->nops++] = (struct floor_op){
		.t = t > f->t_first ? t - f->t_first : 0, .off = off, .len = (uint32_t)len, .file = (uint16_t)ix,
		.verb = strcmp(verb, "read") == 0 ? V_READ : strcmp(verb, "write") == 0 ? V_WRITE :
			strcmp(verb, "sync") == 0 ? V_FSYNC : V_FDATASYNC,
	};
	if (len > f->max_len)
		f->max_len = len;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static ssize_t call(const struct floor_op *o, int fd, char *buf)
{
	switch (o->verb) {
	case V_READ:
		return pread(fd, buf, o->len, (off_t)o->off);
	case V_WRITE:
		return pwrite(fd, buf, o->len, (off_t)o->off);
	case V_FSYNC:
		return fsync(fd);
	default:
		return fdatasync(fd);
	}
}

/* One round with the price of measuring (--measure); h: the latencies.
 * speed > 0: paced, each call's lateness in late. */
static int issue_measured(const struct floor *f, char *buf, struct hist *h, double speed,
			  struct hist *late)
{
	static const struct fill random_fill = { .kind = FILL_RANDOM };
	uint64_t start = now_ns();

	for (size_t i = 0; i < f->nops; i++) {
		const struct floor_op *o = &f->ops[i];
		uint64_t t0;
		ssize_t n;

		if (o->verb == V_WRITE)
			fill_bytes(&random_fill, o->file, o->off, buf, o->len);
		t0 = now_ns();
		if (speed > 0) {
			uint64_t due = start + (uint64_t)((double)o->t / speed);

			while (t0 < due)
				t0 = now_ns();
			hist_add(late, t0 - due);
		}
		n = call(o, f->fds[o->file], buf);
		hist_add(h, now_ns() - t0);
		if (n < 0)
			return -errno;
	}
	return 0;
}

/* One round: every op in order. 0, or -errno of the first call that failed. */
static int issue(const struct floor *f, char *buf)
{
	for (size_t i = 0; i < f->nops; i++)
		if (call(&f->ops[i], f->fds[f->ops[i].file], buf) < 0)
			return -errno;
	return 0;
}

static void floor_free(struct floor *f)
{
	for (unsigned i = 0; i < f->nfiles; i++) {
		if (f->fds[i] >= 0)
			close(f->fds[i]);
		free(f->names[i]);
	}
	free(f->ops);
	free(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: replay_floor LOG --root ROOT [--rounds N] [--measure] [--shared-fds]\n"
		"  --root ROOT   where riot init LOG --root ROOT made the tree (required)\n"
		"  --rounds N    rounds over the operations, the best is printed (default 3)\n"
		"  --measure     time each call and make each write's bytes, as riot does\n"
		"  --shared-fds  a second thread, waiting, shares the fd table\n"
		"  --speed S     --measure, each call when due at S times the captured pace\n");
	exit(2);
}

/* The second thread of --shared-fds: it waits until the process exits. */
static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "measure", no_argument, NULL, 'm' },
		{ "shared-fds", no_argument, NULL, 's' },
		{ "speed", required_argument, NULL, 'p' },
		{ 0 },
	};
	struct floor *f = calloc(1, sizeof(*f));
	struct fio_export_opts o = { .engine = FIO_ENGINE_PSYNC, .on_io = collect };
	struct fio_export_stats st;
	const char *root = NULL;
	uint64_t best = UINT64_MAX;
	unsigned rounds = 3;
	bool measure = false, shared = false;
	double speed = 0;
	struct hist *h = NULL, *late = NULL;
	pthread_t idle;
	char err[512], *buf = NULL;
	int c, rc;

	if (!f)
		return 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			root = optarg;
		else if (c == 'n')
			rounds = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'm')
			measure = true;
		else if (c == 's')
			shared = true;
		else if (c == 'p')
			speed = strtod(optarg, NULL);
		else
			usage();
	}
	if (!root || optind != argc - 1 || rounds == 0 || speed < 0)
		usage();
	if (speed > 0)
		measure = true;
	o.root = root;
	o.on_io_arg = f;
	rc = fio_export(RIOT_LOGS_ONE(argv[optind]), NULL, &o, &st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "replay_floor: %s: %s\n", argv[optind], err);
		floor_free(f);
		return 1;
	}
	for (unsigned i = 0; i < f->nfiles; i++)
		f->fds[i] = -1;
	for (unsigned i = 0; i < f->nfiles; i++) {
		f->fds[i] = open(f->names[i], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (f->fds[i] < 0) {
			fprintf(stderr, "replay_floor: %s: %s\n", f->names[i], strerror(errno));
			floor_free(f);
			return 1;
		}
	}
	if (posix_memalign((void **)&buf, 4096, f->max_len ? f->max_len : 4096) ||
	    (measure && !(h = malloc(sizeof(*h)))) || (speed > 0 && !(late = malloc(sizeof(*late))))) {
		free(buf);
		free(h);
		floor_free(f);
		return 1;
	}
	for (size_t i = 0; i < (f->max_len ? f->max_len : 4096); i++)
		buf[i] = (char)rand();
	if (shared && pthread_create(&idle, NULL, idle_thread, NULL) != 0) {
		fprintf(stderr, "replay_floor: cannot start a thread\n");
		free(buf);
		free(h);
		floor_free(f);
		return 1;
	}
	for (unsigned r = 0; r < rounds; r++) {
		uint64_t t0, t;

		if (h)
			hist_init(h);
		if (late)
			hist_init(late);
		t0 = now_ns();
		rc = h ? issue_measured(f, buf, h, speed, late) : issue(f, buf);
		t = now_ns() - t0;
		if (rc) {
			fprintf(stderr, "replay_floor: %s\n", strerror(-rc));
			break;
		}
		if (t < best)
			best = t;
	}
	if (!rc) {
		printf("ops %zu threads %u elapsed_ns %" PRIu64 " ops_per_s %.0f", f->nops,
		       f->ntids, best, best ? (double)f->nops * 1e9 / (double)best : 0.0);
		if (late)
			printf(" delay_p50_ns %" PRIu64 " delay_p99_ns %" PRIu64 " delay_max_ns %" PRIu64,
			       hist_quantile(late, 0.5), hist_quantile(late, 0.99), late->max);
		printf("\n");
	}
	free(buf);
	free(late);
	free(h);
	floor_free(f);
	return rc ? 1 : 0;
}
