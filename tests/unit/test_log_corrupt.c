/* Damaged logs: every truncation point, every flipped byte, forged block
 * lengths, trailing garbage, empty and foreign files. The reader must
 * return exactly the records of the intact blocks, then an exact error or
 * an exact incomplete reason, and never crash (run it under ASan too). */
#include "tests/unit/unit.h"
#include "formats/log.h"
#include "formats/log_codec.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MAXBLK 256

static uint8_t *log_buf;
static size_t log_len, hdr_len, end_off;
static size_t blk_off[MAXBLK], blk_end[MAXBLK];
static unsigned blk_recs[MAXBLK], nblk;
static unsigned total_recs;

static void write_log(const char *path)
{
	struct riot_log_header h = { .host = "h", .kernel = "k", .arch = "a",
				     .start_t = 1000 };
	struct riot_writer_opts o = { .block_bytes = 300 };
	struct riot_writer *w = riot_writer_open(path, &h, &o);
	char p[64];

	CHECK(w != NULL);
	for (unsigned i = 0; w && i < 200; i++) {
		struct riot_rec r = { .type = RIOT_REC_SYSCALL };
		r.sc.sys = i % 4 ? RIOT_SYS_pread64 : RIOT_SYS_openat;
		r.sc.pid = 10;
		r.sc.tid = 10 + i % 3;
		r.sc.t = 1000 + i * 777;
		r.sc.dur = 100 + i;
		r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT | RIOT_HAS_OFF;
		r.sc.fd = 3;
		r.sc.count = 4096;
		r.sc.off = i * 4096ull;
		r.sc.ret = 4096;
		if (i % 4 == 0) {
			snprintf(p, sizeof(p), "/data/file-%u", i % 9);
			r.sc.has = RIOT_HAS_PATH | RIOT_HAS_DIRFD;
			r.sc.path.s = p;
			r.sc.dirfd = -100;
			r.sc.off = r.sc.count = 0;
			r.sc.fd = 0;
		}
		CHECK_EQ(riot_writer_add(w, &r), 0);
	}
	if (w)
		CHECK_EQ(riot_writer_close(w), 0);
}

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;

	CHECK(f != NULL && stat(path, &sb) == 0);
	log_len = (size_t)sb.st_size;
	log_buf = malloc(log_len);
	CHECK(fread(log_buf, 1, log_len, f) == log_len);
	fclose(f);
	/* frame layout from FORMAT.md */
	hdr_len = 16 + get_le32(log_buf + 12) + 4;
	size_t pos = hdr_len;
	while (pos + 32 <= log_len && memcmp(log_buf + pos, "RBLK", 4) == 0 && nblk < MAXBLK) {
		blk_off[nblk] = pos;
		/* the block sequence record opens every block; the
		 * reader consumes it */
		blk_recs[nblk] = get_le32(log_buf + pos + 12) - 1;
		total_recs += blk_recs[nblk];
		pos += 32 + get_le32(log_buf + pos + 4);
		blk_end[nblk++] = pos;
	}
	end_off = pos;
	CHECK(memcmp(log_buf + end_off, "REND", 4) == 0);
	CHECK(nblk >= 10);
}

struct outcome {
	bool opened;
	int open_errno;
	char err[256];
	unsigned recs;
	int rc;		/* last riot_reader_next() */
	bool complete;
	char why[256];	/* error or incomplete reason */
};

static struct outcome read_mem(const uint8_t *buf, size_t len)
{
	struct outcome o = { 0 };
	struct riot_rec rec;
	struct riot_reader *r = riot_reader_open_mem(buf, len, o.err, sizeof(o.err));

	if (!r) {
		o.open_errno = errno;
		return o;
	}
	o.opened = true;
	while ((o.rc = riot_reader_next(r, &rec)) == 1)
		o.recs++;
	o.complete = riot_reader_complete(r);
	const char *why = o.rc < 0 ? riot_reader_error(r) : riot_reader_incomplete_reason(r);
	snprintf(o.why, sizeof(o.why), "%s", why ? why : "");
	riot_reader_close(r);
	return o;
}

/* Records in the blocks that end at or before byte `cut`. */
static unsigned recs_before(size_t cut)
{
	unsigned n = 0;

	for (unsigned b = 0; b < nblk && blk_end[b] <= cut; b++)
		n += blk_recs[b];
	return n;
}

static void truncations(void)
{
	struct outcome o = read_mem(log_buf, log_len);
	CHECK(o.opened && o.rc == 0 && o.complete);
	CHECK_EQ(o.recs, total_recs);

	o = read_mem(log_buf, 0);
	CHECK(!o.opened);
	CHECK_EQ(o.open_errno, ENODATA);
	for (size_t cut = 1; cut < hdr_len; cut++) {
		o = read_mem(log_buf, cut);
		CHECK(!o.opened);
		CHECK_EQ(o.open_errno, EBADMSG);
	}
	unsigned bad = 0;
	for (size_t cut = hdr_len; cut < log_len; cut++) {
		o = read_mem(log_buf, cut);
		if (!o.opened || o.rc != 0 || o.complete || o.recs != recs_before(cut) ||
		    !o.why[0])
			bad++;
	}
	CHECK_EQ(bad, 0);

	char want[256];
	o = read_mem(log_buf, end_off);
	snprintf(want, sizeof(want), "ends after block %u at byte %zu without an end record",
		 nblk, end_off);
	CHECK_STR(o.why, want);
	o = read_mem(log_buf, blk_off[3] + 40);
	snprintf(want, sizeof(want), "ends inside block 3 at byte %zu", blk_off[3] + 40);
	CHECK_STR(o.why, want);
	CHECK_EQ(o.recs, recs_before(blk_off[3]));
	o = read_mem(log_buf, blk_off[3] + 20);
	snprintf(want, sizeof(want), "ends inside block 3 at byte %zu", blk_off[3] + 20);
	CHECK_STR(o.why, want);
	o = read_mem(log_buf, end_off + 10);
	snprintf(want, sizeof(want), "ends inside the end record at byte %zu", end_off);
	CHECK_STR(o.why, want);
}

/* Every byte is under a checksum, a magic or the version: flipping any one
 * must be noticed. */
static void bit_flips(void)
{
	uint8_t *copy = malloc(log_len);
	unsigned undetected = 0, wrong_errno = 0;

	for (size_t i = 0; i < log_len; i++) {
		memcpy(copy, log_buf, log_len);
		copy[i] ^= 0x04;
		struct outcome o = read_mem(copy, log_len);
		if (!o.opened) {
			if (o.open_errno != EBADMSG && o.open_errno != EPROTONOSUPPORT)
				wrong_errno++;
			continue;
		}
		if (o.rc >= 0 || o.complete)
			undetected++;
		else if (o.rc != -EBADMSG)
			wrong_errno++;
	}
	CHECK_EQ(undetected, 0);
	CHECK_EQ(wrong_errno, 0);
	free(copy);
}

/* Damage at a known place: the exact message, the records before it. */
static struct outcome damaged(size_t at, uint8_t xor_with)
{
	uint8_t *copy = malloc(log_len);

	memcpy(copy, log_buf, log_len);
	copy[at] ^= xor_with;
	struct outcome o = read_mem(copy, log_len);
	free(copy);
	return o;
}

static void fix_block_crc(uint8_t *buf, size_t off)
{
	put_le32(buf + off + 28, (uint32_t)crc32(0, buf + off, 28));
}

static void known_damage(void)
{
	char want[256];
	struct outcome o = damaged(20, 0x01);

	CHECK(!o.opened);
	CHECK_EQ(o.open_errno, EBADMSG);
	CHECK_STR(o.err, "header at byte 0: checksum mismatch");

	o = damaged(blk_off[2] + 40, 0x80);
	CHECK_EQ(o.rc, -EBADMSG);
	CHECK_EQ(o.recs, recs_before(blk_off[2]));
	snprintf(want, sizeof(want), "block 2 at byte %zu: payload checksum mismatch", blk_off[2]);
	CHECK_STR(o.why, want);
	CHECK(!o.complete);

	o = damaged(blk_off[2] + 24, 0x01);	/* the payload checksum field */
	snprintf(want, sizeof(want), "block 2 at byte %zu: header checksum mismatch", blk_off[2]);
	CHECK_STR(o.why, want);
	o = damaged(blk_off[2] + 8, 0x10);	/* the raw length */
	CHECK_STR(o.why, want);
	o = damaged(blk_off[2], 'x');		/* the magic */
	snprintf(want, sizeof(want), "block 2 at byte %zu: bad magic (not a block or end record)",
		 blk_off[2]);
	CHECK_STR(o.why, want);
	o = damaged(end_off + 40, 0x01);
	snprintf(want, sizeof(want), "block %u at byte %zu: end record checksum mismatch",
		 nblk, end_off);
	CHECK_STR(o.why, want);
	CHECK_EQ(o.recs, total_recs);

	/* forged lengths with a valid header checksum */
	uint8_t *copy = malloc(log_len + 1);
	memcpy(copy, log_buf, log_len);
	put_le32(copy + blk_off[1] + 8, 0x7fffffff);
	fix_block_crc(copy, blk_off[1]);
	o = read_mem(copy, log_len);
	CHECK_EQ(o.rc, -EBADMSG);
	CHECK_EQ(o.recs, blk_recs[0]);
	CHECK(strstr(o.why, "block 1 at byte") && strstr(o.why, "impossible lengths"));

	memcpy(copy, log_buf, log_len);
	put_le32(copy + blk_off[1] + 8, get_le32(copy + blk_off[1] + 8) + 1);
	fix_block_crc(copy, blk_off[1]);
	o = read_mem(copy, log_len);
	CHECK_EQ(o.rc, -EBADMSG);
	CHECK_EQ(o.recs, blk_recs[0]);
	CHECK(strstr(o.why, "block 1 at byte") != NULL);

	memcpy(copy, log_buf, log_len);
	put_le32(copy + blk_off[1] + 12, get_le32(copy + blk_off[1] + 12) + 1);	/* count */
	fix_block_crc(copy, blk_off[1]);
	o = read_mem(copy, log_len);
	CHECK_EQ(o.rc, -EBADMSG);
	CHECK_EQ(o.recs, blk_recs[0] + blk_recs[1]);
	snprintf(want, sizeof(want), "block 1 at byte %zu: bad record type", blk_off[1]);
	CHECK_STR(o.why, want);

	/* a compressed length past the end of the file reads as a cut log */
	memcpy(copy, log_buf, log_len);
	put_le32(copy + blk_off[1] + 4, (uint32_t)log_len);
	fix_block_crc(copy, blk_off[1]);
	o = read_mem(copy, log_len);
	CHECK_EQ(o.rc, 0);
	CHECK(!o.complete);
	CHECK_EQ(o.recs, blk_recs[0]);
	snprintf(want, sizeof(want), "ends inside block 1 at byte %zu", log_len);
	CHECK_STR(o.why, want);

	/* trailing garbage after the end record */
	memcpy(copy, log_buf, log_len);
	copy[log_len] = 0;
	o = read_mem(copy, log_len + 1);
	CHECK_EQ(o.rc, -EBADMSG);
	CHECK_EQ(o.recs, total_recs);
	CHECK(!o.complete);
	snprintf(want, sizeof(want), "trailing bytes after the end record at byte %zu", log_len);
	CHECK_STR(o.why, want);
	free(copy);
}

static void foreign_files(const char *path)
{
	char err[512] = "", want[512];
	FILE *f = fopen(path, "w");
	struct riot_reader *r;

	fclose(f);
	errno = 0;
	r = riot_reader_open(path, err, sizeof(err));
	CHECK(r == NULL);
	CHECK_EQ(errno, ENODATA);
	snprintf(want, sizeof(want), "%s: empty file, not a riot log", path);
	CHECK_STR(err, want);

	f = fopen(path, "w");
	fputs("#!/bin/sh\necho this is not a log\n", f);
	fclose(f);
	r = riot_reader_open(path, err, sizeof(err));
	CHECK(r == NULL);
	CHECK_EQ(errno, EBADMSG);
	snprintf(want, sizeof(want), "%s: not a riot log (bad magic at byte 0)", path);
	CHECK_STR(err, want);

	f = fopen(path, "w");
	fputs("RIOT", f);
	fclose(f);
	r = riot_reader_open(path, err, sizeof(err));
	CHECK(r == NULL);
	CHECK_EQ(errno, EBADMSG);

	r = riot_reader_open("/", err, sizeof(err));
	CHECK(r == NULL);
	CHECK_EQ(errno, EINVAL);
	r = riot_reader_open("/nonexistent/x.riot", err, sizeof(err));
	CHECK(r == NULL);
	CHECK_EQ(errno, ENOENT);
	CHECK_STR(err, "/nonexistent/x.riot: No such file or directory");
}

int main(void)
{
	char path[] = "/tmp/riot-test-corrupt-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	write_log(path);
	load(path);
	truncations();
	bit_flips();
	known_damage();
	foreign_files(path);
	unlink(path);
	free(log_buf);
	return unit_done();
}
