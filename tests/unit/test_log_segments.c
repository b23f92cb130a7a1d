/* Segments of a rotated capture read as one log: the records in order,
 * the start state a later segment restates skipped, totals summed, the
 * first header; segments out of order, of another capture, a plain log
 * among them, or a cut segment before the last are refused in one line.
 * Also riot_parse_size(), which --rotate uses. */
#include "tests/unit/unit.h"
#include "formats/log.h"
#include "lib/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/riot-segments-XXXXXX";

static struct riot_rec syscall_rec(uint64_t t, int32_t fd, uint64_t count)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_write, .pid = 10, .tid = 10, .t = t,
				      .dur = 5, .ret = (int64_t)count,
				      .has = RIOT_HAS_FD | RIOT_HAS_COUNT, .fd = fd,
				      .count = count };
	return r;
}

static struct riot_rec snap_proc(uint64_t t)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };

	r.sproc = (struct riot_snap_proc){ .pid = 10, .t = t, .cwd = { "/w", false } };
	return r;
}

static struct riot_rec snap_fd(uint64_t t, uint64_t pos)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd = (struct riot_snap_fd){ .pid = 10, .fd = 3, .t = t, .path = { "/w/f", false },
				       .flags = 2, .pos = pos, .size = pos, .ftype = 0100000 };
	return r;
}

/* Segment seg of capture id: its restated state (none in segment 1),
 * then writes of count seg*100 + i; cut: no end record. */
static void write_segment(const char *path, const char *id, uint64_t seg, unsigned writes,
			  bool cut)
{
	struct riot_log_header h = { .host = seg == 1 ? "first" : "later", .start_t = seg * 1000,
				     .capture_id = id, .segment = seg,
				     .restated = seg > 1 ? 2 : 0 };
	struct riot_writer *w = riot_writer_open(path, &h, NULL);
	struct riot_rec r;

	CHECK(w != NULL);
	if (!w)
		return;
	r = snap_proc(seg * 1000);
	CHECK_EQ(riot_writer_add(w, &r), 0);
	r = snap_fd(seg * 1000, seg * 4096);
	CHECK_EQ(riot_writer_add(w, &r), 0);
	for (unsigned i = 0; i < writes; i++) {
		r = syscall_rec(seg * 1000 + 10 * i, 3, seg * 100 + i);
		CHECK_EQ(riot_writer_add(w, &r), 0);
	}
	if (cut)
		riot_writer_abort(w);
	else
		CHECK_EQ(riot_writer_close(w), 0);
}

static char *seg_path(const char *name)
{
	char *p = malloc(256);

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

/* Reads paths as one log: the write counts in order into got (at most
 * 64), the return of the last riot_reader_next(), or -errno of the open
 * with its message in err. */
static int read_all(const char *const *paths, unsigned n, uint64_t *got, unsigned *ngot,
		    unsigned *snaps, char *err, size_t errlen, struct riot_reader **keep)
{
	struct riot_logs l = { paths, n };
	struct riot_reader *r = riot_reader_open_logs(&l, err, errlen);
	struct riot_rec rec;
	int rc;

	*ngot = *snaps = 0;
	if (!r)
		return -errno;
	while ((rc = riot_reader_next(r, &rec)) > 0) {
		if (rec.type == RIOT_REC_SYSCALL && *ngot < 64)
			got[(*ngot)++] = rec.sc.count;
		if (rec.type == RIOT_REC_SNAP_PROC || rec.type == RIOT_REC_SNAP_FD)
			(*snaps)++;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", riot_reader_error(r));
	*keep = r;
	return rc;
}

static void test_in_order(char **p)
{
	const char *paths[] = { p[0], p[1], p[2] };
	uint64_t got[64];
	unsigned n, snaps;
	char err[512] = "";
	struct riot_reader *r = NULL;
	int rc = read_all(paths, 3, got, &n, &snaps, err, sizeof(err), &r);

	CHECK_EQ(rc, 0);
	CHECK_EQ(n, 3 + 2 + 4);
	CHECK_EQ(snaps, 2);	/* segment 1's; the others restate them */
	uint64_t want[] = { 100, 101, 102, 200, 201, 300, 301, 302, 303 };
	for (unsigned i = 0; i < n && i < 9; i++)
		CHECK_U64(got[i], want[i]);
	CHECK(r && riot_reader_complete(r));
	if (r) {
		const struct riot_log_totals *t = riot_reader_totals(r);

		CHECK_STR(riot_reader_header(r)->host, "first");
		CHECK_U64(riot_reader_header(r)->start_t, 1000);
		CHECK_U64(riot_reader_header(r)->segment, 1);
		CHECK(t != NULL);
		if (t) {
			CHECK_U64(t->records[RIOT_REC_SYSCALL], 9);
			CHECK_U64(t->syscalls[RIOT_SYS_write], 9);
			CHECK_U64(t->records[RIOT_REC_SNAP_PROC], 1);
			CHECK_U64(t->records[RIOT_REC_SNAP_FD], 1);
			CHECK_U64(t->blocks, 3);
			CHECK_U64(t->t_last, 3000 + 30 + 5);
		}
		CHECK_U64(riot_reader_blocks(r), 3);
		CHECK(riot_reader_end_section(r, RIOT_END_DEVICES, &(size_t){ 0 }) == NULL);
	}
	riot_reader_close(r);

	/* from a later segment on: its own start state stands */
	const char *tail[] = { p[1], p[2] };
	r = NULL;
	rc = read_all(tail, 2, got, &n, &snaps, err, sizeof(err), &r);
	CHECK_EQ(rc, 0);
	CHECK_EQ(n, 6);
	CHECK_EQ(snaps, 2);
	CHECK(r && riot_reader_header(r)->segment == 2);
	riot_reader_close(r);
}

/* The list is refused at open, with this in the one-line reason. */
static void refused(const char *const *paths, unsigned n, const char *want)
{
	uint64_t got[64];
	unsigned ngot, snaps;
	char err[512] = "";
	struct riot_reader *r = NULL;
	int rc = read_all(paths, n, got, &ngot, &snaps, err, sizeof(err), &r);

	CHECK(rc < 0);
	CHECK(strstr(err, want) != NULL);
	CHECK(strchr(err, '\n') == NULL);
	if (!strstr(err, want))
		fprintf(stderr, "  got \"%s\", wanted \"%s\"\n", err, want);
	riot_reader_close(r);
}

int main(void)
{
	char *p[7];
	uint64_t v = 0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const char *names[] = { "a.000001.riot", "a.000002.riot", "a.000003.riot",
				"b.000002.riot", "plain.riot", "c.000001.riot", "c.000002.riot" };
	for (unsigned i = 0; i < 7; i++)
		p[i] = seg_path(names[i]);
	write_segment(p[0], "aaaa", 1, 3, false);
	write_segment(p[1], "aaaa", 2, 2, false);
	write_segment(p[2], "aaaa", 3, 4, false);
	write_segment(p[3], "bbbb", 2, 2, false);
	{
		struct riot_log_header h = { .host = "p" };
		struct riot_writer *w = riot_writer_open(p[4], &h, NULL);

		CHECK(w && riot_writer_close(w) == 0);
	}
	write_segment(p[5], "cccc", 1, 3, true);	/* cut short */
	write_segment(p[6], "cccc", 2, 1, false);

	test_in_order(p);
	refused((const char *[]){ p[1], p[0] }, 2, "segment 1 cannot follow segment 2");
	refused((const char *[]){ p[0], p[2] }, 2, "segment 3 cannot follow segment 1");
	refused((const char *[]){ p[0], p[3] }, 2, "segment of another capture");
	refused((const char *[]){ p[4], p[1] }, 2, "not a segment of a rotated capture");
	refused((const char *[]){ p[0], p[4] }, 2, "not a segment of a rotated capture");

	/* a cut segment before the last: an error naming it, at its end */
	{
		const char *cut[] = { p[5], p[6] };
		uint64_t got[64];
		unsigned n, snaps;
		char err[512] = "";
		struct riot_reader *r = NULL;

		CHECK_EQ(read_all(cut, 2, got, &n, &snaps, err, sizeof(err), &r), -EBADMSG);
		CHECK(strstr(err, "c.000001.riot") && strstr(err, "yet segment"));
		CHECK_EQ(n, 3);
		riot_reader_close(r);
	}
	/* a cut last segment: its records, then incomplete, named */
	{
		const char *cut[] = { p[5] };
		uint64_t got[64];
		unsigned n, snaps;
		char err[512] = "";
		struct riot_reader *r = NULL;

		CHECK_EQ(read_all(cut, 1, got, &n, &snaps, err, sizeof(err), &r), 0);
		CHECK(r && !riot_reader_complete(r));
		riot_reader_close(r);
	}
	CHECK_EQ(riot_log_check(&(struct riot_logs){ (const char *[]){ p[0], p[1], p[2] }, 3 },
				(char[512]){ 0 }, 512), 0);

	CHECK_EQ(riot_parse_size("4096", &v), 0);
	CHECK_U64(v, 4096);
	CHECK_EQ(riot_parse_size("8K", &v), 0);
	CHECK_U64(v, 8192);
	CHECK_EQ(riot_parse_size("3m", &v), 0);
	CHECK_U64(v, 3ull << 20);
	CHECK_EQ(riot_parse_size("2G", &v), 0);
	CHECK_U64(v, 2ull << 30);
	CHECK_EQ(riot_parse_size("1KB", &v), -EINVAL);
	CHECK_EQ(riot_parse_size("5X", &v), -EINVAL);
	CHECK_EQ(riot_parse_size("-1", &v), -EINVAL);
	CHECK_EQ(riot_parse_size("", &v), -EINVAL);
	CHECK_EQ(riot_parse_size("K", &v), -EINVAL);
	CHECK_EQ(riot_parse_size("17179869184G", &v), -ERANGE);

	for (unsigned i = 0; i < 7; i++) {
		unlink(p[i]);
		free(p[i]);
	}
	rmdir(dir);
	return unit_done();
}
