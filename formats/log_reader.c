/* formats/log_reader.c: streams a .riot log (FORMAT.md) one block at a
 * time. Everything read is hostile: every length is checked against a cap
 * and against what is left before anything is allocated or read. */
#include "formats/log.h"
#include "formats/log_codec.h"
#include "lib/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define ERR_LEN 256

struct rd_str {
	uint32_t off, len;	/* in the arena */
	bool truncated;
};

/* A plane stream being read: the byte counts of its values, and where
 * each plane's next byte is. */
struct plane_cursor {
	struct cursor len;
	const uint8_t *b[PLANE_BYTES];
};

struct riot_reader {
	/* source: a file, or a caller's buffer */
	int fd;
	const uint8_t *mem;
	uint64_t size;		/* file size */
	uint64_t pos;		/* next byte to read */

	struct riot_log_header h;
	ZSTD_DCtx *dz;
	uint8_t *comp, *raw;
	size_t comp_cap, raw_cap;

	/* the current block */
	uint64_t blk_no;	/* index of the current (or next) block */
	uint64_t blk_off;	/* its byte offset */
	uint32_t blk_left;	/* records not yet returned */
	bool in_block;
	bool blk_first;		/* the next record is the block's first */
	struct cursor st[STREAMS_MAX];
	unsigned nst;
	struct plane_cursor pl[PLANE_FIELDS];	/* format 2: F_TIME, F_DUR */
	struct log_pred pred;
	char *arena;		/* NUL-terminated strings of the block */
	size_t arena_cap, arena_len;
	struct rd_str *strs;
	uint32_t nstr, strs_cap;

	/* what was read, for the end-record cross-check */
	uint64_t blocks;
	uint64_t types[LOG_TYPES_MAX];
	uint64_t syscalls[RIOT_SYS_COUNT];
	uint64_t syscalls_other;
	uint64_t drops;
	uint64_t t_last;

	int err;
	bool done, complete;
	struct riot_log_totals totals;
	uint8_t *sections[RIOT_END_SECTIONS_MAX];	/* by key - 1 */
	size_t section_len[RIOT_END_SECTIONS_MAX];
	char incomplete[512];
	char errmsg[ERR_LEN];

	/* several segments read as one log (riot_reader_open_segments) */
	struct riot_reader *cur;	/* the segment being read, or NULL */
	const char *const *seg_paths;
	unsigned nseg, seg_i;
	uint64_t seg_skip;	/* restated records of cur still to skip */
	uint64_t skipped[RIOT_REC_TYPE_MAX];
	uint64_t seg_blocks;	/* blocks of the segments read before cur */
};

static int fail(struct riot_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct riot_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	r->err = err;
	return err;
}

#define BLK_FAIL(r, fmt, ...) \
	fail(r, -EBADMSG, "block %" PRIu64 " at byte %" PRIu64 ": " fmt, \
	     (r)->blk_no, (r)->blk_off, ##__VA_ARGS__)

static void set_incomplete(struct riot_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_incomplete(struct riot_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->incomplete, sizeof(r->incomplete), fmt, ap);
	va_end(ap);
	r->done = true;
}

/* Up to n bytes at the current position: the count read (short only at the
 * end of the log), or -errno. */
static ssize_t src_read(struct riot_reader *r, void *buf, size_t n)
{
	size_t got = 0;

	if (r->mem) {
		uint64_t left = r->size - r->pos;
		got = n < left ? n : (size_t)left;
		memcpy(buf, r->mem + r->pos, got);
	} else {
		while (got < n) {
			ssize_t k = read(r->fd, (uint8_t *)buf + got, n - got);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return fail(r, -errno, "read error at byte %" PRIu64 ": %s",
					    r->pos + got, strerror(errno));
			if (k == 0)
				break;
			got += (size_t)k;
		}
	}
	r->pos += got;
	return (ssize_t)got;
}

/* A byte buffer of exactly need bytes at least (no doubling: it holds the
 * largest block seen). */
static int reserve(void *bufp, size_t *cap, size_t need)
{
	void *p;

	if (*cap >= need)
		return 0;
	p = realloc(*(void **)bufp, need);
	if (!p)
		return -ENOMEM;
	*(void **)bufp = p;
	*cap = need;
	return 0;
}

/* ---- header ---- */

static int tlv_string(char **dst, const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		return -ENOMEM;
	memcpy(s, p, n);
	s[n] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

static char **tlv_slot(struct riot_reader *r, uint64_t key)
{
	switch (key) {
	case TLV_HOST: return (char **)&r->h.host;
	case TLV_KERNEL: return (char **)&r->h.kernel;
	case TLV_ARCH: return (char **)&r->h.arch;
	case TLV_RIOT_VERSION: return (char **)&r->h.riot_version;
	case TLV_CMDLINE: return (char **)&r->h.cmdline;
	case TLV_OPTIONS: return (char **)&r->h.options;
	case TLV_TARGET: return (char **)&r->h.target;
	case TLV_CAPTURE_ID: return (char **)&r->h.capture_id;
	case TLV_FALLBACKS: return (char **)&r->h.fallbacks;
	}
	return NULL;
}

/* The header's number field of key (boot_to_wall_ns, zigzag, aside). */
static uint64_t *header_number(struct riot_reader *r, uint64_t key)
{
	switch (key) {
	case TLV_START_T: return &r->h.start_t;
	case TLV_SEGMENT: return &r->h.segment;
	case TLV_RESTATED: return &r->h.restated;
	case TLV_PROBE_NS: return &r->h.probe_ns;
	case TLV_PROBE_CALLS: return &r->h.probe_calls;
	case TLV_PROBE_UNTRACED: return &r->h.probe_untraced_ns;
	case TLV_PROBE_RECORDED: return &r->h.probe_recorded_ns;
	}
	return NULL;
}

static int tlv_number(const uint8_t *p, size_t n, uint64_t *v)
{
	struct cursor c = { p, p + n };

	if (get_varint(&c, v) || c.p != c.end)
		return -EBADMSG;
	return 0;
}

static int header_parse(struct riot_reader *r, const uint8_t *p, size_t n)
{
	struct cursor c = { p, p + n };

	while (c.p < c.end) {
		uint64_t key, len, v;
		if (get_varint(&c, &key) || get_varint(&c, &len) ||
		    len > (uint64_t)(c.end - c.p))
			return fail(r, -EBADMSG, "header at byte 0: bad field at byte %zu",
				    LOG_HDR_FIXED + (size_t)(c.p - p));
		char **slot = tlv_slot(r, key);
		if (slot && tlv_string(slot, c.p, (size_t)len))
			return fail(r, -ENOMEM, "out of memory");
		uint64_t *num = header_number(r, key);

		if (key == TLV_BOOT_TO_WALL || num) {
			if (tlv_number(c.p, (size_t)len, &v))
				return fail(r, -EBADMSG, "header at byte 0: bad number in field %" PRIu64, key);
			if (key == TLV_BOOT_TO_WALL)
				r->h.boot_to_wall_ns = zz_dec(v);
			else
				*num = v;
		}
		c.p += len;	/* unknown keys: skipped (newer minor) */
	}
	return 0;
}

static int header_read(struct riot_reader *r)
{
	uint8_t fixed[LOG_HDR_FIXED];
	ssize_t got = src_read(r, fixed, sizeof(fixed));

	if (got < 0)
		return (int)got;
	if (got == 0)
		return fail(r, -ENODATA, "empty file, not a riot log");
	if (got < LOG_MAGIC_LEN || memcmp(fixed, LOG_MAGIC, LOG_MAGIC_LEN) != 0)
		return fail(r, -EBADMSG, "not a riot log (bad magic at byte 0)");
	if (got < LOG_HDR_FIXED)
		return fail(r, -EBADMSG, "header truncated at byte %zd", got);
	r->h.major = get_le16(fixed + 8);
	r->h.minor = get_le16(fixed + 10);
	if (r->h.major > RIOT_FMT_MAJOR)
		return fail(r, -EPROTONOSUPPORT,
			    "log format %u.%u is newer than this riot reads (%d.x to %d.x)",
			    r->h.major, r->h.minor, RIOT_FMT_MAJOR_OLDEST, RIOT_FMT_MAJOR);
	if (r->h.major < RIOT_FMT_MAJOR_OLDEST)
		return fail(r, -EPROTONOSUPPORT,
			    "log format %u.%u is not one this riot reads (%d.x to %d.x)",
			    r->h.major, r->h.minor, RIOT_FMT_MAJOR_OLDEST, RIOT_FMT_MAJOR);
	uint32_t len = get_le32(fixed + 12);
	if (len > LOG_HDR_PAYLOAD_MAX)
		return fail(r, -EBADMSG, "header at byte 0: impossible length %" PRIu32, len);
	uint8_t *buf = malloc(LOG_HDR_FIXED + (size_t)len + 4);
	if (!buf)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(buf, fixed, LOG_HDR_FIXED);
	int rc = 0;
	got = src_read(r, buf + LOG_HDR_FIXED, (size_t)len + 4);
	if (got < 0)
		rc = (int)got;
	else if ((size_t)got < (size_t)len + 4)
		rc = fail(r, -EBADMSG, "header truncated at byte %" PRIu64, r->pos);
	else if (get_le32(buf + LOG_HDR_FIXED + len) !=
		 (uint32_t)crc32(0, buf, LOG_HDR_FIXED + len))
		rc = fail(r, -EBADMSG, "header at byte 0: checksum mismatch");
	else
		rc = header_parse(r, buf + LOG_HDR_FIXED, len);
	free(buf);
	return rc;
}

/* ---- blocks ---- */

static int planes_open(struct riot_reader *r, unsigned k);

/* Stream directory: count, lengths, then the streams back to back. */
static int block_streams(struct riot_reader *r, size_t raw_len)
{
	struct cursor c = { r->raw, r->raw + raw_len };
	uint64_t n, len[STREAMS_MAX], total = 0;

	if (get_varint(&c, &n) || n < STREAM_FIELD0 || n > STREAMS_MAX)
		return BLK_FAIL(r, "bad stream count");
	for (unsigned i = 0; i < n; i++) {
		if (get_varint(&c, &len[i]) || len[i] > raw_len)
			return BLK_FAIL(r, "bad length of stream %u", i);
		total += len[i];
	}
	if (total != (uint64_t)(c.end - c.p))
		return BLK_FAIL(r, "stream lengths do not add up to the block");
	for (unsigned i = 0; i < n; i++) {
		r->st[i].p = c.p;
		r->st[i].end = c.p + len[i];
		c.p += len[i];
	}
	r->nst = (unsigned)n;
	if (r->h.major < FMT_MAJOR_PLANES)
		return 0;
	for (unsigned k = F_TIME; k < F_TIME + PLANE_FIELDS; k++) {
		int rc = planes_open(r, k);
		if (rc)
			return rc;
	}
	return 0;
}

/* Format 2: field k's stream is varint n, n byte counts (0..8), then the
 * planes, plane j holding byte j of each value with more than j bytes.
 * The planes' lengths follow from the counts; together they must fill
 * the stream. The stream's cursor is left consumed: the values are read
 * through r->pl. */
static int planes_open(struct riot_reader *r, unsigned k)
{
	struct plane_cursor *pc = &r->pl[k - F_TIME];
	struct cursor *c = &r->st[STREAM_FIELD0 + k];
	uint64_t n, have[PLANE_BYTES + 1] = { 0 };

	memset(pc, 0, sizeof(*pc));
	if (STREAM_FIELD0 + k >= r->nst)
		return 0;	/* no such stream: a record naming the field overruns */
	if (get_varint(c, &n) || n > (uint64_t)(c->end - c->p))
		return BLK_FAIL(r, "bad value count in the planes of field %u", k);
	pc->len = (struct cursor){ c->p, c->p + n };
	for (const uint8_t *p = c->p; p < pc->len.end; p++) {
		if (*p > PLANE_BYTES)
			return BLK_FAIL(r, "a value of %u bytes in the planes of field %u", *p, k);
		have[*p]++;
	}
	const uint8_t *at = pc->len.end;
	uint64_t longer = n - have[0];	/* values with more than j bytes */
	for (unsigned j = 0; j < PLANE_BYTES; j++) {
		if (longer > (uint64_t)(c->end - at))
			return BLK_FAIL(r, "the planes of field %u run past their stream", k);
		pc->b[j] = at;
		at += longer;
		longer -= have[j + 1];
	}
	if (at != c->end)
		return BLK_FAIL(r, "%zu bytes left in the planes of field %u",
				(size_t)(c->end - at), k);
	c->p = c->end;
	return 0;
}

/* The next value of a plane stream. */
static int plane_get(struct plane_cursor *pc, uint64_t *out)
{
	if (pc->len.p >= pc->len.end)
		return -EBADMSG;
	unsigned n = *pc->len.p++;
	uint64_t v = 0;

	for (unsigned j = 0; j < n; j++)
		v |= (uint64_t)*pc->b[j]++ << (8 * j);
	*out = v;
	return 0;
}

/* Everything a block's records point into, sized from the checked block. */
static int block_prepare(struct riot_reader *r, uint32_t nrec, uint64_t first_t)
{
	size_t blob = (size_t)(r->st[STREAM_BLOB].end - r->st[STREAM_BLOB].p);

	if (reserve(&r->arena, &r->arena_cap, blob + nrec + 1))
		return fail(r, -ENOMEM, "out of memory");
	r->arena_len = 0;
	r->nstr = 0;
	r->blk_left = nrec;
	r->in_block = true;
	r->blk_first = true;
	pred_reset(&r->pred, first_t);
	return 0;
}

static int block_load(struct riot_reader *r, const uint8_t *h)
{
	uint32_t clen = get_le32(h + 4), rlen = get_le32(h + 8);
	uint32_t nrec = get_le32(h + 12);
	uint64_t first_t = get_le64(h + 16);

	if (rlen > BLK_RAW_MAX || clen > ZSTD_compressBound(BLK_RAW_MAX) || nrec > rlen ||
	    nrec > BLK_REC_MAX)
		return BLK_FAIL(r, "impossible lengths (compressed %" PRIu32
				", raw %" PRIu32 ", records %" PRIu32 ")", clen, rlen, nrec);
	if (clen > r->size - r->pos) {
		set_incomplete(r, "ends inside block %" PRIu64 " at byte %" PRIu64,
			       r->blk_no, r->size);
		return 0;
	}
	if (reserve(&r->comp, &r->comp_cap, clen ? clen : 1) ||
	    reserve(&r->raw, &r->raw_cap, rlen ? rlen : 1))
		return fail(r, -ENOMEM, "out of memory");
	ssize_t got = src_read(r, r->comp, clen);
	if (got < 0)
		return (int)got;
	if ((size_t)got < clen) {
		set_incomplete(r, "ends inside block %" PRIu64 " at byte %" PRIu64,
			       r->blk_no, r->pos);
		return 0;
	}
	if (get_le32(h + 24) != (uint32_t)crc32(0, r->comp, clen))
		return BLK_FAIL(r, "payload checksum mismatch");
	size_t n = ZSTD_decompressDCtx(r->dz, r->raw, rlen, r->comp, clen);
	if (ZSTD_isError(n))
		return BLK_FAIL(r, "zstd: %s", ZSTD_getErrorName(n));
	if (n != rlen)
		return BLK_FAIL(r, "payload is %zu bytes, header says %" PRIu32, n, rlen);
	int rc = block_streams(r, rlen);
	if (!rc)
		rc = block_prepare(r, nrec, first_t);
	return rc ? rc : 1;
}

/* A block is done when its last record is read: every stream must be used
 * up exactly. */
static int block_finish(struct riot_reader *r)
{
	for (unsigned i = 0; i < r->nst; i++)
		if (r->st[i].p != r->st[i].end)
			return BLK_FAIL(r, "%zu bytes left in stream %u after the last record",
					(size_t)(r->st[i].end - r->st[i].p), i);
	for (unsigned i = 0; i < PLANE_FIELDS; i++)
		if (r->pl[i].len.p != r->pl[i].len.end)
			return BLK_FAIL(r, "%zu values left in the planes of field %u after the last record",
					(size_t)(r->pl[i].len.end - r->pl[i].len.p), F_TIME + i);
	r->in_block = false;
	r->blocks++;
	r->blk_no++;
	return 0;
}

/* ---- end record ---- */

static int end_counts(struct riot_reader *r, struct cursor *c, uint64_t max,
		      uint64_t *known, unsigned nknown, uint64_t *other)
{
	uint64_t n, v;

	if (get_varint(c, &n) || n > max)
		return -EBADMSG;
	for (uint64_t i = 0; i < n; i++) {
		if (get_varint(c, &v))
			return -EBADMSG;
		if (i < nknown)
			known[i] = v;
		else
			*other += v;
	}
	return 0;
}

/* Format 1.3's end sections: kept by key, unknown keys skipped. */
static int end_sections(struct riot_reader *r, struct cursor *c)
{
	uint64_t n, key, len;

	if (get_varint(c, &n) || n > 255)
		return -EBADMSG;
	for (uint64_t i = 0; i < n; i++) {
		if (get_varint(c, &key) || get_varint(c, &len) ||
		    len > (uint64_t)(c->end - c->p) || len > RIOT_END_SECTION_BYTES_MAX)
			return -EBADMSG;
		if (key >= 1 && key <= RIOT_END_SECTIONS_MAX && !r->sections[key - 1]) {
			uint8_t *p = malloc(len ? len : 1);

			if (!p)
				return -ENOMEM;
			memcpy(p, c->p, len);
			r->sections[key - 1] = p;
			r->section_len[key - 1] = len;
		}
		c->p += len;
	}
	return 0;
}

const void *riot_reader_end_section(const struct riot_reader *r, unsigned key, size_t *len)
{
	if (!r->complete || key < 1 || key > RIOT_END_SECTIONS_MAX || !r->sections[key - 1])
		return NULL;
	*len = r->section_len[key - 1];
	return r->sections[key - 1];
}

static int end_check(struct riot_reader *r, const struct riot_log_totals *t,
		     const uint64_t *types, uint64_t sys_other)
{
	const char *what = NULL;

	if (t->blocks != r->blocks)
		what = "block count";
	else if (t->drops != r->drops)
		what = "drop count";
	else if (t->t_last != r->t_last)
		what = "last time";
	else if (sys_other != r->syscalls_other)
		what = "syscall counts";
	for (unsigned i = 0; !what && i < LOG_TYPES_MAX; i++)
		if (types[i] != r->types[i])
			what = "record counts";
	for (unsigned i = 0; !what && i < RIOT_SYS_COUNT; i++)
		if (t->syscalls[i] != r->syscalls[i])
			what = "syscall counts";
	if (what)
		return BLK_FAIL(r, "end record: %s disagree with the log", what);
	return 0;
}

static int end_parse(struct riot_reader *r, const uint8_t *p, size_t n)
{
	struct cursor c = { p, p + n };
	struct riot_log_totals *t = &r->totals;
	uint64_t flags, types[LOG_TYPES_MAX] = { 0 }, type_other = 0, sys_other = 0;

	memset(t, 0, sizeof(*t));
	if (get_varint(&c, &flags) || get_varint(&c, &t->blocks) ||
	    get_varint(&c, &t->t_last) || get_varint(&c, &t->drops) ||
	    end_counts(r, &c, LOG_TYPES_MAX, types, LOG_TYPES_MAX, &type_other) ||
	    end_counts(r, &c, LOG_SYS_MAX, t->syscalls, RIOT_SYS_COUNT, &sys_other))
		return BLK_FAIL(r, "end record: bad totals");
	if (riot_fmt_has(&r->h, FMT_MINOR_END_SECTIONS) && end_sections(r, &c) < 0)
		return BLK_FAIL(r, "end record: bad sections");
	/* Bytes after these belong to a newer minor version. */
	int rc = end_check(r, t, types, sys_other);
	if (rc)
		return rc;
	memcpy(t->records, types, sizeof(t->records));
	if (!(flags & END_FLAG_CLEAN)) {
		set_incomplete(r, "the writer did not finish cleanly");
		return 0;
	}
	r->complete = true;
	r->done = true;
	return 0;
}

static int trailing_check(struct riot_reader *r)
{
	uint8_t extra;
	ssize_t got = src_read(r, &extra, 1);

	if (got < 0)
		return (int)got;
	if (got > 0) {
		r->complete = false;
		return fail(r, -EBADMSG, "trailing bytes after the end record at byte %" PRIu64,
			    r->pos - 1);
	}
	return 0;
}

/* h: the end record's frame header, checksum already verified. */
static int end_read(struct riot_reader *r, const uint8_t *h)
{
	uint32_t len = get_le32(h + 4);
	int rc;

	if (len > END_PAYLOAD_MAX)
		return BLK_FAIL(r, "end record: impossible length %" PRIu32, len);
	if (len > r->size - r->pos) {
		set_incomplete(r, "ends inside the end record at byte %" PRIu64, r->blk_off);
		return 0;
	}
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return fail(r, -ENOMEM, "out of memory");
	ssize_t got = src_read(r, buf, len);
	if (got < 0)
		rc = (int)got;
	else if ((size_t)got < len) {
		set_incomplete(r, "ends inside the end record at byte %" PRIu64, r->blk_off);
		rc = 0;
	} else if (get_le32(h + 24) != (uint32_t)crc32(0, buf, len))
		rc = BLK_FAIL(r, "end record checksum mismatch");
	else
		rc = end_parse(r, buf, len);
	free(buf);
	if (rc || !r->done)
		return rc;
	return trailing_check(r);
}

/* The next frame: 1 when a block is loaded, 0 at the end, or -errno. Blocks
 * and the end record share the 32-byte frame header. */
static int frame_next(struct riot_reader *r)
{
	uint8_t h[BLK_HDR_SIZE];
	bool is_end;

	r->blk_off = r->pos;
	ssize_t got = src_read(r, h, sizeof(h));
	if (got < 0)
		return (int)got;
	if (got == 0) {
		set_incomplete(r, "ends after block %" PRIu64 " at byte %" PRIu64
			       " without an end record", r->blocks, r->pos);
		return 0;
	}
	size_t cmp = (size_t)got < FRAME_MAGIC_LEN ? (size_t)got : FRAME_MAGIC_LEN;
	is_end = memcmp(h, END_MAGIC, cmp) == 0;
	if (!is_end && memcmp(h, BLK_MAGIC, cmp) != 0)
		return BLK_FAIL(r, "bad magic (not a block or end record)");
	if (got < BLK_HDR_SIZE) {
		if (is_end)
			set_incomplete(r, "ends inside the end record at byte %" PRIu64, r->blk_off);
		else
			set_incomplete(r, "ends inside block %" PRIu64 " at byte %" PRIu64,
				       r->blk_no, r->pos);
		return 0;
	}
	if (get_le32(h + BLK_HDR_CRC_OFF) != (uint32_t)crc32(0, h, BLK_HDR_CRC_OFF))
		return is_end ? BLK_FAIL(r, "end record header checksum mismatch") :
				BLK_FAIL(r, "header checksum mismatch");
	return is_end ? end_read(r, h) : block_load(r, h);
}

/* ---- records ---- */

struct rec_dec {
	uint64_t mask;
	uint64_t v[F_KNOWN];
	const uint8_t *blob;
	uint64_t t, dur;
	struct task_slot *ts;	/* NULL for records outside the time predictor */
};

static int str_define(struct riot_reader *r, const struct rec_dec *d)
{
	size_t len = (size_t)d->v[F_BLOB];

	if (len > STR_MAX)
		return BLK_FAIL(r, "string of %zu bytes", len);
	if (len && memchr(d->blob, '\0', len))
		return BLK_FAIL(r, "string %" PRIu32 " holds a NUL byte", r->nstr);
	if (GROW(r->strs, r->strs_cap, r->nstr + 1, 64))
		return fail(r, -ENOMEM, "out of memory");
	/* The arena holds blob + one NUL per record: it cannot overflow. */
	memcpy(r->arena + r->arena_len, d->blob, len);
	r->arena[r->arena_len + len] = '\0';
	r->strs[r->nstr++] = (struct rd_str){ (uint32_t)r->arena_len, (uint32_t)len,
					      (d->v[F_KIND] & STRING_TRUNCATED) != 0 };
	r->arena_len += len + 1;
	return 0;
}

static struct riot_str str_get(const struct riot_reader *r, uint32_t id)
{
	return (struct riot_str){ r->arena + r->strs[id].off, r->strs[id].truncated };
}

/* A string field: absent leaves *out NULL; an undefined id is corruption. */
static int str_field(struct riot_reader *r, const struct rec_dec *d, unsigned k,
		     struct riot_str *out)
{
	if (!(d->mask & (1ull << k)))
		return 0;
	if (d->v[k] >= r->nstr)
		return BLK_FAIL(r, "string id %" PRIu64 " is not defined", d->v[k]);
	*out = str_get(r, (uint32_t)d->v[k]);
	return 0;
}

/* Range checks: a value that does not fit its field is corruption. */
static bool fits_u32(uint64_t v)
{
	return v <= UINT32_MAX;
}

static bool fits_i32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static int bad_value(struct riot_reader *r, const char *what)
{
	return BLK_FAIL(r, "%s out of range", what);
}

/* base + zigzag delta, as a u32. */
static bool u32_plus(uint32_t base, uint64_t zz, uint32_t *out)
{
	int64_t delta = zz_dec(zz);

	if (delta < -(int64_t)UINT32_MAX || delta > (int64_t)UINT32_MAX)
		return false;
	int64_t v = (int64_t)base + delta;
	if (v < 0 || v > (int64_t)UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool i32_zz(uint64_t zz, int32_t *out)
{
	int64_t v = zz_dec(zz);

	if (!fits_i32(v))
		return false;
	*out = (int32_t)v;
	return true;
}

static int dec_sc_fields(struct riot_reader *r, const struct rec_dec *d,
			 struct riot_syscall *sc)
{
	const uint64_t *v = d->v;
	bool ok = true;

	if (sc->has & RIOT_HAS_FD2)
		ok &= i32_zz(v[F_FD2], &sc->fd2);
	if (sc->has & RIOT_HAS_DIRFD)
		ok &= i32_zz(v[F_DIRFD], &sc->dirfd);
	if (sc->has & RIOT_HAS_DIRFD2)
		ok &= i32_zz(v[F_DIRFD2], &sc->dirfd2);
	ok &= fits_u32(v[F_MODE]) && fits_u32(v[F_CMD]) && fits_u32(v[F_IOVCNT]) &&
	      fits_u32(v[F_UID]) && fits_u32(v[F_GID]) && fits_u32(v[F_FTYPE]) &&
	      v[F_CREATED] <= UINT8_MAX && v[F_PERM] <= 07777;
	if (!ok)
		return bad_value(r, "syscall field");
	sc->off2 = v[F_OFF2];
	sc->flags = v[F_FLAGS];
	sc->mode = (uint32_t)v[F_MODE];
	sc->cmd = (uint32_t)v[F_CMD];
	sc->arg = v[F_ARG];
	sc->iovcnt = (uint32_t)v[F_IOVCNT];
	sc->uid = (uint32_t)v[F_UID];
	sc->gid = (uint32_t)v[F_GID];
	sc->size = v[F_SIZE];
	sc->ftype = (uint32_t)v[F_FTYPE];
	sc->ino = v[F_INO];
	sc->dev = v[F_DEV];
	sc->created = (uint8_t)v[F_CREATED];
	sc->perm = (uint32_t)v[F_PERM];
	sc->ctx = v[F_CTX];
	return 0;
}

/* pid, fd, count, ret and off: predictions plus the stored errors, in the
 * writer's order (log_writer.c, enc_predicted()). */
static int dec_predicted(struct riot_reader *r, const struct rec_dec *d,
			 struct task_slot *ts, struct riot_syscall *sc)
{
	const uint64_t *v = d->v;
	struct file_slot *fs = NULL;

	if (!u32_plus(ts->pid, v[F_PID], &sc->pid))
		return bad_value(r, "pid");
	ts->pid = sc->pid;
	if (sc->has & RIOT_HAS_FD) {
		int64_t fd = (int64_t)ts->fd + zz_dec(v[F_FD]);
		if (zz_dec(v[F_FD]) < INT32_MIN * 2ll || zz_dec(v[F_FD]) > INT32_MAX * 2ll ||
		    !fits_i32(fd))
			return bad_value(r, "fd");
		sc->fd = ts->fd = (int32_t)fd;
		if (sc->has & (RIOT_HAS_OFF | RIOT_HAS_COUNT))
			fs = pred_file(&r->pred, sc->pid, sc->fd);
	}
	if (sc->has & RIOT_HAS_COUNT)
		sc->count = (fs ? fs->count : 0) + (uint64_t)zz_dec(v[F_COUNT]);
	sc->ret = (int64_t)(((sc->has & RIOT_HAS_COUNT) ? sc->count : 0) +
			    (uint64_t)zz_dec(v[F_RET]));
	if (sc->has & RIOT_HAS_OFF)
		sc->off = (fs ? fs->next : 0) + (uint64_t)zz_dec(v[F_OFF]);
	if (fs && (sc->has & RIOT_HAS_OFF))
		fs->next = sc->off + (sc->ret > 0 ? (uint64_t)sc->ret : 0);
	if (fs && (sc->has & RIOT_HAS_COUNT))
		fs->count = sc->count;
	return 0;
}

static int dec_syscall(struct riot_reader *r, const struct rec_dec *d,
		       struct riot_syscall *sc)
{
	const uint64_t *v = d->v;
	int rc;

	if (v[F_KIND] > UINT16_MAX || !fits_u32(v[F_TID]))
		return bad_value(r, "syscall id or tid");
	sc->sys = (uint16_t)v[F_KIND];
	sc->tid = (uint32_t)v[F_TID];
	sc->t = d->t;
	sc->dur = d->dur;
	sc->has = (uint32_t)(d->mask >> SC_HAS_SHIFT) & SC_HAS_ALL;
	/* A syscall always has field 1: d->ts is set for every valid log. */
	rc = dec_predicted(r, d, d->ts ? d->ts : pred_task(&r->pred, v[F_TID]), sc);
	if (!rc)
		rc = dec_sc_fields(r, d, sc);
	if (!rc && (sc->has & RIOT_HAS_PATH))
		rc = str_field(r, d, F_PATH, &sc->path);
	if (!rc && (sc->has & RIOT_HAS_PATH2))
		rc = str_field(r, d, F_PATH2, &sc->path2);
	if (rc)
		return rc;
	if (sc->has & RIOT_HAS_VALUE) {
		if (v[F_VALUE] != v[F_BLOB] || v[F_VALUE] > RIOT_VALUE_LEN_MAX)
			return bad_value(r, "xattr value length");
		sc->value = (const uint8_t *)d->blob;
		sc->value_len = (uint32_t)v[F_VALUE];
	}
	if (sc->sys < RIOT_SYS_COUNT)
		r->syscalls[sc->sys]++;
	else
		r->syscalls_other++;
	return 0;
}

static int dec_proc(struct riot_reader *r, const struct rec_dec *d,
		    struct riot_proc *p)
{
	const uint64_t *v = d->v;

	if (v[F_KIND] > UINT8_MAX || !fits_u32(v[F_TID]) || !fits_u32(v[F_FD]) ||
	    !u32_plus((uint32_t)v[F_TID], v[F_PID], &p->pid) ||
	    !u32_plus((uint32_t)v[F_FD], v[F_FD2], &p->child_pid) ||
	    !i32_zz(v[F_RET], &p->exit_code))
		return bad_value(r, "proc field");
	p->kind = (uint8_t)v[F_KIND];
	p->tid = (uint32_t)v[F_TID];
	p->t = d->t;
	p->child_tid = (uint32_t)v[F_FD];
	p->clone_flags = v[F_FLAGS];
	int rc = str_field(r, d, F_PATH, &p->path);
	return rc ? rc : str_field(r, d, F_PATH2, &p->comm);
}

static int dec_snap_proc(struct riot_reader *r, const struct rec_dec *d,
			 struct riot_snap_proc *p)
{
	const uint64_t *v = d->v;

	if (!fits_u32(v[F_TID]) || !u32_plus((uint32_t)v[F_TID], v[F_PID], &p->ppid))
		return bad_value(r, "snap_proc field");
	p->pid = (uint32_t)v[F_TID];
	p->t = d->t;
	int rc = str_field(r, d, F_PATH, &p->cwd);
	return rc ? rc : str_field(r, d, F_PATH2, &p->comm);
}

static int dec_snap_fd(struct riot_reader *r, const struct rec_dec *d,
		       struct riot_snap_fd *f)
{
	const uint64_t *v = d->v;

	if (!fits_u32(v[F_TID]) || !i32_zz(v[F_FD], &f->fd) ||
	    !fits_u32(v[F_FLAGS]) || !fits_u32(v[F_FTYPE]) || v[F_PERM] > 07777)
		return bad_value(r, "snap_fd field");
	f->pid = (uint32_t)v[F_TID];
	f->t = d->t;
	f->flags = (uint32_t)v[F_FLAGS];
	f->pos = v[F_OFF];
	f->size = v[F_SIZE];
	f->ftype = (uint32_t)v[F_FTYPE];
	f->perm = (uint32_t)v[F_PERM];
	f->has_perm = d->mask & (1ull << F_PERM);
	f->ino = v[F_INO];
	f->dev = v[F_DEV];
	return str_field(r, d, F_PATH, &f->path);
}

static int dec_drop(struct riot_reader *r, const struct rec_dec *d,
		    struct riot_drop *dr)
{
	if (!fits_u32(d->v[F_KIND]))
		return bad_value(r, "drop cpu");
	dr->cpu = (uint32_t)d->v[F_KIND];
	dr->count = d->v[F_COUNT];
	dr->t_first = d->t;
	dr->t_last = d->t + d->dur;
	r->drops += dr->count;
	return 0;
}

/* Type, mask, the fields the mask names (unknown ones read and dropped),
 * the blob, and the generic time fields. */
static int rec_fields(struct riot_reader *r, uint64_t *type, struct rec_dec *d)
{
	uint64_t m, val;

	if (get_varint(&r->st[STREAM_TYPE], type) || *type == 0 || *type >= LOG_TYPES_MAX)
		return BLK_FAIL(r, "bad record type");
	if (get_varint(&r->st[STREAM_MASK], &d->mask))
		return BLK_FAIL(r, "mask stream overrun");
	memset(d->v, 0, sizeof(d->v));
	for (m = d->mask; m; m &= m - 1) {
		unsigned k = (unsigned)__builtin_ctzll(m);
		int rc = (PLANE_MASK >> k & 1) && r->h.major >= FMT_MAJOR_PLANES ?
			plane_get(&r->pl[k - F_TIME], &val) :
			STREAM_FIELD0 + k >= r->nst ? -EBADMSG :
			get_varint(&r->st[STREAM_FIELD0 + k], &val);
		if (rc)
			return BLK_FAIL(r, "field %u stream overrun", k);
		if (k < F_KNOWN)
			d->v[k] = val;
	}
	struct cursor *blob = &r->st[STREAM_BLOB];
	if (d->v[F_BLOB] > (uint64_t)(blob->end - blob->p))
		return BLK_FAIL(r, "blob stream overrun");
	d->blob = blob->p;
	blob->p += d->v[F_BLOB];
	d->t = d->dur = 0;
	d->ts = NULL;
	if (d->mask & TIME_BITS) {
		d->ts = pred_task(&r->pred, d->v[F_TID]);
		d->t = d->ts->end + (uint64_t)zz_dec(d->v[F_TIME]);
		d->dur = d->v[F_DUR];
		pred_task_end(&r->pred, d->ts, d->t + d->dur);
		if (d->t + d->dur > r->t_last)
			r->t_last = d->t + d->dur;
	}
	return 0;
}

/* The block sequence record: it opens every block of a log of minor 1 or
 * later and names the block's index. 0 when it is right. */
static int block_seq(struct riot_reader *r, bool first, uint64_t type, const struct rec_dec *d)
{
	if (type == REC_BLOCK_SEQ) {
		if (!first)
			return BLK_FAIL(r, "a block sequence record that does not open the block");
		if (d->v[F_KIND] != r->blk_no)
			return BLK_FAIL(r, "holds block %" PRIu64 " (blocks moved or reordered)",
					d->v[F_KIND]);
		return 0;
	}
	if (first && riot_fmt_has(&r->h, FMT_MINOR_BLOCK_SEQ))
		return BLK_FAIL(r, "no block sequence record (blocks moved or reordered)");
	return 0;
}

/* 1: a record in *out; 2: a record the reader consumed itself. */
static int rec_decode(struct riot_reader *r, struct riot_rec *out)
{
	struct rec_dec d;
	uint64_t type = 0;
	bool first = r->blk_first;
	int rc = rec_fields(r, &type, &d);

	if (rc)
		return rc;
	r->blk_first = false;
	rc = block_seq(r, first, type, &d);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->type = (uint8_t)type;
	switch (type) {
	case RIOT_REC_STRING:
		out->string.id = r->nstr;
		rc = str_define(r, &d);
		if (!rc)
			out->string.str = str_get(r, out->string.id);
		break;
	case RIOT_REC_SYSCALL:
		rc = dec_syscall(r, &d, &out->sc);
		break;
	case RIOT_REC_PROC:
		rc = dec_proc(r, &d, &out->proc);
		break;
	case RIOT_REC_SNAP_PROC:
		rc = dec_snap_proc(r, &d, &out->sproc);
		break;
	case RIOT_REC_SNAP_FD:
		rc = dec_snap_fd(r, &d, &out->sfd);
		break;
	case RIOT_REC_DROP:
		rc = dec_drop(r, &d, &out->drop);
		break;
	default:
		break;	/* a newer minor's type: returned with no fields */
	}
	if (rc)
		return rc;
	r->types[type]++;
	r->blk_left--;
	return type == REC_BLOCK_SEQ ? 2 : 1;
}

static int segs_next(struct riot_reader *r, struct riot_rec *out);

int riot_reader_next(struct riot_reader *r, struct riot_rec *out)
{
	int rc;

	if (r->err)
		return r->err;
	if (r->cur)
		return segs_next(r, out);
	do {
		while (!r->in_block || r->blk_left == 0) {
			if (r->in_block && (rc = block_finish(r)))
				return rc;
			if (r->done)
				return 0;
			rc = frame_next(r);
			if (rc <= 0)
				return rc;
		}
		rc = rec_decode(r, out);
	} while (rc == 2);
	return rc;
}

/* ---- lifecycle ---- */

static struct riot_reader *reader_new(void)
{
	struct riot_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	r->dz = ZSTD_createDCtx();
	if (!r->dz) {
		free(r);
		return NULL;
	}
	return r;
}

static const char *const empty = "";

static struct riot_reader *reader_start(struct riot_reader *r, char *err, size_t errlen)
{
	int rc = header_read(r);

	if (!rc) {
		r->h.fallbacks_known = r->h.fallbacks != NULL;
		const char **s[] = { &r->h.host, &r->h.kernel, &r->h.arch,
				     &r->h.riot_version, &r->h.cmdline,
				     &r->h.options, &r->h.target, &r->h.capture_id,
				     &r->h.fallbacks };
		for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
			if (!*s[i])
				*s[i] = empty;
		r->blk_off = r->pos;
		return r;
	}
	if (err && errlen)
		snprintf(err, errlen, "%s", r->errmsg);
	riot_reader_close(r);
	errno = -rc;
	return NULL;
}

struct riot_reader *riot_reader_open(const char *path, char *err, size_t errlen)
{
	struct riot_reader *r = reader_new();
	struct stat sb;

	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb) < 0) {
		int e = errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		riot_reader_close(r);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file", path);
		riot_reader_close(r);
		errno = EINVAL;
		return NULL;
	}
	r->size = (uint64_t)sb.st_size;
	{
		char why[512];
		struct riot_reader *ok = reader_start(r, why, sizeof(why));
		int e = errno;

		/* every error from a file names it, as block errors do */
		if (!ok && err && errlen)
			snprintf(err, errlen, "%s: %s", path, why);
		errno = e;
		return ok;
	}
}

int riot_log_check(const struct riot_logs *l, char *err, size_t errlen)
{
	struct riot_reader *r = riot_reader_open_logs(l, err, errlen);
	struct riot_rec rec;
	int rc;

	if (!r)
		return -errno;
	while ((rc = riot_reader_next(r, &rec)) > 0)
		;
	if (rc < 0 && l->n == 1)
		snprintf(err, errlen, "%s: %s", l->paths[0], riot_reader_error(r));
	else if (rc < 0)
		snprintf(err, errlen, "%s", riot_reader_error(r));
	riot_reader_close(r);
	return rc;
}

/* ---- segments of a rotated capture ---- */

char *riot_logs_join(const struct riot_logs *l)
{
	size_t len = 1, at = 0;
	char *s;

	for (unsigned i = 0; i < l->n; i++)
		len += strlen(l->paths[i]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = 0;
	for (unsigned i = 0; i < l->n; i++)
		at += (size_t)snprintf(s + at, len - at, "%s%s", i ? " " : "", l->paths[i]);
	return s;
}

static int seg_fail(struct riot_reader *r, int err, char *buf, size_t len,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* An error while opening: into buf, errno set, the reader closed. */
static int seg_fail(struct riot_reader *r, int err, char *buf, size_t len,
		    const char *fmt, ...)
{
	va_list ap;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	riot_reader_close(r);
	errno = err;
	return -err;
}

/* Whether segment b may follow segment a (headers of paths pa, pb);
 * else a one-line reason in buf. */
static bool seg_follows(const struct riot_log_header *a, const char *pa,
			const struct riot_log_header *b, const char *pb,
			char *buf, size_t len)
{
	if (!b->segment) {
		snprintf(buf, len, "%s: not a segment of a rotated capture (only segments "
			 "are read as one log)", pb);
		return false;
	}
	if (strcmp(a->capture_id, b->capture_id) != 0) {
		snprintf(buf, len, "%s: segment of another capture than %s", pb, pa);
		return false;
	}
	if (b->segment != a->segment + 1) {
		snprintf(buf, len, "%s: segment %" PRIu64 " cannot follow segment %" PRIu64
			 " (%s): segments go in order, none missing", pb, b->segment,
			 a->segment, pa);
		return false;
	}
	return true;
}

static int dup_header(struct riot_log_header *dst, const struct riot_log_header *src)
{
	const char **d[] = { &dst->host, &dst->kernel, &dst->arch, &dst->riot_version,
			     &dst->cmdline, &dst->options, &dst->target, &dst->capture_id,
			     &dst->fallbacks };
	const char *const *s[] = { &src->host, &src->kernel, &src->arch, &src->riot_version,
				   &src->cmdline, &src->options, &src->target,
				   &src->capture_id, &src->fallbacks };

	*dst = *src;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		*d[i] = empty;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if ((*s[i])[0] && !(*d[i] = strdup(*s[i])))
			return -ENOMEM;
	return 0;
}

struct riot_reader *riot_reader_open_logs(const struct riot_logs *l, char *err, size_t errlen)
{
	const char *const *paths = l->paths;
	unsigned n = l->n;
	struct riot_reader *r, *prev = NULL, *s;
	char why[ERR_LEN + 512];

	if (n == 1)
		return riot_reader_open(paths[0], err, errlen);
	if (!n || !(r = reader_new())) {
		seg_fail(NULL, n ? ENOMEM : EINVAL, err, errlen, n ? "out of memory" : "no log");
		return NULL;
	}
	r->seg_paths = paths;
	r->nseg = n;
	/* every header first: a wrong list is refused before anything is read */
	for (unsigned i = 0; i < n; i++) {
		if (!(s = riot_reader_open(paths[i], why, sizeof(why)))) {
			int e = errno;

			riot_reader_close(prev);
			seg_fail(r, e, err, errlen, "%s", why);
			return NULL;
		}
		r->size += s->size;
		if (i == 0 && !s->h.segment)
			snprintf(why, sizeof(why), "%s: not a segment of a rotated capture (only "
				 "segments are read as one log)", paths[0]);
		if ((i == 0 && !s->h.segment) ||
		    (i > 0 && !seg_follows(&prev->h, paths[i - 1], &s->h, paths[i], why,
					   sizeof(why)))) {
			riot_reader_close(prev);
			riot_reader_close(s);
			seg_fail(r, EINVAL, err, errlen, "%s", why);
			return NULL;
		}
		if (i == 0 && dup_header(&r->h, &s->h)) {
			riot_reader_close(s);
			seg_fail(r, ENOMEM, err, errlen, "out of memory");
			return NULL;
		}
		riot_reader_close(prev);
		prev = s;
	}
	riot_reader_close(prev);
	if (!(r->cur = riot_reader_open(paths[0], why, sizeof(why)))) {
		seg_fail(r, errno, err, errlen, "%s", why);
		return NULL;
	}
	return r;
}

/* Adds the finished segment's totals to r's. */
static void segs_add_totals(struct riot_reader *r, const struct riot_log_totals *t)
{
	for (unsigned i = 0; i < RIOT_REC_TYPE_MAX; i++)
		r->totals.records[i] += t->records[i];
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		r->totals.syscalls[i] += t->syscalls[i];
	r->totals.drops += t->drops;
	r->totals.blocks += t->blocks;
	if (t->t_last > r->totals.t_last)
		r->totals.t_last = t->t_last;
}

/* The end of segment cur: the next one, or the end of the log. 1 when
 * reading goes on, 0 at the end, -errno. */
static int segs_advance(struct riot_reader *r)
{
	const char *path = r->seg_paths[r->seg_i];
	bool last = r->seg_i + 1 == r->nseg;
	char why[ERR_LEN + 512];

	r->seg_blocks += r->cur->blocks;
	if (!riot_reader_complete(r->cur)) {
		if (last) {
			snprintf(r->incomplete, sizeof(r->incomplete), "%.200s: %.250s", path,
				 riot_reader_incomplete_reason(r->cur));
			r->done = true;
			return 0;
		}
		return fail(r, -EBADMSG, "%s: %s, yet segment %s follows", path,
			    riot_reader_incomplete_reason(r->cur), r->seg_paths[r->seg_i + 1]);
	}
	if (r->seg_skip)
		return fail(r, -EBADMSG, "%s: fewer start-state records than its header "
			    "says it restates", path);
	segs_add_totals(r, riot_reader_totals(r->cur));
	if (last) {
		for (unsigned i = 0; i < RIOT_REC_TYPE_MAX; i++)
			r->totals.records[i] -= r->skipped[i];
		r->done = r->complete = true;
		return 0;
	}
	riot_reader_close(r->cur);
	r->seg_i++;
	if (!(r->cur = riot_reader_open(r->seg_paths[r->seg_i], why, sizeof(why))))
		return fail(r, -errno, "%s", why);
	r->seg_skip = r->cur->h.restated;
	return 1;
}

static int segs_next(struct riot_reader *r, struct riot_rec *out)
{
	int rc;

	if (r->done)
		return 0;
	for (;;) {
		rc = riot_reader_next(r->cur, out);
		if (rc < 0)
			return fail(r, rc, "%s: %s", r->seg_paths[r->seg_i],
				    riot_reader_error(r->cur));
		if (rc == 0) {
			if ((rc = segs_advance(r)) <= 0)
				return rc;
			continue;
		}
		if (r->seg_skip && (out->type == RIOT_REC_SNAP_PROC ||
				    out->type == RIOT_REC_SNAP_FD)) {
			r->seg_skip--;
			r->skipped[out->type]++;
			continue;
		}
		return 1;
	}
}

struct riot_reader *riot_reader_open_mem(const void *buf, size_t len,
					 char *err, size_t errlen)
{
	struct riot_reader *r = reader_new();
	static const uint8_t nothing[1];

	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->mem = buf ? buf : nothing;
	r->size = buf ? len : 0;
	return reader_start(r, err, errlen);
}

const struct riot_log_header *riot_reader_header(const struct riot_reader *r)
{
	return &r->h;
}

bool riot_reader_complete(const struct riot_reader *r)
{
	return r->complete && !r->err;
}

const char *riot_reader_incomplete_reason(const struct riot_reader *r)
{
	if (r->complete || !r->done || !r->incomplete[0])
		return NULL;
	return r->incomplete;
}

const char *riot_reader_error(const struct riot_reader *r)
{
	return r->err ? r->errmsg : NULL;
}

const struct riot_log_totals *riot_reader_totals(const struct riot_reader *r)
{
	return riot_reader_complete(r) ? &r->totals : NULL;
}

uint64_t riot_reader_file_bytes(const struct riot_reader *r)
{
	return r->size;
}

uint64_t riot_reader_blocks(const struct riot_reader *r)
{
	return r->cur ? r->seg_blocks + (r->done ? 0 : r->cur->blocks) : r->blocks;
}

void riot_reader_close(struct riot_reader *r)
{
	if (!r)
		return;
	const char **s[] = { &r->h.host, &r->h.kernel, &r->h.arch,
			     &r->h.riot_version, &r->h.cmdline, &r->h.options,
			     &r->h.target, &r->h.capture_id, &r->h.fallbacks };
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (*s[i] != empty)
			free((char *)*s[i]);
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dz);
	free(r->comp);
	free(r->raw);
	free(r->arena);
	free(r->strs);
	for (unsigned i = 0; i < RIOT_END_SECTIONS_MAX; i++)
		free(r->sections[i]);
	riot_reader_close(r->cur);
	free(r);
}
