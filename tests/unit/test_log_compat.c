/* Logs crafted byte by byte from FORMAT.md: a newer major version is
 * refused with the version message; format 2's plane streams read
 * exactly, and malformed ones give exact errors; a newer minor's unknown header keys,
 * record types, fields and end-record bytes are skipped while the known
 * records still read exactly; malformed blocks give exact errors. */
#include "tests/unit/unit.h"
#include "formats/log.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

struct buf {
	uint8_t p[1 << 16];
	size_t n;
};

static void put(struct buf *b, const void *src, size_t n)
{
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void put_var(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		b->p[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (uint8_t)v;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void header(struct buf *out, unsigned major, unsigned minor)
{
	struct buf tlv = { .n = 0 };

	put_var(&tlv, 1);	/* host */
	put_var(&tlv, 4);
	put(&tlv, "hal9", 4);
	put_var(&tlv, 42);	/* a key from the future */
	put_var(&tlv, 3);
	put(&tlv, "new", 3);
	put_var(&tlv, 9);	/* start_t */
	put_var(&tlv, 2);
	put_var(&tlv, 1000);
	size_t start = out->n;
	put(out, "RIOTLOG\0", 8);
	put_le(out, major, 2);
	put_le(out, minor, 2);
	put_le(out, tlv.n, 4);
	put(out, tlv.p, tlv.n);
	put_le(out, crc32(0, out->p + start, (uInt)(out->n - start)), 4);
}

/* A block under construction: streams 0 type, 1 mask, 2 blob, 3+k field k. */
struct blk {
	struct buf st[67];
	unsigned nst;
	uint32_t nrec;
};

struct field {
	unsigned k;
	uint64_t v;
};

static void rec(struct blk *b, uint64_t type, const struct field *f, unsigned nf,
		const char *blob, size_t bloblen)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < nf; i++)
		mask |= 1ull << f[i].k;
	put_var(&b->st[0], type);
	put_var(&b->st[1], mask);
	/* fields in ascending index order, as the mask is read */
	for (unsigned k = 0; k < 64; k++)
		for (unsigned i = 0; i < nf; i++)
			if (f[i].k == k) {
				put_var(&b->st[3 + k], f[i].v);
				if (3 + k + 1 > b->nst)
					b->nst = 3 + k + 1;
			}
	if (bloblen)
		put(&b->st[2], blob, bloblen);
	b->nrec++;
}

static void frame(struct buf *out, const char *magic, const uint8_t *payload,
		  uint32_t clen, uint32_t rlen, uint32_t nrec, uint64_t first_t)
{
	size_t h = out->n;

	put(out, magic, 4);
	put_le(out, clen, 4);
	put_le(out, rlen, 4);
	put_le(out, nrec, 4);
	put_le(out, first_t, 8);
	put_le(out, crc32(0, payload, clen), 4);
	put_le(out, crc32(0, out->p + h, 28), 4);
	put(out, payload, clen);
}

static void block(struct buf *out, struct blk *b, uint64_t first_t)
{
	static struct buf raw;
	static uint8_t comp[1 << 17];

	raw.n = 0;
	if (b->nst < 3)
		b->nst = 3;
	put_var(&raw, b->nst);
	for (unsigned i = 0; i < b->nst; i++)
		put_var(&raw, b->st[i].n);
	for (unsigned i = 0; i < b->nst; i++)
		put(&raw, b->st[i].p, b->st[i].n);
	size_t clen = ZSTD_compress(comp, sizeof(comp), raw.p, raw.n, 1);
	CHECK(!ZSTD_isError(clen));
	frame(out, "RBLK", comp, (uint32_t)clen, (uint32_t)raw.n, b->nrec, first_t);
	memset(b, 0, sizeof(*b));
}

struct totals {
	uint64_t flags, blocks, t_last, drops;
	uint64_t types[16];
	unsigned ntypes;
	uint64_t sys[RIOT_SYS_COUNT + 4];
	unsigned nsys;
	bool future_bytes;
	unsigned minor;		/* from 3: end sections before future bytes */
};

static void end(struct buf *out, const struct totals *t)
{
	struct buf p = { .n = 0 };

	put_var(&p, t->flags);
	put_var(&p, t->blocks);
	put_var(&p, t->t_last);
	put_var(&p, t->drops);
	put_var(&p, t->ntypes);
	for (unsigned i = 0; i < t->ntypes; i++)
		put_var(&p, t->types[i]);
	put_var(&p, t->nsys);
	for (unsigned i = 0; i < t->nsys; i++)
		put_var(&p, t->sys[i]);
	if (t->minor >= 3) {	/* a key no riot knows, then a devices section */
		put_var(&p, 2);
		put(&p, "\xc8\x01\x03" "abc", 6);
		put(&p, "\x01\x02" "xy", 4);
	}
	if (t->future_bytes)
		put(&p, "\x05\x06\x07", 3);
	frame(out, "REND", p.p, (uint32_t)p.n, (uint32_t)p.n, 0, 0);
}

struct result {
	bool opened;
	int open_errno;
	char err[256];
	struct riot_rec recs[16];
	const char *paths[16];	/* copies of sc.path */
	unsigned n;
	int rc;
	bool complete;
	char why[256];
	struct riot_log_totals totals;
	bool have_totals;
	char host[16];
};

static char path_copies[16][64];

static struct result *read_all(const struct buf *b)
{
	static struct result res;
	struct riot_reader *r;

	memset(&res, 0, sizeof(res));
	r = riot_reader_open_mem(b->p, b->n, res.err, sizeof(res.err));
	if (!r) {
		res.open_errno = errno;
		return &res;
	}
	res.opened = true;
	snprintf(res.host, sizeof(res.host), "%s", riot_reader_header(r)->host);
	while (res.n < 16 && (res.rc = riot_reader_next(r, &res.recs[res.n])) == 1) {
		struct riot_rec *x = &res.recs[res.n];
		const char *s = x->type == RIOT_REC_SYSCALL ? x->sc.path.s :
				x->type == RIOT_REC_STRING ? x->string.str.s : NULL;
		if (s) {	/* valid only until the next call: keep a copy */
			snprintf(path_copies[res.n], 64, "%s", s);
			res.paths[res.n] = path_copies[res.n];
		}
		res.n++;
	}
	res.complete = riot_reader_complete(r);
	const char *why = res.rc < 0 ? riot_reader_error(r) : riot_reader_incomplete_reason(r);
	snprintf(res.why, sizeof(res.why), "%s", why ? why : "");
	if (riot_reader_totals(r)) {
		res.totals = *riot_reader_totals(r);
		res.have_totals = true;
	}
	riot_reader_close(r);
	return &res;
}

static void newer_major(void)
{
	static struct buf b;
	char want[] = "log format 3.0 is newer than this riot reads (1.x to 2.x)";

	b.n = 0;
	header(&b, 3, 0);
	struct result *res = read_all(&b);
	CHECK(!res->opened);
	CHECK_EQ(res->open_errno, EPROTONOSUPPORT);
	CHECK_STR(res->err, want);
	/* refused on the version even if the rest is unreadable */
	b.n = 16;
	b.p[8] = 7;
	res = read_all(&b);
	CHECK_EQ(res->open_errno, EPROTONOSUPPORT);
	CHECK_STR(res->err, "log format 7.0 is newer than this riot reads (1.x to 2.x)");
	b.n = 0;
	header(&b, 0, 9);
	res = read_all(&b);
	CHECK_EQ(res->open_errno, EPROTONOSUPPORT);
	CHECK_STR(res->err, "log format 0.9 is not one this riot reads (1.x to 2.x)");
}

/* The minor-version log every case below starts from. */
static struct totals minor_log(struct buf *out, bool unknown_bits, unsigned minor)
{
	static struct blk b;
	struct totals t = { .flags = 1, .blocks = 1, .ntypes = 10, .nsys = RIOT_SYS_COUNT + 2,
			    .future_bytes = true, .minor = minor };

	out->n = 0;
	header(out, 1, minor);
	if (minor >= 2) {	/* the block sequence record: block 0 */
		rec(&b, 7, (struct field[]){ { 3, 0 } }, 1, NULL, 0);
		t.types[7] = 1;
	}
	/* t: first_t 1000; each thread's slot starts at the previous end */
	rec(&b, RIOT_REC_STRING, (struct field[]){ { 0, 7 } }, 1, "/data/x", 7);
	struct field open[] = { { 1, zz(10) }, { 2, 5 }, { 3, RIOT_SYS_openat }, { 4, 50 },
				{ 5, 0 }, { 6, zz(3) }, { 9, zz(-100) }, { 11, 0 },
				{ 40, 999 }, { 63, 1 } };
	rec(&b, RIOT_REC_SYSCALL, open, unknown_bits ? 10 : 8, NULL, 0);
	struct field future[] = { { 0, 4 }, { 1, zz(1) }, { 4, 77 }, { 33, 123456 } };
	rec(&b, 9, future, 4, "\x01\x02\x03\x04", 4);
	struct field drop[] = { { 1, zz(4) }, { 2, 10 }, { 3, 2 }, { 15, 17 }, { 30, 5 } };
	rec(&b, RIOT_REC_DROP, drop, unknown_bits ? 5 : 4, NULL, 0);
	struct field close_[] = { { 1, zz(100) }, { 2, 7 }, { 3, RIOT_SYS_close }, { 4, 50 },
				  { 5, 0 }, { 6, 0 }, { 7, zz(3) } };
	rec(&b, RIOT_REC_SYSCALL, close_, 7, NULL, 0);
	block(out, &b, 1000);
	t.types[RIOT_REC_STRING] = 1;
	t.types[RIOT_REC_SYSCALL] = 2;
	t.types[RIOT_REC_DROP] = 1;
	t.types[9] = 1;
	t.sys[RIOT_SYS_openat] = 1;
	t.sys[RIOT_SYS_close] = 1;
	t.drops = 17;
	t.t_last = 1122;
	return t;
}

static struct totals future_log(struct buf *out, bool unknown_bits)
{
	return minor_log(out, unknown_bits, 7);
}

/* 1.0 and 1.1 logs have no block sequence records and read as before. */
static void minor_zero(void)
{
	static struct buf b;
	for (unsigned minor = 0; minor <= 1; minor++) {
		struct totals t = minor_log(&b, true, minor);

		end(&b, &t);
		struct result *res = read_all(&b);
		CHECK_EQ(res->rc, 0);
		CHECK(res->complete);
		CHECK_EQ(res->n, 5);
		CHECK_EQ(res->recs[1].type, RIOT_REC_SYSCALL);
	}
}

/* A 1.2 log of two blocks: each opens with its index. */
static void two_blocks(struct buf *out, uint64_t seq0, uint64_t seq1, size_t *off1)
{
	static struct blk k;

	out->n = 0;
	header(out, 1, 2);
	rec(&k, 7, (struct field[]){ { 3, seq0 } }, 1, NULL, 0);
	rec(&k, RIOT_REC_PROC, (struct field[]){ { 1, 0 }, { 3, 3 }, { 4, 50 } }, 3, NULL, 0);
	block(out, &k, 1000);
	*off1 = out->n;
	rec(&k, 7, (struct field[]){ { 3, seq1 } }, 1, NULL, 0);
	rec(&k, RIOT_REC_PROC, (struct field[]){ { 1, 0 }, { 3, 3 }, { 4, 51 } }, 3, NULL, 0);
	block(out, &k, 2000);
}

/* Blocks swapped, copied or without their sequence record are refused;
 * a block claiming more records than the cap is refused before decoding. */
static void block_order(void)
{
	static struct buf b, c;
	struct result *res;
	size_t off1;
	char want[256];

	two_blocks(&b, 0, 1, &off1);
	res = read_all(&b);
	CHECK_EQ(res->rc, 0);
	CHECK_EQ(res->n, 2);
	CHECK_EQ(res->recs[0].type, RIOT_REC_PROC);
	CHECK_U64(res->recs[1].proc.tid, 51);

	/* the same two blocks, the second moved before the first */
	c.n = 0;
	{
		size_t hdr = 16 + (b.p[12] | b.p[13] << 8) + 4;
		put(&c, b.p, hdr);
		put(&c, b.p + off1, b.n - off1);
		put(&c, b.p + hdr, off1 - hdr);
		snprintf(want, sizeof(want), "block 0 at byte %zu: holds block 1 "
			 "(blocks moved or reordered)", hdr);
	}
	res = read_all(&c);
	CHECK_EQ(res->rc, -EBADMSG);
	CHECK_EQ(res->n, 0);
	CHECK_STR(res->why, want);

	/* the first block twice */
	two_blocks(&b, 0, 0, &off1);
	res = read_all(&b);
	snprintf(want, sizeof(want), "block 1 at byte %zu: holds block 0 "
		 "(blocks moved or reordered)", off1);
	CHECK_EQ(res->rc, -EBADMSG);
	CHECK_EQ(res->n, 1);
	CHECK_STR(res->why, want);
}

static void no_seq(struct blk *k)
{
	rec(k, RIOT_REC_PROC, (struct field[]){ { 1, 0 }, { 3, 3 }, { 4, 50 } }, 3, NULL, 0);
}

static void too_many_records(void)
{
	static struct buf b;
	static uint8_t raw[70000 + 8];
	uint8_t comp[4096];
	size_t clen;
	char want[256];

	/* 70000 records of an unknown type with no fields: 3 bytes each */
	b.n = 0;
	header(&b, 1, 0);
	size_t off = b.n;
	memset(raw, 0, sizeof(raw));
	clen = ZSTD_compress(comp, sizeof(comp), raw, sizeof(raw), 19);
	CHECK(!ZSTD_isError(clen));
	frame(&b, "RBLK", comp, (uint32_t)clen, (uint32_t)sizeof(raw), 70000, 0);
	struct result *res = read_all(&b);
	snprintf(want, sizeof(want), "block 0 at byte %zu: impossible lengths (compressed %zu, "
		 "raw %zu, records 70000)", off, clen, sizeof(raw));
	CHECK_EQ(res->rc, -EBADMSG);
	CHECK_STR(res->why, want);
}

static void newer_minor(void)
{
	static struct buf b;
	struct totals t = future_log(&b, true);

	end(&b, &t);
	struct result *res = read_all(&b);
	CHECK(res->opened);
	CHECK_STR(res->host, "hal9");
	CHECK_EQ(res->rc, 0);
	CHECK(res->complete);
	CHECK_STR(res->why, "");
	CHECK_EQ(res->n, 5);
	CHECK_EQ(res->recs[0].type, RIOT_REC_STRING);
	CHECK_STR(res->paths[0], "/data/x");
	const struct riot_syscall *o = &res->recs[1].sc;
	CHECK_EQ(res->recs[1].type, RIOT_REC_SYSCALL);
	CHECK_EQ(o->sys, RIOT_SYS_openat);
	CHECK_U64(o->t, 1010);
	CHECK_U64(o->dur, 5);
	CHECK_U64(o->pid, 50);
	CHECK_U64(o->tid, 50);
	CHECK_EQ(o->ret, 3);
	CHECK_U64(o->has, RIOT_HAS_DIRFD | RIOT_HAS_PATH);
	CHECK_EQ(o->dirfd, -100);
	CHECK_STR(res->paths[1], "/data/x");
	CHECK_EQ(res->recs[2].type, 9);
	CHECK_EQ(res->recs[3].type, RIOT_REC_DROP);
	CHECK_U64(res->recs[3].drop.t_first, 1020);
	CHECK_U64(res->recs[3].drop.t_last, 1030);
	CHECK_U64(res->recs[3].drop.cpu, 2);
	CHECK_U64(res->recs[3].drop.count, 17);
	const struct riot_syscall *c = &res->recs[4].sc;
	CHECK_EQ(c->sys, RIOT_SYS_close);
	CHECK_U64(c->t, 1115);
	CHECK_U64(c->pid, 50);
	CHECK_EQ(c->fd, 3);
	CHECK_EQ(c->ret, 0);
	CHECK_U64(c->has, RIOT_HAS_FD);
	CHECK(res->have_totals);
	CHECK_U64(res->totals.records[RIOT_REC_SYSCALL], 2);
	CHECK_U64(res->totals.syscalls[RIOT_SYS_close], 1);
	CHECK_U64(res->totals.t_last, 1122);
	CHECK_U64(res->totals.drops, 17);
}

/* Format 2: the varints rec() put in the streams of fields 1 and 2 become
 * plane streams (FORMAT.md, "Plane streams"); extra: bytes appended. */
static void to_planes(struct blk *b, const char *extra, size_t nextra)
{
	for (unsigned k = 1; k <= 2; k++) {
		struct buf *st = &b->st[3 + k], len = { .n = 0 }, pl[8];
		uint64_t vals[64];
		unsigned n = 0;

		for (size_t i = 0; i < st->n; n++) {	/* the varints back */
			uint64_t v = 0;
			for (unsigned sh = 0;; sh += 7) {
				uint8_t c = st->p[i++];
				v |= (uint64_t)(c & 0x7f) << sh;
				if (!(c & 0x80))
					break;
			}
			vals[n] = v;
		}
		memset(pl, 0, sizeof(pl));
		for (unsigned i = 0; i < n; i++) {
			unsigned bytes = 0;
			while (bytes < 8 && vals[i] >> (8 * bytes))
				bytes++;
			len.p[len.n++] = (uint8_t)bytes;
			for (unsigned j = 0; j < bytes; j++)
				pl[j].p[pl[j].n++] = (uint8_t)(vals[i] >> (8 * j));
		}
		st->n = 0;
		put_var(st, n);
		put(st, len.p, len.n);
		for (unsigned j = 0; j < 8; j++)
			put(st, pl[j].p, pl[j].n);
		if (k == 2 && nextra)
			put(st, extra, nextra);
		if (b->nst < 3 + k + 1)
			b->nst = 3 + k + 1;
	}
}

/* A 2.0 log: times and durations of 0 to 8 bytes read back exactly. */
static void major_two(void)
{
	static struct buf b;
	static struct blk k;
	struct totals t = { .flags = 1, .blocks = 1, .ntypes = 8, .nsys = RIOT_SYS_COUNT,
			    .minor = 3 };

	b.n = 0;
	header(&b, 2, 0);
	rec(&k, 7, (struct field[]){ { 3, 0 } }, 1, NULL, 0);
	/* thread 50 from first_t 1000: t 1000 + 300, dur 0x1234 */
	rec(&k, RIOT_REC_SYSCALL, (struct field[]){ { 1, zz(300) }, { 2, 0x1234 },
		{ 3, RIOT_SYS_close }, { 4, 50 }, { 5, 0 }, { 6, 0 }, { 7, zz(3) } }, 7, NULL, 0);
	/* the same thread, right after it (delta 0), a 7-byte duration */
	rec(&k, RIOT_REC_SYSCALL, (struct field[]){ { 1, 0 }, { 2, 0x01020304050607ull },
		{ 3, RIOT_SYS_close }, { 4, 50 }, { 5, 0 }, { 6, 0 }, { 7, zz(1) } }, 7, NULL, 0);
	/* another thread, from the previous end: 2 ns earlier, no duration */
	rec(&k, RIOT_REC_PROC, (struct field[]){ { 1, zz(-2) }, { 3, 3 }, { 4, 51 } }, 3,
	    NULL, 0);
	to_planes(&k, NULL, 0);
	block(&b, &k, 1000);
	t.types[7] = 1;
	t.types[RIOT_REC_SYSCALL] = 2;
	t.types[RIOT_REC_PROC] = 1;
	t.sys[RIOT_SYS_close] = 2;
	uint64_t end1 = 1300 + 0x1234, end2 = end1 + 0x01020304050607ull;
	t.t_last = end2;
	end(&b, &t);
	struct result *res = read_all(&b);
	CHECK_EQ(res->rc, 0);
	CHECK(res->complete);
	CHECK_EQ(res->n, 3);
	CHECK_U64(res->recs[0].sc.t, 1300);
	CHECK_U64(res->recs[0].sc.dur, 0x1234);
	CHECK_U64(res->recs[1].sc.t, end1);
	CHECK_U64(res->recs[1].sc.dur, 0x01020304050607ull);
	CHECK_U64(res->recs[1].sc.fd, 4);
	CHECK_U64(res->recs[2].proc.t, end2 - 2);
	CHECK_U64(res->recs[2].proc.tid, 51);
}

/* One malformed block after a valid header of format major.minor: the
 * exact error. */
static void bad_block_in(unsigned major, unsigned minor, const char *what,
			 void (*fill)(struct blk *), const char *want)
{
	static struct buf b;
	static struct blk k;
	char full[256];

	b.n = 0;
	header(&b, major, minor);
	size_t off = b.n;
	fill(&k);
	block(&b, &k, 0);
	struct result *res = read_all(&b);
	snprintf(full, sizeof(full), "block 0 at byte %zu: %s", off, want);
	CHECK_EQ(res->rc, -EBADMSG);
	if (strcmp(res->why, full))
		fprintf(stderr, "case %s\n", what);
	CHECK_STR(res->why, full);
}

static void bad_block_of(unsigned minor, const char *what, void (*fill)(struct blk *),
			 const char *want)
{
	bad_block_in(1, minor, what, fill, want);
}

static void bad_block(const char *what, void (*fill)(struct blk *), const char *want)
{
	bad_block_of(0, what, fill, want);
}

/* Format 2 blocks: the sequence record, then one timed record. */
static void two_rec(struct blk *k, uint64_t dur)
{
	rec(k, 7, (struct field[]){ { 3, 0 } }, 1, NULL, 0);
	rec(k, RIOT_REC_PROC, (struct field[]){ { 1, zz(5) }, { 2, dur }, { 3, 3 }, { 4, 9 } },
	    4, NULL, 0);
}

static void planes_extra(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, "\x01", 1);
}

static void planes_short(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, NULL, 0);
	k->st[3 + 2].n--;	/* the plane 1 byte */
}

static void planes_nine(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, NULL, 0);
	k->st[3 + 2].p[1] = 9;	/* the value's byte count */
}

static void planes_count(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, NULL, 0);
	k->st[3 + 2].p[0] = 40;	/* more values than the stream has bytes */
}

static void planes_left(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, NULL, 0);
	/* two values where one record reads one: count 2, counts 2 and 0 */
	k->st[3 + 2].n = 0;
	put(&k->st[3 + 2], "\x02\x02\x00\x00\x03", 5);
}

static void planes_none(struct blk *k)
{
	two_rec(k, 0x300);
	to_planes(k, NULL, 0);
	k->st[3 + 2].n = 0;
	put(&k->st[3 + 2], "\x00", 1);	/* no values: the record's overruns */
}

static void plane_cases(void)
{
	bad_block_in(2, 0, "planes extra", planes_extra,
		     "1 bytes left in the planes of field 2");
	bad_block_in(2, 0, "planes short", planes_short,
		     "the planes of field 2 run past their stream");
	bad_block_in(2, 0, "planes nine", planes_nine,
		     "a value of 9 bytes in the planes of field 2");
	bad_block_in(2, 0, "planes count", planes_count,
		     "bad value count in the planes of field 2");
	bad_block_in(2, 0, "planes left", planes_left,
		     "1 values left in the planes of field 2 after the last record");
	bad_block_in(2, 0, "planes none", planes_none, "field 2 stream overrun");
}

static void undefined_string(struct blk *k)
{
	rec(k, RIOT_REC_SYSCALL, (struct field[]){ { 1, 0 }, { 11, 5 } }, 2, NULL, 0);
}

static void field_overrun(struct blk *k)
{
	rec(k, RIOT_REC_SYSCALL, (struct field[]){ { 1, 0 }, { 20, 1 } }, 2, NULL, 0);
	k->st[3 + 20].n = 0;
}

static void left_over(struct blk *k)
{
	rec(k, RIOT_REC_PROC, (struct field[]){ { 1, 0 } }, 1, NULL, 0);
	put_var(&k->st[3 + 5], 1);
	k->nst = 3 + 6;
}

static void type_zero(struct blk *k)
{
	rec(k, 0, (struct field[]){ { 1, 0 } }, 1, NULL, 0);
}

static void nul_in_string(struct blk *k)
{
	rec(k, RIOT_REC_STRING, (struct field[]){ { 0, 3 } }, 1, "a\0b", 3);
}

static void tid_too_big(struct blk *k)
{
	rec(k, RIOT_REC_SYSCALL, (struct field[]){ { 1, 0 }, { 4, 1ull << 33 } }, 2, NULL, 0);
}

static void blob_overrun(struct blk *k)
{
	rec(k, 9, (struct field[]){ { 0, 100 } }, 1, "abc", 3);
}

static void varint_too_long(struct blk *k)
{
	rec(k, RIOT_REC_SYSCALL, (struct field[]){ { 1, 0 } }, 1, NULL, 0);
	k->st[3 + 1].n = 0;
	put(&k->st[3 + 1], "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10);
}

static void end_cases(void)
{
	static struct buf b;
	struct totals t = future_log(&b, false);

	t.sys[RIOT_SYS_close] = 2;
	size_t off = b.n;
	end(&b, &t);
	struct result *res = read_all(&b);
	char want[256];
	snprintf(want, sizeof(want), "block 1 at byte %zu: end record: syscall counts disagree with the log", off);
	CHECK_EQ(res->rc, -EBADMSG);
	CHECK_EQ(res->n, 5);
	CHECK_STR(res->why, want);
	CHECK(!res->complete);
	CHECK(!res->have_totals);

	t = future_log(&b, false);
	t.flags = 0;
	end(&b, &t);
	res = read_all(&b);
	CHECK_EQ(res->rc, 0);
	CHECK(!res->complete);
	CHECK_STR(res->why, "the writer did not finish cleanly");
	CHECK(!res->have_totals);
}

int main(void)
{
	newer_major();
	newer_minor();
	bad_block("undefined string", undefined_string, "string id 5 is not defined");
	bad_block("field overrun", field_overrun, "field 20 stream overrun");
	bad_block("left over", left_over, "1 bytes left in stream 8 after the last record");
	bad_block("type zero", type_zero, "bad record type");
	bad_block("nul", nul_in_string, "string 0 holds a NUL byte");
	bad_block("tid", tid_too_big, "syscall id or tid out of range");
	bad_block("blob", blob_overrun, "blob stream overrun");
	bad_block("varint", varint_too_long, "field 1 stream overrun");
	end_cases();
	minor_zero();
	block_order();
	bad_block_of(2, "no sequence record", no_seq,
		     "no block sequence record (blocks moved or reordered)");
	too_many_records();
	major_two();
	plane_cases();
	return unit_done();
}
