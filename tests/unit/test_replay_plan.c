/* tests/unit/test_replay_plan.c: the replay plan (replay/plan.h) driven
 * directly, without an engine: small logs written here are planned on this
 * thread and every op is checked exactly: explicit offsets made from file
 * positions (lseek, pread/pwrite, dup, snapshot fds, O_APPEND), the
 * dependencies of thread, resource and strict order, streams per captured
 * thread and the order ops reach them, and skipped or unreplayable ops.
 *
 * The logs stay far below REPLAY_WINDOW ops, so the producer never waits
 * for a consumer and no op has to be completed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/model.h"
#include "replay/exec.h"
#include "replay/plan.h"
#include "replay/root.h"
#include "tests/unit/unit.h"

#define T0 1000000000ull
#define MAX_PUSH 256
#define MAX_LANES 16

static char log_path[64];
static struct riot_writer *w;
/* The header's fallbacks (format 1.8), NULL: not stated. */
static const char *fallbacks;
static uint64_t t_next;

/* ---- writing a log ---- */

static void log_begin(void)
{
	struct riot_log_header h = {
		.host = "test", .kernel = "synthetic", .arch = "x86_64",
		.riot_version = RIOT_VERSION, .cmdline = "test_replay_plan", .start_t = T0,
		.fallbacks = fallbacks,
	};

	w = riot_writer_open(log_path, &h, NULL);
	if (!w) {
		fprintf(stderr, "%s: %s\n", log_path, strerror(errno));
		exit(1);
	}
	t_next = T0;
}

static void log_end(void)
{
	CHECK_EQ(riot_writer_close(w), 0);
	w = NULL;
}

static void add(const struct riot_rec *r)
{
	CHECK_EQ(riot_writer_add(w, r), 0);
}

static struct riot_rec sys(unsigned nr, uint32_t pid, uint32_t tid, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc.sys = (uint16_t)nr;
	r.sc.pid = pid;
	r.sc.tid = tid;
	r.sc.t = t_next;
	r.sc.dur = 500;
	r.sc.ret = ret;
	t_next += 1000;
	return r;
}

static void op_open(uint32_t pid, uint32_t tid, const char *path, uint64_t flags, int64_t fd)
{
	struct riot_rec r = sys(RIOT_SYS_openat, pid, tid, fd);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = path;
	r.sc.flags = flags;
	r.sc.mode = 0644;
	add(&r);
}

/* read/write/close/dup: the fd, and a count for the data calls. */
static void op_fd(unsigned nr, uint32_t pid, uint32_t tid, int fd, uint64_t count, int64_t ret)
{
	struct riot_rec r = sys(nr, pid, tid, ret);

	r.sc.has = RIOT_HAS_FD;
	r.sc.fd = fd;
	if (count) {
		r.sc.has |= RIOT_HAS_COUNT;
		r.sc.count = count;
	}
	add(&r);
}

/* pread64/pwrite64, and lseek (off, whence in cmd). */
static void op_off(unsigned nr, uint32_t pid, uint32_t tid, int fd, uint64_t off, uint64_t count,
		   int64_t ret)
{
	struct riot_rec r = sys(nr, pid, tid, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_OFF;
	r.sc.fd = fd;
	r.sc.off = off;
	if (nr == RIOT_SYS_lseek) {
		r.sc.has |= RIOT_HAS_CMD;
		r.sc.cmd = (uint32_t)count;
	} else {
		r.sc.has |= RIOT_HAS_COUNT;
		r.sc.count = count;
	}
	add(&r);
}

static void op_path(unsigned nr, uint32_t pid, uint32_t tid, const char *path, const char *path2,
		    int64_t ret)
{
	struct riot_rec r = sys(nr, pid, tid, ret);

	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_MODE;
	r.sc.path.s = path;
	r.sc.mode = 0755;
	if (path2) {
		r.sc.has |= RIOT_HAS_PATH2;
		r.sc.path2.s = path2;
	}
	add(&r);
}

static void op_mmap(uint32_t pid, uint32_t tid, int fd, uint64_t len)
{
	struct riot_rec r = sys(RIOT_SYS_mmap, pid, tid, 0x7f0000000000);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT | RIOT_HAS_CMD | RIOT_HAS_FLAGS | RIOT_HAS_OFF;
	r.sc.fd = fd;
	r.sc.count = len;
	r.sc.cmd = PROT_READ;
	r.sc.flags = fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED;
	r.sc.off = 0;
	add(&r);
}

/* A fork (child_tid 0: a new process) or a task's exit, at t_next. */
static void proc(unsigned kind, uint32_t pid, uint32_t child)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	r.proc.kind = (uint8_t)kind;
	r.proc.pid = r.proc.tid = pid;
	r.proc.t = t_next;
	r.proc.child_pid = r.proc.child_tid = child;
	t_next += 1000;
	add(&r);
}

static void snap_proc(uint32_t pid, const char *cwd)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };

	r.sproc.pid = pid;
	r.sproc.ppid = 1;
	r.sproc.t = T0;
	r.sproc.cwd.s = cwd;
	add(&r);
}

static void snap_fd(uint32_t pid, int fd, const char *path, uint32_t flags, uint64_t pos)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd.pid = pid;
	r.sfd.fd = fd;
	r.sfd.t = T0;
	r.sfd.path.s = path;
	r.sfd.flags = flags;
	r.sfd.pos = pos;
	r.sfd.size = 65536;
	r.sfd.ftype = S_IFREG;
	add(&r);
}

/* ---- planning it: a consumer that only records what it is handed ---- */

static unsigned pushed_lane[MAX_PUSH];
static uint64_t pushed_seq[MAX_PUSH];
static unsigned npushed;
static unsigned routed;
/* An engine that cannot start stream fail_route - 1's thread, or take
 * op fail_push (0: none). */
static uint32_t fail_route;
static uint64_t fail_push;
/* Plan with --timing think's anchors and gaps. */
static bool think;

/* Every stream gets a lane of its own: lane == stream index. */
static int route(void *eng, uint32_t stream, uint32_t pid)
{
	(void)eng;
	(void)pid;
	CHECK_EQ(stream, routed);
	routed++;
	return stream + 1 == fail_route ? -EAGAIN : (int)stream;
}

static int push(void *eng, unsigned lane, uint64_t seq)
{
	(void)eng;
	if (seq == fail_push)
		return -ENOMEM;
	if (npushed < MAX_PUSH) {
		pushed_lane[npushed] = lane;
		pushed_seq[npushed] = seq;
	}
	npushed++;
	return 0;
}

/* Plans the log just written, to its end. Exits on a plan that cannot
 * even be made: nothing else could be checked. */
static struct replay_plan *plan_log(enum replay_order order)
{
	struct replay_plan_opts o = {
		.logs = RIOT_LOGS_ONE(log_path), .order = order, .route = route, .push = push,
		.think = think,
	};
	struct replay_plan *p;
	char err[512];

	npushed = routed = 0;
	p = replay_plan_new(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "replay_plan_new: %s\n", err);
		unlink(log_path);
		exit(1);
	}
	CHECK_EQ(replay_plan_run(p), 0);
	CHECK(replay_plan_finished(p));
	CHECK(replay_plan_log_complete(p));
	/* every op handed over exactly once, in log order */
	CHECK_U64(npushed, replay_plan_planned(p));
	for (unsigned i = 0; i < npushed && i < MAX_PUSH; i++)
		CHECK_U64(pushed_seq[i], i + 1);
	return p;
}

static unsigned ndeps(const struct replay_op *op)
{
	unsigned n = 0;

	while (n < REPLAY_MAX_DEPS && op->dep[n])
		n++;
	return n;
}

static bool has_dep(const struct replay_op *op, uint64_t seq)
{
	for (unsigned i = 0; i < REPLAY_MAX_DEPS && op->dep[i]; i++)
		if (op->dep[i] == seq)
			return true;
	return false;
}

/* op seq's dependencies are exactly want[0..n) (any order). */
static void check_deps(struct replay_plan *p, uint64_t seq, const uint64_t *want, unsigned n,
		       int line)
{
	const struct replay_op *op = replay_plan_op(p, seq);
	bool ok = ndeps(op) == n;

	for (unsigned i = 0; ok && i < n; i++)
		ok = has_dep(op, want[i]);
	unit_checks++;
	if (!ok) {
		unit_failures++;
		fprintf(stderr, "%s:%d: deps of op %" PRIu64 " (%s):", __FILE__, line, seq,
			replay_act_name(op->act));
		for (unsigned i = 0; i < REPLAY_MAX_DEPS && op->dep[i]; i++)
			fprintf(stderr, " %" PRIu64, op->dep[i]);
		fprintf(stderr, ", want:");
		for (unsigned i = 0; i < n; i++)
			fprintf(stderr, " %" PRIu64, want[i]);
		fprintf(stderr, "\n");
	}
}

#define DEPS(p, seq, ...) do { \
	const uint64_t _w[] = { 0, __VA_ARGS__ }; \
	check_deps(p, seq, _w + 1, sizeof(_w) / sizeof(_w[0]) - 1, __LINE__); \
} while (0)
#define NO_DEPS(p, seq) check_deps(p, seq, NULL, 0, __LINE__)

/* ---- 1. implicit positions ---- */

static void check_data(struct replay_plan *p, uint64_t seq, unsigned act, uint64_t off,
		       uint64_t count, bool implicit)
{
	const struct replay_op *op = replay_plan_op(p, seq);

	CHECK_U64(op->seq, seq);
	CHECK_STR(replay_act_name(op->act), replay_act_name(act));
	CHECK_U64(op->off, off);
	CHECK_U64(op->count, count);
	CHECK_EQ(!!(op->opflags & OPF_IMPLICIT), implicit);
	CHECK_EQ(op->skip, SKIP_NONE);
}

static void test_positions(void)
{
	struct replay_plan *p;
	const struct replay_op *op;

	log_begin();
	op_open(100, 100, "/data/f", O_RDWR, 3);			/* 1 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 100, 100);			/* 2: 0 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 50, 50);			/* 3: 100 */
	op_off(RIOT_SYS_lseek, 100, 100, 3, 1000, SEEK_SET, 1000);	/* 4 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 10, 10);			/* 5: 1000 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 20, 20);			/* 6: 1010 */
	op_off(RIOT_SYS_pread64, 100, 100, 3, 5000, 7, 7);		/* 7: own */
	op_off(RIOT_SYS_pwrite64, 100, 100, 3, 6000, 8, 8);		/* 8: own */
	op_fd(RIOT_SYS_read, 100, 100, 3, 4, 4);			/* 9: 1030 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 100, 30);			/* 10: short */
	op_fd(RIOT_SYS_read, 100, 100, 3, 5, -EINTR);			/* 11: failed */
	op_fd(RIOT_SYS_read, 100, 100, 3, 5, 5);			/* 12: 1064 */
	op_fd(RIOT_SYS_dup, 100, 100, 3, 0, 4);				/* 13 */
	op_fd(RIOT_SYS_read, 100, 100, 4, 6, 6);			/* 14: 1069 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 1, 1);			/* 15: 1075 */
	op_off(RIOT_SYS_lseek, 100, 100, 4, 0, SEEK_END, 9000);	/* 16 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 3, 3);			/* 17: 9000 */
	op_open(100, 100, "/data/f", O_RDONLY, 5);			/* 18 */
	op_fd(RIOT_SYS_read, 100, 100, 5, 2, 2);			/* 19: 0 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 2, 2);			/* 20: 9003 */
	log_end();

	p = plan_log(ORDER_THREAD);
	CHECK_U64(replay_plan_planned(p), 20);
	op = replay_plan_op(p, 1);
	CHECK_EQ(op->act, ACT_OPEN);
	CHECK_STR(op->path, "/data/f");
	CHECK_U64(op->flags, O_RDWR);
	check_data(p, 2, ACT_READ, 0, 100, true);
	check_data(p, 3, ACT_READ, 100, 50, true);
	CHECK_EQ(replay_plan_op(p, 4)->act, ACT_STATE);
	check_data(p, 5, ACT_READ, 1000, 10, true);
	check_data(p, 6, ACT_WRITE, 1010, 20, true);
	check_data(p, 7, ACT_READ, 5000, 7, false);
	check_data(p, 8, ACT_WRITE, 6000, 8, false);
	check_data(p, 9, ACT_READ, 1030, 4, true);
	/* the position moves by the result, not the count asked for */
	check_data(p, 10, ACT_READ, 1034, 100, true);
	/* a failed read moves nothing, and is not issued */
	check_data(p, 11, ACT_FAILED, 1064, 5, true);
	check_data(p, 12, ACT_READ, 1064, 5, true);
	/* a dup shares the description, so the position */
	CHECK_EQ(replay_plan_op(p, 13)->act, ACT_STATE);
	check_data(p, 14, ACT_READ, 1069, 6, true);
	CHECK_U64(replay_plan_op(p, 14)->file, replay_plan_op(p, 2)->file);
	check_data(p, 15, ACT_READ, 1075, 1, true);
	/* lseek through the dup moves the original's position */
	check_data(p, 17, ACT_WRITE, 9000, 3, true);
	/* a new open of the same path is a new description at 0 */
	CHECK(replay_plan_op(p, 19)->file != replay_plan_op(p, 2)->file);
	check_data(p, 19, ACT_READ, 0, 2, true);
	check_data(p, 20, ACT_READ, 9003, 2, true);
	for (uint64_t s = 1; s <= 20; s++)
		NO_DEPS(p, s);
	replay_plan_free(p);
}

/* An fd open when capture began starts at the position fdinfo showed. */
static void test_snapshot_position(void)
{
	struct replay_plan *p;
	const struct replay_op *op;

	log_begin();
	snap_proc(100, "/");
	snap_fd(100, 7, "/data/snap", O_RDONLY, 4096);
	op_fd(RIOT_SYS_read, 100, 100, 7, 10, 10);			/* 1: 4096 */
	op_fd(RIOT_SYS_read, 100, 100, 7, 10, 10);			/* 2: 4106 */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 2);
	op = replay_plan_op(p, 1);
	CHECK_STR(op->path, "/data/snap");
	CHECK(op->file != 0);
	CHECK_EQ(op->act, ACT_READ);
	CHECK(op->opflags & OPF_IMPLICIT);
	CHECK_U64(replay_plan_op(p, 1)->off, 4096);
	CHECK_U64(replay_plan_op(p, 2)->off, 4106);
	DEPS(p, 2, 1);
	replay_plan_free(p);
}

/* O_APPEND: the plan keeps the description's flags on every op, and that
 * is what makes the engine's write append (replay_open_flags keeps
 * O_APPEND when it opens the file). */
static void test_append(void)
{
	struct replay_plan *p;
	const struct replay_op *op;

	log_begin();
	op_open(100, 100, "/data/log", O_WRONLY | O_APPEND | O_CREAT, 3);	/* 1 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);			/* 2 */
	op_open(100, 100, "/data/plain", O_WRONLY, 4);			/* 3 */
	op_fd(RIOT_SYS_write, 100, 100, 4, 10, 10);			/* 4 */
	log_end();

	p = plan_log(ORDER_THREAD);
	op = replay_plan_op(p, 2);
	CHECK_EQ(op->act, ACT_WRITE);
	CHECK_U64(op->count, 10);
	CHECK(op->file_flags & O_APPEND);
	CHECK(replay_open_flags(op->file_flags) & O_APPEND);
	op = replay_plan_op(p, 4);
	CHECK_EQ(op->act, ACT_WRITE);
	CHECK(!(op->file_flags & O_APPEND));
	replay_plan_free(p);
}

/* O_APPEND: writes land at the end of the file as the log knows it (size
 * at open, earlier writes, truncates), and leave the position there. */
static void open_sized(uint32_t tid, const char *path, uint64_t flags, int fd, uint64_t size)
{
	struct riot_rec r = sys(RIOT_SYS_openat, 100, tid, fd);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE |
		   RIOT_HAS_SIZE | RIOT_HAS_FTYPE;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = path;
	r.sc.flags = flags;
	r.sc.mode = 0644;
	r.sc.size = size;
	r.sc.ftype = S_IFREG;
	add(&r);
}

static void test_append_position(void)
{
	struct replay_plan *p;
	struct riot_rec r;

	log_begin();
	open_sized(100, "/data/log", O_RDWR | O_APPEND, 3, 1000);	/* 1 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);			/* 2 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 5, 0);			/* 3: at the end */
	open_sized(101, "/data/log", O_WRONLY | O_APPEND, 4, 1010);	/* 4 */
	op_fd(RIOT_SYS_write, 100, 101, 4, 20, 20);			/* 5 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);			/* 6 */
	r = sys(RIOT_SYS_ftruncate, 100, 100, 0);			/* 7 */
	r.sc.has = RIOT_HAS_FD | RIOT_HAS_OFF;
	r.sc.fd = 3;
	r.sc.off = 100;
	add(&r);
	op_fd(RIOT_SYS_write, 100, 101, 4, 7, 7);			/* 8 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 50, 50);			/* 9 */
	log_end();

	p = plan_log(ORDER_THREAD);
	CHECK_U64(replay_plan_op(p, 2)->off, 1000);
	CHECK_U64(replay_plan_op(p, 3)->off, 1010);	/* after the append */
	CHECK_U64(replay_plan_op(p, 5)->off, 1010);	/* another description */
	CHECK_U64(replay_plan_op(p, 6)->off, 1030);	/* after both appends */
	CHECK_U64(replay_plan_op(p, 8)->off, 100);	/* after the truncate */
	CHECK_U64(replay_plan_op(p, 9)->off, 1040);	/* fd 3's own position */
	replay_plan_free(p);
}

/* ---- 2. dependencies under each order ---- */

/* One log with three threads of one process: A opens /f and writes, B
 * reads through A's fd, C works on /g alone. */
static void write_order_log(void)
{
	log_begin();
	op_open(100, 100, "/f", O_RDWR, 3);			/* 1 A */
	op_open(100, 102, "/g", O_RDWR, 4);			/* 2 C */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);		/* 3 A */
	op_fd(RIOT_SYS_read, 100, 102, 4, 10, 10);		/* 4 C */
	op_fd(RIOT_SYS_read, 100, 101, 3, 10, 10);		/* 5 B */
	op_fd(RIOT_SYS_write, 100, 102, 4, 10, 10);		/* 6 C */
	op_off(RIOT_SYS_lseek, 100, 101, 3, 0, SEEK_SET, 0);	/* 7 B */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);		/* 8 A */
	log_end();
}

static void test_order_thread(void)
{
	struct replay_plan *p;

	write_order_log();
	p = plan_log(ORDER_THREAD);
	CHECK_U64(replay_plan_planned(p), 8);
	for (uint64_t s = 1; s <= 8; s++)
		NO_DEPS(p, s);
	replay_plan_free(p);
}

static void test_order_strict(void)
{
	struct replay_plan *p;

	write_order_log();
	p = plan_log(ORDER_STRICT);
	CHECK_U64(replay_plan_planned(p), 8);
	NO_DEPS(p, 1);
	for (uint64_t s = 2; s <= 8; s++)
		DEPS(p, s, s - 1);	/* state ops (the lseek) too */
	replay_plan_free(p);
}

/* (a) one file object used by two threads; (e) unrelated files. */
static void test_order_resource_threads(void)
{
	struct replay_plan *p;

	write_order_log();
	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 8);
	NO_DEPS(p, 1);
	NO_DEPS(p, 2);		/* /g: nothing of /f */
	DEPS(p, 3, 1);
	DEPS(p, 4, 2);
	DEPS(p, 5, 3);		/* B after A's write on the same object */
	DEPS(p, 6, 4);
	NO_DEPS(p, 7);		/* a state op waits for nothing ... */
	DEPS(p, 8, 5);		/* ... and is no one's predecessor */
	replay_plan_free(p);
}

/* (b) two processes, two opens of one path: a read through the second
 * open waits for the last write through the first, by the path. */
static void test_order_resource_two_opens(void)
{
	struct replay_plan *p;

	log_begin();
	op_open(100, 100, "/s", O_WRONLY | O_CREAT, 3);		/* 1 P1 */
	op_open(200, 200, "/s", O_RDONLY, 3);			/* 2 P2 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);		/* 3 P1 */
	op_fd(RIOT_SYS_write, 100, 100, 3, 10, 10);		/* 4 P1 */
	op_fd(RIOT_SYS_read, 200, 200, 3, 20, 20);		/* 5 P2 */
	op_open(300, 300, "/other", O_RDONLY, 3);		/* 6 P3 */
	op_fd(RIOT_SYS_read, 300, 300, 3, 20, 20);		/* 7 P3 */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 7);
	CHECK(replay_plan_op(p, 1)->file != replay_plan_op(p, 2)->file);
	NO_DEPS(p, 1);
	DEPS(p, 2, 1);		/* the path */
	DEPS(p, 3, 1, 2);	/* its object, and the path (P2's open) */
	DEPS(p, 4, 3);
	DEPS(p, 5, 2, 4);	/* its object's open, the path's last write */
	CHECK(!has_dep(replay_plan_op(p, 5), 3));
	NO_DEPS(p, 6);
	DEPS(p, 7, 6);
	replay_plan_free(p);
}

/* (c) a directory made by A, files created in it by B and C: both wait for
 * the mkdir, neither for the other. */
static void test_order_resource_parent(void)
{
	struct replay_plan *p;

	log_begin();
	op_path(RIOT_SYS_mkdir, 100, 100, "/d", NULL, 0);		/* 1 A */
	op_open(100, 101, "/d/f1", O_CREAT | O_WRONLY | O_EXCL, 3);	/* 2 B */
	op_open(100, 102, "/d/f2", O_CREAT | O_WRONLY | O_EXCL, 4);	/* 3 C */
	op_fd(RIOT_SYS_write, 100, 101, 3, 10, 10);			/* 4 B */
	op_fd(RIOT_SYS_write, 100, 102, 4, 10, 10);			/* 5 C */
	op_path(RIOT_SYS_mkdir, 100, 102, "/d/sub", NULL, 0);		/* 6 C */
	op_path(RIOT_SYS_stat, 100, 101, "/d/sub/x", NULL, -ENOENT);	/* 7 B */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 7);
	CHECK_EQ(replay_plan_op(p, 1)->act, ACT_MKDIR);
	CHECK_EQ(replay_plan_op(p, 2)->act, ACT_OPEN);
	NO_DEPS(p, 1);
	DEPS(p, 2, 1);
	DEPS(p, 3, 1);
	CHECK(!has_dep(replay_plan_op(p, 3), 2));
	DEPS(p, 4, 2);		/* an fd op: not its parent again */
	DEPS(p, 5, 3);
	DEPS(p, 6, 1);
	DEPS(p, 7, 6);		/* a path op waits for its parent's mkdir */
	replay_plan_free(p);
}

/* (c') ops in a directory by B and C, then A removes it: the rmdir waits
 * for all of them through a prefix barrier on the latest; siblings still do
 * not wait for each other. */
static void test_order_resource_children(void)
{
	struct replay_plan *p;

	log_begin();
	op_path(RIOT_SYS_mkdir, 100, 100, "/d", NULL, 0);		/* 1 A */
	op_open(100, 101, "/d/f1", O_CREAT | O_WRONLY | O_EXCL, 3);	/* 2 B */
	op_open(100, 102, "/d/f2", O_CREAT | O_WRONLY | O_EXCL, 4);	/* 3 C */
	op_fd(RIOT_SYS_close, 100, 101, 3, 0, 0);			/* 4 B */
	op_fd(RIOT_SYS_close, 100, 102, 4, 0, 0);			/* 5 C */
	op_path(RIOT_SYS_unlink, 100, 101, "/d/f1", NULL, 0);		/* 6 B */
	op_path(RIOT_SYS_unlink, 100, 102, "/d/f2", NULL, 0);		/* 7 C */
	op_path(RIOT_SYS_rmdir, 100, 100, "/d", NULL, 0);		/* 8 A */
	op_path(RIOT_SYS_mkdir, 100, 100, "/d", NULL, 0);		/* 9 A */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 9);
	CHECK_EQ(replay_plan_op(p, 8)->act, ACT_RMDIR);
	DEPS(p, 2, 1);
	DEPS(p, 3, 1);
	DEPS(p, 6, 1, 4);
	DEPS(p, 7, 1, 5);
	CHECK(!has_dep(replay_plan_op(p, 7), 6));
	DEPS(p, 8, 1, 7 | REPLAY_DEP_PREFIX);	/* all ops up to 7, and the mkdir */
	DEPS(p, 9, 8);		/* the barrier was used up by the rmdir */
	/* the barrier holds until every op up to 7 is done, 6 included; while
	 * 7 itself is not done, 7 is what the rmdir waits for (one wake-up,
	 * not one per op of the prefix as each completes) */
	for (uint64_t seq = 1; seq <= 5; seq++)
		replay_op_complete(p, replay_plan_op(p, seq));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 8)), 7);
	replay_op_complete(p, replay_plan_op(p, 7));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 8)), 6);
	replay_op_complete(p, replay_plan_op(p, 6));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 8)), 0);
	replay_plan_free(p);
}

/* (c'') a barrier over a long prefix whose own op is done before the ops
 * of another stream in it: the waiter waits for a late op of the prefix
 * not done (probing down from the barrier), not for the first, which
 * would wake it once per op of that stream. */
static void test_order_prefix_probe(void)
{
	struct replay_plan *p;
	char path[16];

	log_begin();
	op_path(RIOT_SYS_mkdir, 100, 100, "/d", NULL, 0);		/* 1 A */
	for (int i = 0; i < 10; i++) {					/* 2-11 B */
		snprintf(path, sizeof(path), "/d/s%d", i);
		op_path(RIOT_SYS_mkdir, 100, 101, path, NULL, 0);
	}
	op_path(RIOT_SYS_rmdir, 100, 100, "/d", NULL, 0);		/* 12 A */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 12);
	CHECK_EQ(replay_plan_op(p, 12)->act, ACT_RMDIR);
	DEPS(p, 12, 1, 11 | REPLAY_DEP_PREFIX);
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 11);
	replay_op_complete(p, replay_plan_op(p, 1));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 11);
	/* the barrier's op done first (as another stream's can be): probes
	 * 11, 10 and finds 10, where the first op not done is 2 */
	replay_op_complete(p, replay_plan_op(p, 11));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 10);
	/* probes 11, 10, 8 */
	replay_op_complete(p, replay_plan_op(p, 10));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 8);
	/* all but 2 done: 11, 10, 8 and 4 are, so 2 */
	for (uint64_t seq = 3; seq <= 9; seq++)
		replay_op_complete(p, replay_plan_op(p, seq));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 2);
	replay_op_complete(p, replay_plan_op(p, 2));
	CHECK_U64(replay_op_blocker(p, replay_plan_op(p, 12)), 0);
	replay_plan_free(p);
}

/* (d) rename /a -> /b in A, then B opens /b. */
static void test_order_resource_rename(void)
{
	struct replay_plan *p;
	const struct replay_op *op;

	log_begin();
	op_open(100, 100, "/a", O_CREAT | O_WRONLY, 3);			/* 1 A */
	op_fd(RIOT_SYS_close, 100, 100, 3, 0, 0);			/* 2 A */
	op_path(RIOT_SYS_rename, 100, 100, "/a", "/b", 0);		/* 3 A */
	op_open(100, 101, "/b", O_RDONLY, 4);				/* 4 B */
	op_open(100, 102, "/a", O_RDONLY, -ENOENT);			/* 5 C */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 5);
	CHECK_EQ(replay_plan_op(p, 2)->act, ACT_CLOSE);
	op = replay_plan_op(p, 3);
	CHECK_EQ(op->act, ACT_RENAME);
	CHECK_STR(op->path, "/a");
	CHECK_STR(op->path2, "/b");
	NO_DEPS(p, 1);
	DEPS(p, 2, 1);
	DEPS(p, 3, 2);		/* /a's last op: the close */
	DEPS(p, 4, 3);		/* /b came from the rename */
	DEPS(p, 5, 3);		/* /a went away in the rename */
	replay_plan_free(p);
}

/* ---- 3. streams ---- */

static void test_streams(void)
{
	static const uint32_t tids[] = { 100, 101, 100, 200, 101, 100, 200, 101 };
	static const uint32_t pids[] = { 100, 100, 100, 200, 100, 100, 200, 100 };
	const unsigned n = sizeof(tids) / sizeof(tids[0]);
	struct replay_plan *p;

	log_begin();
	for (unsigned i = 0; i < n; i++)
		op_path(RIOT_SYS_stat, pids[i], tids[i], "/x", NULL, -ENOENT);
	log_end();

	p = plan_log(ORDER_THREAD);
	CHECK_U64(replay_plan_planned(p), n);
	CHECK_EQ(replay_plan_nstreams(p), 3);
	CHECK_EQ(routed, 3);
	/* streams in order of first appearance: 100, 101, 200 */
	for (uint32_t i = 0; i < 3; i++) {
		const struct replay_stream *s = replay_plan_stream(p, i);
		static const uint32_t want_tid[] = { 100, 101, 200 };
		static const uint32_t want_ops[] = { 3, 3, 2 };

		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK_EQ(s->tid, want_tid[i]);
		CHECK_EQ(s->pid, want_tid[i] == 200 ? 200 : 100);
		CHECK_U64(s->ops, want_ops[i]);
	}
	CHECK(replay_plan_stream(p, 3) == NULL);
	for (unsigned i = 0; i < n; i++) {
		const struct replay_op *op = replay_plan_op(p, i + 1);
		uint32_t want = tids[i] == 100 ? 0 : tids[i] == 101 ? 1 : 2;

		CHECK_EQ(op->tid, tids[i]);
		CHECK_EQ(op->pid, pids[i]);
		CHECK_EQ(op->stream, want);
		/* handed to its stream's lane, in log order */
		CHECK_EQ(pushed_lane[i], want);
	}
	replay_plan_free(p);
}

/* An engine that cannot take an op, or start a stream's thread: the
 * producer stops there with the reason, and the op it could not hand over
 * is complete (nothing waits for it for ever) and counted lost, so the
 * run ends and fails. */
static void test_engine_refuses(void)
{
	static const uint32_t tids[] = { 100, 101, 100, 200, 101, 100 };
	const unsigned n = sizeof(tids) / sizeof(tids[0]);
	struct replay_plan_opts o = {
		.logs = RIOT_LOGS_ONE(log_path), .order = ORDER_RESOURCE,
		.route = route, .push = push,
	};
	struct replay_plan *p;
	char err[512];

	log_begin();
	for (unsigned i = 0; i < n; i++)
		op_path(RIOT_SYS_stat, tids[i] == 200 ? 200 : 100, tids[i], "/x", NULL, -ENOENT);
	log_end();

	/* op 5 (thread 101's second) is refused */
	npushed = routed = 0;
	fail_push = 5;
	p = replay_plan_new(&o, err, sizeof(err));
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ(replay_plan_run(p), -ENOMEM);
		CHECK(replay_plan_finished(p));
		CHECK_U64(replay_plan_planned(p), 5);
		CHECK_U64(replay_plan_lost(p), 1);
		CHECK_EQ(npushed, 4);
		CHECK(replay_plan_op_done(p, 5));
		CHECK(!replay_plan_op_done(p, 4));
		CHECK_STR(replay_plan_error(p), "cannot queue op 5: Cannot allocate memory");
		replay_plan_free(p);
	}
	fail_push = 0;

	/* the third stream (thread 200, whose first op is op 4) gets no thread */
	npushed = routed = 0;
	fail_route = 3;
	p = replay_plan_new(&o, err, sizeof(err));
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ(replay_plan_run(p), -EAGAIN);
		CHECK(replay_plan_finished(p));
		CHECK_EQ(routed, 3);
		CHECK_U64(replay_plan_planned(p), 3);
		CHECK_U64(replay_plan_lost(p), 0);
		CHECK_EQ(npushed, 3);
		CHECK_STR(replay_plan_error(p),
			  "cannot start a replay thread: Resource temporarily unavailable");
		replay_plan_free(p);
	}
	fail_route = 0;
}

/* ---- 4. skipped and unreplayable ops ---- */

static void test_skips(void)
{
	struct replay_plan *p;
	const struct replay_op *op;
	const struct model_stats *st;

	log_begin();
	op_open(100, 100, "/proc/self/status", O_RDONLY, 3);	/* 1 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 4096, 1000);		/* 2 */
	op_open(100, 100, "/data/m", O_RDWR, 4);		/* 3 */
	op_mmap(100, 100, 4, 8192);				/* 4 */
	op_mmap(100, 100, -1, 8192);				/* 5: anonymous */
	op_fd(RIOT_SYS_read, 100, 100, 9, 10, 10);		/* 6: fd 9 unknown */
	op_fd(RIOT_SYS_fsync, 100, 100, 9, 0, 0);		/* 7: fd 9 unknown */
	op_fd(RIOT_SYS_read, 100, 100, 4, 10, 10);		/* 8: 0 */
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 8);

	/* /proc is refused by its name alone: the plan skips the open and
	 * the fd ops on the file (they carry its path) as SKIP_PSEUDO, so the
	 * engines never look at an fd op's path */
	op = replay_plan_op(p, 1);
	CHECK_EQ(op->act, ACT_SKIP);
	CHECK_EQ(op->skip, SKIP_PSEUDO);
	CHECK_STR(op->path, "/proc/self/status");
	NO_DEPS(p, 1);
	op = replay_plan_op(p, 2);
	CHECK_EQ(op->act, ACT_SKIP);
	CHECK_EQ(op->skip, SKIP_PSEUDO);
	CHECK_STR(op->path, "/proc/self/status");	/* fd ops carry the path */
	CHECK_EQ(replay_plan_op(p, 3)->act, ACT_OPEN);
	CHECK_EQ(replay_root_check_path(replay_plan_op(p, 3)->path), 0);

	op = replay_plan_op(p, 4);
	CHECK_STR(replay_act_name(op->act), replay_act_name(ACT_UNREPLAYABLE));
	NO_DEPS(p, 4);
	CHECK_EQ(replay_plan_op(p, 5)->act, ACT_STATE);

	for (uint64_t s = 6; s <= 7; s++) {
		op = replay_plan_op(p, s);
		CHECK_EQ(op->act, ACT_SKIP);
		CHECK_EQ(op->skip, SKIP_UNRESOLVED);
		CHECK_U64(op->file, 0);
		NO_DEPS(p, s);
	}
	CHECK_U64(replay_plan_skipped_ops(p, SKIP_UNRESOLVED), 2);
	CHECK_U64(replay_plan_skipped_ops(p, SKIP_PSEUDO), 2);
	for (unsigned k = SKIP_NONE; k < SKIP_COUNT; k++)
		if (k != SKIP_UNRESOLVED && k != SKIP_PSEUDO)
			CHECK_U64(replay_plan_skipped_ops(p, k), 0);
	st = model_stats(replay_plan_model(p));
	CHECK_U64(st->unresolved_fd, 2);
	/* the skipped ops moved no position: /data/m is still at 0 */
	check_data(p, 8, ACT_READ, 0, 10, true);
	DEPS(p, 8, 3);
	replay_plan_free(p);
}

/* ioctl FICLONE / FICLONERANGE with their source (fd2): ACT_CLONE of the
 * source's file onto the destination's, after the last op on each; other
 * ioctls, and madvise and mremap (of file mappings), are not replayable. */
static void op_ioctl(uint32_t pid, int fd, uint32_t cmd, int fd2, uint64_t off, uint64_t count,
		     uint64_t off2)
{
	struct riot_rec r = sys(RIOT_SYS_ioctl, pid, pid, 0);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_CMD | RIOT_HAS_ARG;
	r.sc.fd = fd;
	r.sc.cmd = cmd;
	r.sc.arg = (uint64_t)fd2;
	if (fd2 >= 0) {
		r.sc.has |= RIOT_HAS_FD2 | RIOT_HAS_OFF | RIOT_HAS_COUNT | RIOT_HAS_OFF2;
		r.sc.fd2 = fd2;
		r.sc.off = off;
		r.sc.count = count;
		r.sc.off2 = off2;
	}
	add(&r);
}

static void test_clones(void)
{
	struct replay_plan *p;
	const struct replay_op *op;
	struct riot_rec r;

	log_begin();
	op_open(100, 100, "/d/src", O_RDONLY, 3);		/* 1 */
	op_open(100, 100, "/d/dst", O_WRONLY | O_CREAT, 4);	/* 2 */
	op_ioctl(100, 4, 0x40049409, 3, 0, 0, 0);		/* 3: FICLONE */
	op_ioctl(100, 4, 0x4020940d, 3, 65536, 4096, 8192);	/* 4: FICLONERANGE */
	op_ioctl(100, 4, 0x4020940d, 7, 0, 4096, 0);		/* 5: fd 7 unknown */
	op_ioctl(100, 4, 0x541b, -1, 0, 0, 0);			/* 6: FIONREAD */
	r = sys(RIOT_SYS_madvise, 100, 100, 0);			/* 7 */
	r.sc.has = RIOT_HAS_ARG | RIOT_HAS_COUNT | RIOT_HAS_CMD | RIOT_HAS_OFF2;
	r.sc.count = 4096;
	r.sc.cmd = MADV_WILLNEED;
	add(&r);
	r = sys(RIOT_SYS_mremap, 100, 100, 0x7f0000002000);	/* 8 */
	r.sc.has = RIOT_HAS_ARG | RIOT_HAS_COUNT | RIOT_HAS_OFF | RIOT_HAS_FLAGS;
	add(&r);
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 8);
	op = replay_plan_op(p, 3);
	CHECK_STR(replay_act_name(op->act), "clone");
	CHECK_U64(op->flags, 0x40049409);
	CHECK_STR(op->path, "/d/dst");
	CHECK_STR(op->path2, "/d/src");
	CHECK(op->file && op->file2 && op->file != op->file2);
	DEPS(p, 3, 1, 2);
	op = replay_plan_op(p, 4);
	CHECK_STR(replay_act_name(op->act), "clone");
	CHECK_U64(op->flags, 0x4020940d);
	CHECK_U64(op->off, 65536);
	CHECK_U64(op->count, 4096);
	CHECK_U64(op->arg, 8192);
	DEPS(p, 4, 3);
	op = replay_plan_op(p, 5);
	CHECK_EQ(op->act, ACT_SKIP);
	CHECK_EQ(op->skip, SKIP_UNRESOLVED);
	for (uint64_t s = 6; s <= 8; s++)
		CHECK_STR(replay_act_name(replay_plan_op(p, s)->act),
			  replay_act_name(ACT_UNREPLAYABLE));
	CHECK_U64(model_stats(replay_plan_model(p))->unresolved_fd, 1);
	replay_plan_free(p);
}

/* ---- 6. captured failures ---- */

/* A captured failure is issued where the replayed tree fails it the same
 * way, and accounted without being issued where it did no I/O or depends
 * on the captured host (formats/semantics.def). */
static void test_failures(void)
{
	static const struct { uint64_t seq; unsigned act; } want[] = {
		{ 3, ACT_FAILED },	/* copy_file_range EXDEV */
		{ 4, ACT_FAILED },	/* fallocate EOPNOTSUPP */
		{ 5, ACT_READ }, { 6, ACT_WRITE },
		{ 7, ACT_FAILED },	/* fsync EIO */
		{ 8, ACT_OPEN },	/* ENOENT: the tree fails it too */
		{ 9, ACT_FAILED },	/* EACCES: the replay's credentials */
		{ 10, ACT_MKDIR },	/* EEXIST */
		{ 11, ACT_FAILED },	/* mkdir EROFS */
		{ 12, ACT_STAT },	/* ENOTDIR */
		{ 13, ACT_FAILED },	/* fstat EBADF of a known fd: no I/O */
		{ 14, ACT_CLOSE },	/* close EIO still lets the fd go */
		{ 15, ACT_CLOSE },
		{ 16, ACT_FAILED },	/* EXDEV from a file riot never saw */
	};
	struct replay_plan *p;

	log_begin();
	op_open(100, 100, "/d/src", O_RDONLY, 3);			/* 1 */
	op_open(100, 100, "/d/dst", O_WRONLY | O_CREAT, 4);		/* 2 */
	{
		struct riot_rec r = sys(RIOT_SYS_copy_file_range, 100, 100, -EXDEV);

		r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_COUNT;
		r.sc.fd = 3;
		r.sc.fd2 = 4;
		r.sc.count = 65536;
		add(&r);						/* 3 */
	}
	op_off(RIOT_SYS_fallocate, 100, 100, 4, 0, 65536, -EOPNOTSUPP);	/* 4 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 65536, 65536);		/* 5 */
	op_fd(RIOT_SYS_write, 100, 100, 4, 65536, 65536);		/* 6 */
	op_fd(RIOT_SYS_fsync, 100, 100, 4, 0, -EIO);			/* 7 */
	op_open(100, 100, "/d/missing", O_RDONLY, -ENOENT);		/* 8 */
	op_open(100, 100, "/d/src", O_RDWR, -EACCES);			/* 9 */
	op_path(RIOT_SYS_mkdir, 100, 100, "/d", NULL, -EEXIST);	/* 10 */
	op_path(RIOT_SYS_mkdir, 100, 100, "/e", NULL, -EROFS);		/* 11 */
	op_path(RIOT_SYS_stat, 100, 100, "/d/src/x", NULL, -ENOTDIR);	/* 12 */
	op_fd(RIOT_SYS_fstat, 100, 100, 3, 0, -EBADF);			/* 13 */
	op_fd(RIOT_SYS_close, 100, 100, 3, 0, -EIO);			/* 14 */
	op_fd(RIOT_SYS_close, 100, 100, 4, 0, 0);			/* 15 */
	{
		struct riot_rec r = sys(RIOT_SYS_copy_file_range, 100, 100, -EXDEV);

		r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_COUNT;
		r.sc.fd = 9;	/* opened outside a --path capture */
		r.sc.fd2 = 10;
		r.sc.count = 65536;
		add(&r);						/* 16 */
	}
	log_end();

	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_planned(p), 16);
	/* nothing lost: not counted skipped */
	CHECK_U64(replay_plan_skipped_ops(p, SKIP_UNRESOLVED), 0);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_STR(replay_act_name(replay_plan_op(p, want[i].seq)->act),
			  replay_act_name(want[i].act));
	/* a failure accounted is ordered after nothing, and nothing after it */
	NO_DEPS(p, 3);
	DEPS(p, 5, 1);
	CHECK(!replay_act_issues(ACT_FAILED));
	CHECK(replay_act_issues(ACT_OPEN));
	replay_plan_free(p);

	/* the rows: a success always, close whatever its error, a lookup
	 * only with an error of the tree's, data never */
	CHECK(replay_failure_issued(RIOT_SYS_copy_file_range, 4096));
	CHECK(!replay_failure_issued(RIOT_SYS_copy_file_range, -EXDEV));
	CHECK(!replay_failure_issued(RIOT_SYS_ioctl, -EOPNOTSUPP));
	CHECK(!replay_failure_issued(RIOT_SYS_pread64, -EINVAL));
	CHECK(replay_failure_issued(RIOT_SYS_close, -EINTR));
	CHECK(replay_failure_issued(RIOT_SYS_openat, -ENOENT));
	CHECK(!replay_failure_issued(RIOT_SYS_openat, -EPERM));
	CHECK(replay_failure_issued(RIOT_SYS_fgetxattr, -ENODATA));
	CHECK(!replay_failure_issued(RIOT_SYS_fsetxattr, -ENODATA));
	CHECK(replay_failure_issued(RIOT_SYS_uring_openat, -ENOENT));
	CHECK(!replay_failure_issued(RIOT_SYS_COUNT, -ENOENT));
}

/* ---- 7. --timing think ---- */

static void check_think(struct replay_plan *p, uint64_t seq, unsigned kind, uint32_t anchor,
			uint64_t gap)
{
	const struct replay_op *op = replay_plan_op(p, seq);

	CHECK_EQ(op->think, kind);
	if (kind == THINK_END)
		CHECK_EQ(op->anchor, anchor);
	if (kind == THINK_OP)
		CHECK_U64(op->anchor_seq, anchor);
	CHECK_U64(op->gap, gap);
}

/* Each op's anchor and gap: a thread's previous op's end and the time
 * between; a forked child's first op its creator's last op before the
 * fork; the parent's op after the child exited
 * the child's last op, which it waits for; an asynchronous stream's
 * requests their submission gaps. Times: each record 1000 ns after the
 * one before, each call 500 ns long. */
static void test_think(void)
{
	struct replay_plan *p;

	log_begin();
	op_path(RIOT_SYS_stat, 100, 100, "/a", NULL, 0);	/* 1: t 0 */
	t_next += 9000;
	op_path(RIOT_SYS_stat, 100, 100, "/b", NULL, 0);	/* 2: t 10000 */
	proc(RIOT_PROC_FORK, 100, 200);				/* t 11000 */
	op_path(RIOT_SYS_stat, 200, 200, "/c", NULL, 0);	/* 3: t 12000 */
	t_next += 20000;
	op_path(RIOT_SYS_stat, 200, 200, "/d", NULL, 0);	/* 4: t 33000 */
	proc(RIOT_PROC_EXIT, 200, 0);				/* t 34000 */
	op_path(RIOT_SYS_stat, 100, 100, "/e", NULL, 0);	/* 5: t 35000 */
	op_path(RIOT_SYS_stat, 100, 100, "/f", NULL, 0);	/* 6: t 36000 */
	{
		struct riot_rec r = sys(RIOT_SYS_uring_read, 100, 100, 4096);

		r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT | RIOT_HAS_OFF | RIOT_HAS_CTX;
		r.sc.fd = 9;
		r.sc.count = 4096;
		r.sc.ctx = 1;
		r.sc.dur = 5000;
		add(&r);					/* 7: t 37000 */
		r.sc.t = t_next;
		t_next += 1000;
		add(&r);					/* 8: t 38000 */
	}
	log_end();

	think = true;
	p = plan_log(ORDER_THREAD);
	think = false;
	CHECK_U64(replay_plan_planned(p), 8);
	check_think(p, 1, THINK_START, 0, 0);
	check_think(p, 2, THINK_END, 0, 10000 - 500);
	/* the child's first op: from its creator's last op before the fork */
	check_think(p, 3, THINK_OP, 2, 12000 - 10500);
	check_think(p, 4, THINK_END, 1, 33000 - 12500);
	/* after the child's exit: from its last op, which it waits for */
	check_think(p, 5, THINK_END, 1, 35000 - 33500);
	CHECK(has_dep(replay_plan_op(p, 5), 4));
	check_think(p, 6, THINK_END, 0, 36000 - 35500);
	CHECK(!has_dep(replay_plan_op(p, 6), 4));
	/* a ring's first request after its submitter's last call, the next
	 * one its submission gap after the first's */
	check_think(p, 7, THINK_END, 0, 37000 - 36500);
	check_think(p, 8, THINK_ISSUE, 0, 1000);
	CHECK_U64(replay_plan_captured_ns(p), 38000 + 5000);
	replay_plan_free(p);

	/* without think the parent waits for the child too, in thread order
	 * as in resource order: the wait is the program's; strict order
	 * waits for the op before */
	p = plan_log(ORDER_THREAD);
	DEPS(p, 5, 4);
	NO_DEPS(p, 6);
	replay_plan_free(p);
	p = plan_log(ORDER_STRICT);
	DEPS(p, 5, 4);
	replay_plan_free(p);
}

/* ---- 8. what is waited for under every order, and what is state ---- */

/* A page fault holds its thread: the thread's next call waits for its
 * last mmap page (on the process's asynchronous stream) under thread
 * order too. getcwd and umask do no I/O: state. An fstat of an fd the
 * log never opened, whose record says it is a pipe: a pipe, not a lost
 * file. An mmap of a file does no I/O itself: state where the capture
 * says it recorded the pages, unreplayable where it says it could not
 * (no-mmap-fault) or does not say. */
static void test_waits_and_state(void)
{
	static const char *const fb[] = { "", "no-mmap-fault", NULL };
	static const unsigned want_mmap[] = { ACT_STATE, ACT_UNREPLAYABLE, ACT_UNREPLAYABLE };
	struct replay_plan *p;

	for (unsigned i = 0; i < 3; i++) {
		fallbacks = fb[i];
		log_begin();
		op_open(100, 100, "/data/m", O_RDONLY, 4);		/* 1 */
		op_mmap(100, 100, 4, 8192);				/* 2 */
		{
			struct riot_rec r = sys(RIOT_SYS_mmap_read, 100, 100, 4096);

			r.sc.has = RIOT_HAS_PATH | RIOT_HAS_OFF | RIOT_HAS_COUNT | RIOT_HAS_CTX;
			r.sc.path.s = "/data/m";
			r.sc.off = 0;
			r.sc.count = 4096;
			r.sc.ctx = 0x7f0000000000;
			r.sc.dur = 0;
			add(&r);					/* 3 */
		}
		op_path(RIOT_SYS_stat, 100, 100, "/data/x", NULL, -ENOENT);	/* 4 */
		op_path(RIOT_SYS_stat, 100, 100, "/data/y", NULL, -ENOENT);	/* 5 */
		op_fd(RIOT_SYS_getcwd, 100, 100, -1, 0, 8);			/* 6 */
		{
			struct riot_rec r = sys(RIOT_SYS_fstat, 100, 100, 0);

			r.sc.has = RIOT_HAS_FD | RIOT_HAS_FTYPE;
			r.sc.fd = 1;
			r.sc.ftype = S_IFIFO;
			add(&r);					/* 7 */
		}
		log_end();
		p = plan_log(ORDER_THREAD);
		CHECK_U64(replay_plan_planned(p), 7);
		CHECK_STR(replay_act_name(replay_plan_op(p, 2)->act), replay_act_name(want_mmap[i]));
		CHECK(replay_plan_op(p, 3)->opflags & OPF_ASYNC);
		DEPS(p, 4, 3);
		NO_DEPS(p, 5);
		CHECK_EQ(replay_plan_op(p, 6)->act, ACT_STATE);
		CHECK_EQ(replay_plan_op(p, 7)->act, ACT_SKIP);
		CHECK_EQ(replay_plan_op(p, 7)->skip, SKIP_NOT_A_PATH);
		replay_plan_free(p);
	}
	fallbacks = NULL;
}

/* A read that got bytes from a pipe the log made waits for the last
 * write to it (the other end, another process), under thread order; a
 * read that got none, and a pipe's write, wait for nothing. */
static void test_pipe_wait(void)
{
	struct replay_plan *p;

	log_begin();
	{
		struct riot_rec r = sys(RIOT_SYS_pipe2, 100, 100, 0);

		r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2;
		r.sc.fd = 3;
		r.sc.fd2 = 4;
		add(&r);						/* 1 */
	}
	proc(RIOT_PROC_FORK, 100, 200);
	op_fd(RIOT_SYS_write, 200, 200, 4, 10, 10);			/* 2 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 100, 10);			/* 3 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 100, 0);			/* 4 */
	op_fd(RIOT_SYS_write, 200, 200, 4, 5, 5);			/* 5 */
	op_fd(RIOT_SYS_read, 100, 100, 3, 100, 5);			/* 6 */
	log_end();
	p = plan_log(ORDER_THREAD);
	CHECK_U64(replay_plan_planned(p), 6);
	CHECK_EQ(replay_plan_op(p, 3)->skip, SKIP_NOT_A_PATH);
	DEPS(p, 3, 2);
	NO_DEPS(p, 4);
	NO_DEPS(p, 5);
	DEPS(p, 6, 5);
	replay_plan_free(p);
}

/* The program's time runs from its first process record (a fork or exec
 * before its first call) to its last exit; what lies outside its calls
 * is apart (replay_plan_outside_ns()). */
static void test_program_span(void)
{
	struct replay_plan *p;

	log_begin();
	proc(RIOT_PROC_FORK, 100, 200);				/* t 0 */
	op_path(RIOT_SYS_stat, 200, 200, "/a", NULL, 0);	/* t 1000, ends 1500 */
	op_path(RIOT_SYS_stat, 200, 200, "/b", NULL, 0);	/* t 2000, ends 2500 */
	t_next += 2000;
	proc(RIOT_PROC_EXIT, 200, 0);				/* t 5000 */
	log_end();
	p = plan_log(ORDER_RESOURCE);
	CHECK_U64(replay_plan_captured_ns(p), 5000);
	CHECK_U64(replay_plan_outside_ns(p), 1000 + 2500);
	replay_plan_free(p);
}

int main(void)
{
	int fd;

	snprintf(log_path, sizeof(log_path), "/tmp/riot-test-plan.XXXXXX");
	fd = mkstemp(log_path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);

	test_positions();
	test_snapshot_position();
	test_append();
	test_append_position();
	test_order_thread();
	test_order_strict();
	test_order_resource_threads();
	test_order_resource_two_opens();
	test_order_resource_parent();
	test_order_resource_children();
	test_order_prefix_probe();
	test_order_resource_rename();
	test_streams();
	test_engine_refuses();
	test_skips();
	test_clones();
	test_failures();
	test_think();
	test_waits_and_state();
	test_pipe_wait();
	test_program_span();

	unlink(log_path);
	return unit_done();
}
