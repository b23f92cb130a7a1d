/* Writer failures leave a readable log: a write that hits the file size
 * limit (EFBIG, as a full disk gives ENOSPC) cuts the file back to the last
 * complete block; abort keeps every record added; flush ends a block. */
#include "tests/unit/unit.h"
#include "formats/log.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct riot_log_header hdr = { .host = "h", .start_t = 1 };

static struct riot_rec record(unsigned i)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };
	static char path[64];

	r.sc.sys = RIOT_SYS_openat;
	r.sc.pid = r.sc.tid = 77;
	r.sc.t = 1000 + i * 1000003ull;	/* incompressible enough */
	r.sc.dur = i * 7919 % 100000;
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_DIRFD;
	r.sc.dirfd = -100;
	snprintf(path, sizeof(path), "/data/%u/%u", i * 2654435761u, i);
	r.sc.path.s = path;
	r.sc.ret = (int64_t)(i % 50);
	return r;
}

struct seen {
	unsigned records;
	int rc;
	bool complete;
	char why[256];
};

static struct seen read_back(const char *path)
{
	struct seen s = { 0 };
	char err[256];
	struct riot_rec r;
	struct riot_reader *rd = riot_reader_open(path, err, sizeof(err));

	CHECK(rd != NULL);
	if (!rd)
		return s;
	while ((s.rc = riot_reader_next(rd, &r)) == 1)
		if (r.type == RIOT_REC_SYSCALL)
			s.records++;
	s.complete = riot_reader_complete(rd);
	snprintf(s.why, sizeof(s.why), "%s",
		 riot_reader_incomplete_reason(rd) ? riot_reader_incomplete_reason(rd) : "");
	riot_reader_close(rd);
	return s;
}

static void file_too_big(const char *path)
{
	struct rlimit old, lim;
	struct riot_writer_opts o = { .block_bytes = 2000 };
	struct riot_writer *w = riot_writer_open(path, &hdr, &o);
	unsigned added = 0, in_file = 0;
	uint64_t bytes = 0;
	int rc = 0;

	CHECK(w != NULL);
	if (!w)
		return;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 20000;
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (unsigned i = 0; i < 100000; i++) {
		struct riot_rec r = record(i);
		rc = riot_writer_add(w, &r);
		if (rc)
			break;
		added++;
		if (riot_writer_bytes(w) != bytes) {
			bytes = riot_writer_bytes(w);
			in_file = added;	/* a block went out with all so far */
		}
	}
	CHECK_EQ(rc, -EFBIG);
	struct stat sb;
	CHECK_EQ(stat(path, &sb), 0);
	CHECK_U64(sb.st_size, riot_writer_bytes(w));
	CHECK(sb.st_size <= 20000 && sb.st_size > 10000);
	struct riot_rec r = record(0);
	CHECK_EQ(riot_writer_add(w, &r), -EFBIG);	/* stays failed */
	CHECK_EQ(riot_writer_flush(w), -EFBIG);
	CHECK_EQ(riot_writer_close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);

	struct seen s = read_back(path);
	CHECK_EQ(s.rc, 0);
	CHECK(!s.complete);
	CHECK(in_file > 0);
	CHECK_EQ(s.records, in_file);
	CHECK(strstr(s.why, "without an end record") != NULL);
}

static void abort_and_flush(const char *path)
{
	struct riot_writer *w = riot_writer_open(path, &hdr, NULL);

	CHECK(w != NULL);
	if (!w)
		return;
	uint64_t start = riot_writer_bytes(w);
	CHECK(start > 16);
	for (unsigned i = 0; i < 10; i++) {
		struct riot_rec r = record(i);
		CHECK_EQ(riot_writer_add(w, &r), 0);
	}
	CHECK_U64(riot_writer_bytes(w), start);	/* still in the open block */
	CHECK_EQ(riot_writer_flush(w), 0);
	CHECK(riot_writer_bytes(w) > start);
	uint64_t one = riot_writer_bytes(w);
	CHECK_EQ(riot_writer_flush(w), 0);	/* nothing to flush: no empty block */
	CHECK_U64(riot_writer_bytes(w), one);
	for (unsigned i = 10; i < 15; i++) {
		struct riot_rec r = record(i);
		CHECK_EQ(riot_writer_add(w, &r), 0);
	}
	riot_writer_abort(w);
	struct seen s = read_back(path);
	CHECK_EQ(s.rc, 0);
	CHECK_EQ(s.records, 15);
	CHECK(!s.complete);
	struct stat sb;
	CHECK_EQ(stat(path, &sb), 0);
	char want[128];
	snprintf(want, sizeof(want), "ends after block 2 at byte %lld without an end record",
		 (long long)sb.st_size);
	CHECK_STR(s.why, want);
}

static void open_fails(void)
{
	errno = 0;
	CHECK(riot_writer_open("/nonexistent/dir/x.riot", &hdr, NULL) == NULL);
	CHECK_EQ(errno, ENOENT);
}

int main(void)
{
	char path[] = "/tmp/riot-test-writer-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	file_too_big(path);
	abort_and_flush(path);
	open_fails();
	unlink(path);
	return unit_done();
}
