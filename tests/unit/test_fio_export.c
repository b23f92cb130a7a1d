/* tests/unit/test_fio_export.c: a log written here, exported, and the iolog
 * lines compared byte for byte: offsets from positions, snapshots, lseek,
 * O_APPEND, fork-shared positions, skips, timestamps. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/fio.h"
#include "formats/log.h"
#include "tests/unit/unit.h"

#define T0 1000000000ull
#define MS 1000000ull

static struct riot_writer *w;

static void add(const struct riot_rec *r)
{
	CHECK_EQ(riot_writer_add(w, r), 0);
}

static struct riot_rec sys(unsigned nr, uint32_t tid, uint64_t ms, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc.sys = (uint16_t)nr;
	r.sc.pid = 10;
	r.sc.tid = tid;
	r.sc.t = T0 + ms * MS;
	r.sc.dur = 1000;
	r.sc.ret = ret;
	return r;
}

static void op_open(uint32_t tid, uint64_t ms, const char *path, uint64_t flags, int fd)
{
	struct riot_rec r = sys(RIOT_SYS_openat, tid, ms, fd);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = path;
	r.sc.flags = flags;
	add(&r);
}

static void op_fd(unsigned nr, uint32_t tid, uint64_t ms, int fd, int64_t ret)
{
	struct riot_rec r = sys(nr, tid, ms, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT;
	r.sc.fd = fd;
	r.sc.count = ret > 0 ? (uint64_t)ret : 4096;
	add(&r);
}

static void op_off(unsigned nr, uint32_t tid, uint64_t ms, int fd, uint64_t off, int64_t ret)
{
	struct riot_rec r = sys(nr, tid, ms, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT | RIOT_HAS_OFF;
	r.sc.fd = fd;
	r.sc.off = off;
	r.sc.count = (uint64_t)ret;
	add(&r);
}

static void write_log(const char *path)
{
	struct riot_log_header h = { .major = RIOT_FMT_MAJOR, .minor = RIOT_FMT_MINOR,
				     .start_t = T0 };
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	w = riot_writer_open(path, &h, NULL);
	CHECK(w != NULL);
	if (!w)
		return;
	r.sfd = (struct riot_snap_fd){ .pid = 10, .fd = 3, .t = T0, .path = { "/d/pre", false },
				      .flags = O_RDWR, .pos = 1000, .ftype = 0100000 };
	add(&r);
	op_open(10, 1, "/d/a", O_RDWR, 4);
	op_fd(RIOT_SYS_read, 10, 2, 4, 100);		/* read 0 100 */
	op_fd(RIOT_SYS_read, 10, 3, 4, 50);		/* read 100 50 */
	op_off(RIOT_SYS_lseek, 10, 4, 4, 10, 10);	/* pos 10 */
	op_fd(RIOT_SYS_write, 10, 5, 4, 20);		/* write 10 20 */
	op_off(RIOT_SYS_pread64, 10, 6, 4, 500, 8);	/* read 500 8, pos stays 30 */
	op_fd(RIOT_SYS_read, 10, 7, 3, 10);		/* /d/pre: read 1000 10 */
	op_open(10, 8, "/d/log", O_WRONLY | O_APPEND | O_CREAT, 5);
	op_fd(RIOT_SYS_write, 10, 9, 5, 7);		/* write 0 7 */
	op_fd(RIOT_SYS_write, 10, 10, 5, 3);		/* write 7 3 */
	r = sys(RIOT_SYS_newfstatat, 10, 11, 0);	/* someone grew it */
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_SIZE | RIOT_HAS_FTYPE;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = "/d/log";
	r.sc.size = 100;
	r.sc.ftype = 0100000;
	add(&r);
	op_fd(RIOT_SYS_write, 10, 12, 5, 1);		/* write 100 1 */
	op_fd(RIOT_SYS_fsync, 10, 13, 4, 0);		/* sync */
	op_fd(RIOT_SYS_read, 10, 14, 4, -EBADF);	/* failed */
	r = (struct riot_rec){ .type = RIOT_REC_PROC };
	r.proc = (struct riot_proc){ .kind = RIOT_PROC_FORK, .pid = 10, .tid = 10,
				     .t = T0 + 15 * MS, .child_pid = 11, .child_tid = 11,
				     .clone_flags = 17 };
	add(&r);
	r = sys(RIOT_SYS_read, 11, 16, 5);		/* shared position: 30 */
	r.sc.pid = 11;
	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT;
	r.sc.fd = 4;
	r.sc.count = 5;
	add(&r);
	op_fd(RIOT_SYS_close, 10, 17, 4, 0);		/* close */
	op_open(10, 18, "/proc/self/stat", O_RDONLY, 6);
	op_fd(RIOT_SYS_read, 10, 19, 6, 10);		/* not a file */
	op_open(10, 20, "/d/a b", O_RDONLY, 7);
	op_fd(RIOT_SYS_read, 10, 21, 7, 10);		/* fio cannot name it */
	op_fd(RIOT_SYS_read, 10, 22, 9, 10);		/* unknown fd */
	CHECK_EQ(riot_writer_close(w), 0);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* The callback form: the same operations, in log order, no files. */
static int collect(void *arg, uint32_t tid, uint64_t t, const char *name, const char *verb,
		   uint64_t off, uint64_t len)
{
	char *buf = arg;
	size_t n = strlen(buf);

	snprintf(buf + n, 8192 - n, "%u %llu %s %s %llu %llu\n", tid,
		 (unsigned long long)((t - T0) / MS), name, verb, (unsigned long long)off,
		 (unsigned long long)len);
	return 0;
}

static void test_on_io(const char *log, const char *dir)
{
	static char got[8192];
	struct fio_export_opts o = { .root = "/r", .engine = FIO_ENGINE_PSYNC,
				     .on_io = collect, .on_io_arg = got };
	struct fio_export_stats st;
	char err[256], absent[256];
	struct stat sb;

	snprintf(absent, sizeof(absent), "%s/none", dir);
	CHECK_EQ(fio_export(RIOT_LOGS_ONE(log), absent, &o, &st, err, sizeof(err)), 0);
	CHECK_STR(got,
		  "10 2 /r/d/a read 0 100\n"
		  "10 3 /r/d/a read 100 50\n"
		  "10 5 /r/d/a write 10 20\n"
		  "10 6 /r/d/a read 500 8\n"
		  "10 7 /r/d/pre read 1000 10\n"
		  "10 9 /r/d/log write 0 7\n"
		  "10 10 /r/d/log write 7 3\n"
		  "10 12 /r/d/log write 100 1\n"
		  "10 13 /r/d/a sync 0 0\n"
		  "11 16 /r/d/a read 30 5\n");
	CHECK(stat(absent, &sb) != 0);	/* nothing written */
	CHECK_U64(st.reads, 5);
	CHECK_U64(st.writes, 4);
	CHECK_U64(st.syncs, 1);
	CHECK_U64(st.bytes_written, 20 + 7 + 3 + 1);
	CHECK_U64(st.jobs, 0);
}

int main(void)
{
	char dir[] = "/tmp/riot-test-fio.XXXXXX", log[128], out[128], path[256];
	struct fio_export_opts o = { .root = "/r", .engine = FIO_ENGINE_PSYNC };
	struct fio_export_stats st;
	char err[256];
	const char *s;

	if (!mkdtemp(dir))
		return 1;
	snprintf(log, sizeof(log), "%s/t.riot", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	write_log(log);
	CHECK_EQ(fio_export(RIOT_LOGS_ONE(log), out, &o, &st, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/riot-10.iolog", out);
	CHECK_STR(slurp(path),
		  "fio version 3 iolog\n"
		  "1 /r/d/a add\n"
		  "2000 /r/d/a open\n"
		  "2000 /r/d/a read 0 100\n"
		  "3000 /r/d/a read 100 50\n"
		  "5000 /r/d/a write 10 20\n"
		  "6000 /r/d/a read 500 8\n"
		  "7000 /r/d/pre add\n"
		  "7000 /r/d/pre open\n"
		  "7000 /r/d/pre read 1000 10\n"
		  "9000 /r/d/log add\n"
		  "9000 /r/d/log open\n"
		  "9000 /r/d/log write 0 7\n"
		  "10000 /r/d/log write 7 3\n"
		  "12000 /r/d/log write 100 1\n"
		  "13000 /r/d/a sync 0 0\n"
		  "17001 /r/d/a close\n");
	snprintf(path, sizeof(path), "%s/riot-11.iolog", out);
	CHECK_STR(slurp(path),
		  "fio version 3 iolog\n"
		  "1 /r/d/a add\n"
		  "16000 /r/d/a open\n"
		  "16000 /r/d/a read 30 5\n");
	snprintf(path, sizeof(path), "%s/riot.fio", out);
	s = slurp(path);
	CHECK(s && strstr(s, "ioengine=psync\n"));
	CHECK(s && strstr(s, "replay_no_stall=0\n"));
	CHECK(s && strstr(s, "[tid-10]\nread_iolog="));
	CHECK(s && strstr(s, "[tid-11]\nread_iolog="));
	CHECK_U64(st.jobs, 2);
	CHECK_U64(st.reads, 5);
	CHECK_U64(st.writes, 4);
	CHECK_U64(st.bytes_read, 100 + 50 + 8 + 10 + 5);
	CHECK_U64(st.bytes_written, 20 + 7 + 3 + 1);
	CHECK_U64(st.syncs, 1);
	CHECK_U64(st.skipped[FIO_SKIP_FAILED], 1);
	CHECK_U64(st.skipped[FIO_SKIP_NOT_FILE], 1);
	CHECK_U64(st.skipped[FIO_SKIP_NAME], 1);
	CHECK_U64(st.skipped[FIO_SKIP_UNRESOLVED], 1);

	test_on_io(log, dir);

	o.root = "relative";
	CHECK_EQ(fio_export(RIOT_LOGS_ONE(log), out, &o, &st, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK_EQ(system(path), 0);
	return unit_done();
}
