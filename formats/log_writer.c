/* formats/log_writer.c: writes a .riot log (FORMAT.md): header, then
 * self-contained columnar blocks, each compressed and written with one
 * write(), then the end record. */
#include "formats/log.h"
#include "formats/log_codec.h"
#include "lib/map.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define NSTREAMS	(STREAM_FIELD0 + F_KNOWN)
/* Threads whose last strings intern() tries before hashing: a thread
 * names the same path in calls that follow each other (stat, open,
 * fchown, utimensat of one file). */
#define RECENT_SLOTS	32
struct str_entry {
	uint32_t off, len;	/* in the blob stream */
	bool truncated;
};

/* The stream of a field stored as byte planes (format 2): its values as
 * they come, turned into the byte counts and planes (plane j: byte j of
 * each value longer than j) when the block is written, in one tight loop
 * rather than eight buffers touched per value. */
struct plane_stream {
	uint64_t *v;
	uint8_t *len;		/* each value's byte count */
	size_t n, cap;
	size_t have[PLANE_BYTES + 1];	/* values of each byte count */
};

/* One record on its way into the streams. */
struct rec_enc {
	uint8_t type;
	uint64_t mask;
	uint64_t v[F_KNOWN];
	const void *blob;
};

struct riot_writer {
	int fd;
	int err;		/* sticky: the first failure */
	int level;
	size_t block_bytes;
	bool sync;
	ZSTD_CCtx *zc;

	/* the open block */
	struct bytes st[NSTREAMS];	/* F_TIME's and F_DUR's: unused */
	struct plane_stream pl[PLANE_FIELDS];	/* theirs */
	struct bytes planes;	/* block_pieces(): counts and planes */
	size_t raw_len;		/* sum of stream lengths (plane streams:
				 * less their value counts) */
	size_t room_until;	/* varint_room(): no test below this raw_len */
	uint32_t nrec;
	bool have_t;
	uint64_t first_t;
	struct log_pred pred;
	struct str_entry *strs;
	uint32_t nstr;
	struct u64map str_ids;	/* hash of (text, truncated) -> ids */
	/* id + 1 of the string a thread last put in field F_PATH or
	 * F_PATH2 (slot: thread % RECENT_SLOTS), 0: none this block */
	uint32_t recent[RECENT_SLOTS][2];

	struct bytes out;	/* the framed block being written */
	uint64_t bytes_ok;	/* file length up to the last complete block */
	uint64_t blocks;
	uint64_t counts[LOG_TYPES_MAX];
	uint64_t syscalls[RIOT_SYS_COUNT];
	uint64_t drops;
	uint64_t t_last;
	struct bytes sections[RIOT_END_SECTIONS_MAX];	/* by key - 1 */
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Appends at the end of the log; on failure cuts the file back to the last
 * complete block so it stays readable, and the writer stays failed. */
static int append_frame(struct riot_writer *w, const uint8_t *p, size_t n)
{
	int rc = write_all(w->fd, p, n);

	if (rc) {
		if (ftruncate(w->fd, (off_t)w->bytes_ok) == 0)
			lseek(w->fd, (off_t)w->bytes_ok, SEEK_SET);
		w->err = rc;
		return rc;
	}
	w->bytes_ok += n;
	if (w->sync && fdatasync(w->fd) < 0) {
		w->err = -errno;
		return w->err;
	}
	return 0;
}

/* ---- header ---- */

static int put_tlv_str(struct bytes *b, unsigned key, const char *s)
{
	if (!s)
		return 0;
	size_t n = strlen(s);
	int rc = put_varint(b, key);
	if (!rc)
		rc = put_varint(b, n);
	if (!rc)
		rc = put_mem(b, s, n);
	return rc;
}

static int put_tlv_u64(struct bytes *b, unsigned key, uint64_t v)
{
	uint8_t tmp[10];
	struct bytes val = { .p = tmp, .len = 0, .cap = sizeof(tmp) };

	put_varint_raw(&val, v);
	int rc = put_varint(b, key);
	if (!rc)
		rc = put_varint(b, val.len);
	if (!rc)
		rc = put_mem(b, tmp, val.len);
	return rc;
}

static int header_payload(struct bytes *b, const struct riot_log_header *h)
{
	int rc = 0;

	rc = rc ? rc : put_tlv_str(b, TLV_HOST, h->host);
	rc = rc ? rc : put_tlv_str(b, TLV_KERNEL, h->kernel);
	rc = rc ? rc : put_tlv_str(b, TLV_ARCH, h->arch);
	rc = rc ? rc : put_tlv_str(b, TLV_RIOT_VERSION, h->riot_version);
	rc = rc ? rc : put_tlv_str(b, TLV_CMDLINE, h->cmdline);
	rc = rc ? rc : put_tlv_str(b, TLV_OPTIONS, h->options);
	rc = rc ? rc : put_tlv_str(b, TLV_TARGET, h->target);
	rc = rc ? rc : put_tlv_str(b, TLV_FALLBACKS, h->fallbacks);
	rc = rc ? rc : put_tlv_u64(b, TLV_BOOT_TO_WALL, zz_enc(h->boot_to_wall_ns));
	rc = rc ? rc : put_tlv_u64(b, TLV_START_T, h->start_t);
	if (h->segment) {
		rc = rc ? rc : put_tlv_str(b, TLV_CAPTURE_ID, h->capture_id);
		rc = rc ? rc : put_tlv_u64(b, TLV_SEGMENT, h->segment);
		rc = rc ? rc : put_tlv_u64(b, TLV_RESTATED, h->restated);
	}
	if (h->probe_calls) {
		rc = rc ? rc : put_tlv_u64(b, TLV_PROBE_NS, h->probe_ns);
		rc = rc ? rc : put_tlv_u64(b, TLV_PROBE_CALLS, h->probe_calls);
		rc = rc ? rc : put_tlv_u64(b, TLV_PROBE_UNTRACED, h->probe_untraced_ns);
		rc = rc ? rc : put_tlv_u64(b, TLV_PROBE_RECORDED, h->probe_recorded_ns);
	}
	return rc;
}

static int write_header(struct riot_writer *w, const struct riot_log_header *h)
{
	struct bytes payload = { 0 };
	int rc = header_payload(&payload, h);

	if (!rc && payload.len > LOG_HDR_PAYLOAD_MAX)
		rc = -E2BIG;
	if (!rc)
		rc = bytes_reserve(&w->out, LOG_HDR_FIXED + payload.len + 4);
	if (!rc) {
		uint8_t *p = w->out.p;
		memcpy(p, LOG_MAGIC, LOG_MAGIC_LEN);
		put_le16(p + 8, RIOT_FMT_MAJOR);
		put_le16(p + 10, RIOT_FMT_MINOR);
		put_le32(p + 12, (uint32_t)payload.len);
		if (payload.len)
			memcpy(p + LOG_HDR_FIXED, payload.p, payload.len);
		size_t n = LOG_HDR_FIXED + payload.len;
		put_le32(p + n, (uint32_t)crc32(0, p, (uInt)n));
		rc = append_frame(w, p, n + 4);
	}
	free(payload.p);
	return rc;
}

/* ---- blocks ---- */

static void block_reset(struct riot_writer *w)
{
	for (unsigned i = 0; i < NSTREAMS; i++)
		w->st[i].len = 0;
	for (unsigned i = 0; i < PLANE_FIELDS; i++) {
		w->pl[i].n = 0;
		memset(w->pl[i].have, 0, sizeof(w->pl[i].have));
	}
	w->raw_len = 0;
	w->room_until = 0;
	w->nrec = 0;
	w->have_t = false;
	w->first_t = 0;
	pred_reset(&w->pred, 0);
	if (w->nstr)
		map_clear(&w->str_ids);
	w->nstr = 0;
	memset(w->recent, 0, sizeof(w->recent));
}

/* Stream directory, then the streams: the raw block payload, compressed
 * as one zstd frame into dst. A flush at the end of each large stream starts
 * a new zstd block there, so each such stream gets its own entropy tables
 * (mixing the statistics of time deltas and, say, masks costs ~8 %). */
#define STREAM_OWN_BLOCK 1024

/* What goes into the block's raw payload, in order: the directory, then
 * each stream, a plane stream as its value count, byte counts and planes. */
struct piece {
	const uint8_t *p;
	size_t len;
};
/* the directory, the varint streams, and per plane stream its count, its
 * byte counts and its planes */
#define PIECES_MAX	(1 + NSTREAMS - PLANE_FIELDS + PLANE_FIELDS * (PLANE_BYTES + 2))

static unsigned plane_bytes(uint64_t v)
{
	return v ? (unsigned)(71 - __builtin_clzll(v)) / 8 : 0;
}

/* Plane stream ps's planes 0..7 into out, which has room for 8 bytes a
 * value; the length of each plane in part[]. */
static void planes_make(const struct plane_stream *ps, uint8_t *out, size_t part[PLANE_BYTES])
{
	size_t longer = ps->n - ps->have[0], off = 0;
	uint8_t *a[PLANE_BYTES];

	for (unsigned j = 0; j < PLANE_BYTES; j++) {
		a[j] = out + off;
		part[j] = longer;
		off += longer;
		longer -= ps->have[j + 1];
	}
	uint8_t *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
	uint8_t *a4 = a[4], *a5 = a[5], *a6 = a[6], *a7 = a[7];
	for (size_t i = 0; i < ps->n; i++) {
		uint64_t v = ps->v[i];

		switch (ps->len[i]) {
		case 8: *a7++ = (uint8_t)(v >> 56); /* fall through */
		case 7: *a6++ = (uint8_t)(v >> 48); /* fall through */
		case 6: *a5++ = (uint8_t)(v >> 40); /* fall through */
		case 5: *a4++ = (uint8_t)(v >> 32); /* fall through */
		case 4: *a3++ = (uint8_t)(v >> 24); /* fall through */
		case 3: *a2++ = (uint8_t)(v >> 16); /* fall through */
		case 2: *a1++ = (uint8_t)(v >> 8); /* fall through */
		case 1: *a0++ = (uint8_t)v; /* fall through */
		default: break;
		}
	}
}

static int block_pieces(struct riot_writer *w, uint8_t *dir, size_t dir_cap,
			uint8_t (*counts)[10], struct piece *pc, unsigned *npc,
			size_t *raw_len)
{
	struct bytes d = { .p = dir, .len = 0, .cap = dir_cap };
	unsigned n = 1;
	size_t need = 0;

	for (unsigned i = 0; i < PLANE_FIELDS; i++)
		need += w->pl[i].n * PLANE_BYTES;
	w->planes.len = 0;
	if (bytes_reserve(&w->planes, need))
		return -ENOMEM;
	uint8_t *out = w->planes.p;
	put_varint_raw(&d, NSTREAMS);
	for (unsigned i = 0; i < NSTREAMS; i++) {
		unsigned k = i - STREAM_FIELD0;

		if (i < STREAM_FIELD0 || !(PLANE_MASK >> k & 1)) {
			put_varint_raw(&d, w->st[i].len);
			pc[n++] = (struct piece){ w->st[i].p, w->st[i].len };
			continue;
		}
		struct plane_stream *ps = &w->pl[k - F_TIME];
		struct bytes cb = { .p = counts[k - F_TIME], .len = 0, .cap = 10 };
		size_t part[PLANE_BYTES], len;

		put_varint_raw(&cb, ps->n);
		pc[n++] = (struct piece){ cb.p, cb.len };
		pc[n++] = (struct piece){ ps->len, ps->n };
		planes_make(ps, out, part);
		len = cb.len + ps->n;
		for (unsigned j = 0; j < PLANE_BYTES; j++) {
			pc[n++] = (struct piece){ out, part[j] };
			out += part[j];
			len += part[j];
		}
		put_varint_raw(&d, len);
		*raw_len += cb.len;
	}
	pc[0] = (struct piece){ dir, d.len };
	*raw_len += d.len;
	*npc = n;
	return 0;
}

/* The n pieces, raw_len bytes in all, as one zstd frame into dst: its
 * length, or a zstd error code. */
static size_t block_compress(struct riot_writer *w, const struct piece *pc, unsigned n,
			     size_t raw_len, uint8_t *dst, size_t cap)
{
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t rc;

	ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
	rc = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level);
	if (!ZSTD_isError(rc))
		rc = ZSTD_CCtx_setPledgedSrcSize(w->zc, raw_len);
	for (unsigned i = 0; !ZSTD_isError(rc) && i < n; i++) {
		ZSTD_inBuffer in = { pc[i].p, pc[i].len, 0 };
		bool last = i == n - 1;
		ZSTD_EndDirective mode = last ? ZSTD_e_end :
			pc[i].len >= STREAM_OWN_BLOCK ? ZSTD_e_flush : ZSTD_e_continue;
		do {
			rc = ZSTD_compressStream2(w->zc, &out, &in, mode);
		} while (!ZSTD_isError(rc) && (in.pos < in.size || (mode != ZSTD_e_continue && rc)));
	}
	return ZSTD_isError(rc) ? rc : out.pos;
}

static int block_write(struct riot_writer *w)
{
	uint8_t dir[10 * (NSTREAMS + 1)], counts[PLANE_FIELDS][10];
	struct piece pc[PIECES_MAX];
	unsigned npc;
	size_t raw_len = w->raw_len, bound;
	int rc;

	rc = block_pieces(w, dir, sizeof(dir), counts, pc, &npc, &raw_len);
	if (rc)
		goto out;
	bound = ZSTD_compressBound(raw_len) + PIECES_MAX * 8;
	w->out.len = 0;
	rc = bytes_reserve(&w->out, BLK_HDR_SIZE + bound);
	if (rc)
		goto out;
	uint8_t *h = w->out.p;
	size_t clen = block_compress(w, pc, npc, raw_len, h + BLK_HDR_SIZE, bound);
	if (ZSTD_isError(clen)) {
		rc = -EIO;
		goto out;
	}
	memcpy(h, BLK_MAGIC, FRAME_MAGIC_LEN);
	put_le32(h + 4, (uint32_t)clen);
	put_le32(h + 8, (uint32_t)raw_len);
	put_le32(h + 12, w->nrec);
	put_le64(h + 16, w->first_t);
	put_le32(h + 24, (uint32_t)crc32(0, h + BLK_HDR_SIZE, (uInt)clen));
	put_le32(h + 28, (uint32_t)crc32(0, h, BLK_HDR_CRC_OFF));
	rc = append_frame(w, h, BLK_HDR_SIZE + clen);
	if (!rc)
		w->blocks++;
out:
	if (rc && !w->err)
		w->err = rc;
	return rc;
}

int riot_writer_flush(struct riot_writer *w)
{
	if (w->err)
		return w->err;
	if (w->nrec == 0)
		return 0;
	int rc = block_write(w);
	block_reset(w);
	return rc;
}

/* ---- records ---- */

/* Free bytes each varint stream keeps after varint_room() looked at it,
 * so it looks once per many records. */
#define VARINT_ROOM 1024

/* A record puts at most one varint (10 bytes) in each stream, and adds at
 * least as much to raw_len as to any one stream: below room_until every
 * stream has room for the record's varints, and a record costs one test,
 * not one per field. */
static int varint_room(struct riot_writer *w)
{
	size_t least = SIZE_MAX;

	if (w->raw_len < w->room_until)
		return 0;
	for (unsigned i = 0; i < NSTREAMS; i++) {
		struct bytes *b = &w->st[i];

		if (i == STREAM_BLOB || (i >= STREAM_FIELD0 &&
					 (PLANE_MASK >> (i - STREAM_FIELD0) & 1)))
			continue;
		if (bytes_reserve(b, VARINT_ROOM))
			return -ENOMEM;
		if (b->cap - b->len < least)
			least = b->cap - b->len;
	}
	/* a plane stream takes one value a record */
	for (unsigned i = 0; i < PLANE_FIELDS; i++) {
		struct plane_stream *ps = &w->pl[i];

		if (ps->cap - ps->n < VARINT_ROOM) {
			size_t cap = ps->cap ? 2 * ps->cap : 4 * VARINT_ROOM;
			uint64_t *v = realloc(ps->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			ps->v = v;	/* larger: harmless if len's fails */
			uint8_t *len = realloc(ps->len, cap);
			if (!len)
				return -ENOMEM;
			ps->len = len;
			ps->cap = cap;
		}
		if (ps->cap - ps->n < least)
			least = ps->cap - ps->n;
	}
	w->room_until = w->raw_len + least - 9;
	return 0;
}

/* v onto plane stream ps, which has room (varint_room()); the bytes it
 * will take. */
static size_t put_plane(struct plane_stream *ps, uint64_t v)
{
	unsigned n = plane_bytes(v);

	ps->len[ps->n] = (uint8_t)n;
	ps->v[ps->n++] = v;
	ps->have[n]++;
	return 1 + n;
}

/* v onto stream b, which has room (varint_room()); its bytes. */
static size_t put_room(struct bytes *b, uint64_t v)
{
	uint8_t *p = b->p + b->len, *start = p;

	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len += (size_t)(p - start);
	return (size_t)(p - start);
}

static int rec_emit(struct riot_writer *w, const struct rec_enc *e)
{
	size_t added;
	uint64_t m = e->mask;
	int rc = varint_room(w);

	if (!rc && (e->mask & (1ull << F_BLOB)))
		rc = put_mem(&w->st[STREAM_BLOB], e->blob, e->v[F_BLOB]);
	if (rc) {
		w->err = rc;
		return rc;
	}
	added = put_room(&w->st[STREAM_TYPE], e->type);
	added += put_room(&w->st[STREAM_MASK], e->mask);
	if (m & (1ull << F_BLOB))
		added += put_room(&w->st[STREAM_FIELD0 + F_BLOB], e->v[F_BLOB]);
	if (m & (1ull << F_TIME))
		added += put_plane(&w->pl[0], e->v[F_TIME]);
	if (m & (1ull << F_DUR))
		added += put_plane(&w->pl[1], e->v[F_DUR]);
	for (m &= ~((1ull << F_BLOB) | PLANE_MASK); m; m &= m - 1) {
		unsigned k = (unsigned)__builtin_ctzll(m);

		added += put_room(&w->st[STREAM_FIELD0 + k], e->v[k]);
	}
	if (e->mask & (1ull << F_BLOB))
		added += e->v[F_BLOB];
	w->raw_len += added;
	w->nrec++;
	w->counts[e->type]++;
	return 0;
}

static void set(struct rec_enc *e, unsigned k, uint64_t v)
{
	e->mask |= 1ull << k;
	e->v[k] = v;
}

/* Fields outside a syscall's fixed set are written only when not 0: an
 * absent field reads as encoded 0, so this is lossless. */
static void set_nz(struct rec_enc *e, unsigned k, uint64_t v)
{
	if (v)
		set(e, k, v);
}

/* Time fields of a record of thread `key` (what goes in field 4). F_TIME is
 * always written so the reader runs the time predictor on this record too
 * (it skips records with none of fields 1, 2, 4). */
static struct task_slot *enc_time(struct riot_writer *w, struct rec_enc *e,
				  uint64_t key, uint64_t t, uint64_t dur, bool always)
{
	if (!w->have_t) {
		w->have_t = true;
		w->first_t = t;
		w->pred.prev_end = t;
	}
	struct task_slot *ts = pred_task(&w->pred, key);
	set(e, F_TIME, zz_diff(t, ts->end));
	if (always)
		set(e, F_DUR, dur);
	else
		set_nz(e, F_DUR, dur);
	pred_task_end(&w->pred, ts, t + dur);
	if (t + dur > w->t_last)
		w->t_last = t + dur;
	return ts;
}

/* The id of s in this block, emitting its STRING record on first use.
 * recent: the id + 1 of the last string the record's thread put in this
 * field, tried first, then updated. The caller has made sure the table
 * has room. */
static int intern(struct riot_writer *w, const struct riot_str *s, uint32_t *recent,
		  uint64_t *id)
{
	size_t n = strnlen(s->s, STR_MAX + 1);
	bool truncated = s->truncated || n > STR_MAX;
	const struct str_entry *e;

	if (n > STR_MAX)
		n = STR_MAX;
	if (*recent) {
		e = &w->strs[*recent - 1];
		if (e->len == n && e->truncated == truncated &&
		    memcmp(w->st[STREAM_BLOB].p + e->off, s->s, n) == 0) {
			*id = *recent - 1;
			return 0;
		}
	}
	uint64_t h = hash_bytes(s->s, n, w->str_ids.seed ^ truncated), *v;
	uint32_t pos = 0;
	while ((v = map_next(&w->str_ids, h, &pos))) {
		e = &w->strs[*v];
		if (e->len == n && e->truncated == truncated &&
		    memcmp(w->st[STREAM_BLOB].p + e->off, s->s, n) == 0) {
			*id = *v;
			*recent = (uint32_t)*v + 1;
			return 0;
		}
	}
	struct rec_enc r = { .type = RIOT_REC_STRING, .blob = s->s };
	set_nz(&r, F_BLOB, n);
	set_nz(&r, F_KIND, truncated ? STRING_TRUNCATED : 0);
	uint32_t off = (uint32_t)w->st[STREAM_BLOB].len;
	int rc = rec_emit(w, &r);
	if (rc)
		return rc;
	rc = map_add(&w->str_ids, h, w->nstr);
	if (rc)
		return rc;
	w->strs[w->nstr] = (struct str_entry){ off, (uint32_t)n, truncated };
	*id = w->nstr++;
	*recent = (uint32_t)*id + 1;
	return 0;
}

/* A string field (F_PATH or F_PATH2) of a record of thread `key` (what
 * goes in field 4): present iff the string is. */
static int set_str(struct riot_writer *w, struct rec_enc *e, unsigned k, uint64_t key,
		   const struct riot_str *s)
{
	uint64_t id;
	int rc;

	if (!s->s)
		return 0;
	rc = intern(w, s, &w->recent[key % RECENT_SLOTS][k == F_PATH2], &id);
	if (!rc)
		set(e, k, id);
	return rc;
}

/* The two string fields, F_PATH and F_PATH2 (NULL: left out). */
static int set_paths(struct riot_writer *w, struct rec_enc *e, uint64_t key,
		     const struct riot_str *path, const struct riot_str *path2)
{
	int rc = path ? set_str(w, e, F_PATH, key, path) : 0;

	return rc || !path2 ? rc : set_str(w, e, F_PATH2, key, path2);
}

/* Where each field that no prediction encodes lives in struct
 * riot_syscall, and whether it is a signed fd (zigzag): read through a
 * table, not a switch, whose indirect jump goes somewhere else for each
 * field of a record. */
static const struct sc_field {
	uint16_t off;
	uint8_t width;		/* bytes: 1, 4 or 8 */
	bool zz;
} sc_fields[F_KNOWN] = {
#define SC_FIELD(f, member, signed_fd) \
	[f] = { offsetof(struct riot_syscall, member), \
		sizeof(((const struct riot_syscall *)0)->member), signed_fd }
	SC_FIELD(F_FD2, fd2, true),
	SC_FIELD(F_DIRFD, dirfd, true),
	SC_FIELD(F_DIRFD2, dirfd2, true),
	SC_FIELD(F_OFF2, off2, false),
	SC_FIELD(F_FLAGS, flags, false),
	SC_FIELD(F_MODE, mode, false),
	SC_FIELD(F_CMD, cmd, false),
	SC_FIELD(F_ARG, arg, false),
	SC_FIELD(F_IOVCNT, iovcnt, false),
	SC_FIELD(F_UID, uid, false),
	SC_FIELD(F_GID, gid, false),
	SC_FIELD(F_SIZE, size, false),
	SC_FIELD(F_FTYPE, ftype, false),
	SC_FIELD(F_INO, ino, false),
	SC_FIELD(F_DEV, dev, false),
	SC_FIELD(F_CREATED, created, false),
	SC_FIELD(F_PERM, perm, false),
	SC_FIELD(F_VALUE, value_len, false),
	SC_FIELD(F_CTX, ctx, false),
#undef SC_FIELD
};

/* The value of a field in sc_fields[]; the predicted fields are encoded
 * by enc_predicted() (their entries are empty: 0). */
static uint64_t sc_value(const struct riot_syscall *sc, unsigned field)
{
	const struct sc_field *f = &sc_fields[field];
	const uint8_t *p = (const uint8_t *)sc + f->off;
	uint64_t v8;
	uint32_t v4;

	if (f->width == 8) {
		memcpy(&v8, p, 8);
		return v8;
	}
	if (f->width == 4) {
		memcpy(&v4, p, 4);
		return f->zz ? zz_enc((int32_t)v4) : v4;
	}
	return f->width ? *p : 0;
}

/* pid, fd, count, ret and off: stored as errors of their predictions. */
static void enc_predicted(struct riot_writer *w, const struct riot_syscall *sc,
			  uint32_t has, struct task_slot *ts, struct rec_enc *e)
{
	struct file_slot *fs = NULL;

	set(e, F_PID, zz_diff(sc->pid, ts->pid));
	ts->pid = sc->pid;
	if (has & RIOT_HAS_FD) {
		set(e, F_FD, zz_enc((int64_t)sc->fd - ts->fd));
		ts->fd = sc->fd;
		if (has & (RIOT_HAS_OFF | RIOT_HAS_COUNT))
			fs = pred_file(&w->pred, sc->pid, sc->fd);
	}
	if (has & RIOT_HAS_COUNT)
		set(e, F_COUNT, zz_diff(sc->count, fs ? fs->count : 0));
	set(e, F_RET, zz_diff((uint64_t)sc->ret, (has & RIOT_HAS_COUNT) ? sc->count : 0));
	if (has & RIOT_HAS_OFF)
		set(e, F_OFF, zz_diff(sc->off, fs ? fs->next : 0));
	if (fs && (has & RIOT_HAS_OFF))
		fs->next = sc->off + (sc->ret > 0 ? (uint64_t)sc->ret : 0);
	if (fs && (has & RIOT_HAS_COUNT))
		fs->count = sc->count;
}

static const uint32_t sc_predicted = RIOT_HAS_FD | RIOT_HAS_PATH | RIOT_HAS_PATH2 |
				     RIOT_HAS_OFF | RIOT_HAS_COUNT;

static int enc_syscall(struct riot_writer *w, const struct riot_syscall *sc,
		       struct rec_enc *e)
{
	uint32_t has = sc->has & SC_HAS_ALL, rest;
	int rc = 0;

	if (sc->sys >= RIOT_SYS_COUNT)
		return -EINVAL;
	if (((has & RIOT_HAS_PATH) && !sc->path.s) ||
	    ((has & RIOT_HAS_PATH2) && !sc->path2.s) ||
	    ((has & RIOT_HAS_VALUE) &&
	     ((!sc->value && sc->value_len) || sc->value_len > RIOT_VALUE_LEN_MAX)))
		return -EINVAL;
	rc = set_paths(w, e, sc->tid, has & RIOT_HAS_PATH ? &sc->path : NULL,
		       has & RIOT_HAS_PATH2 ? &sc->path2 : NULL);
	if (rc)
		return rc;
	struct task_slot *ts = enc_time(w, e, sc->tid, sc->t, sc->dur, true);
	set(e, F_KIND, sc->sys);
	set(e, F_TID, sc->tid);
	enc_predicted(w, sc, has, ts, e);
	/* the fields present that no prediction encodes, in field order */
	for (rest = has & ~sc_predicted; rest; rest &= rest - 1) {
		unsigned f = (unsigned)__builtin_ctz(rest) + SC_HAS_SHIFT;

		set(e, f, sc_value(sc, f));
	}
	if (has & RIOT_HAS_VALUE) {	/* the bytes go to the blob */
		e->blob = sc->value;
		set_nz(e, F_BLOB, sc->value_len);
	}
	w->syscalls[sc->sys]++;
	return 0;
}

static int enc_proc(struct riot_writer *w, const struct riot_proc *p,
		    struct rec_enc *e)
{
	int rc = set_paths(w, e, p->tid, &p->path, &p->comm);

	if (rc)
		return rc;
	enc_time(w, e, p->tid, p->t, 0, false);
	set_nz(e, F_KIND, p->kind);
	set_nz(e, F_TID, p->tid);
	set_nz(e, F_PID, zz_diff(p->pid, p->tid));
	set_nz(e, F_RET, zz_enc(p->exit_code));
	set_nz(e, F_FD, p->child_tid);
	set_nz(e, F_FD2, zz_diff(p->child_pid, p->child_tid));
	set_nz(e, F_FLAGS, p->clone_flags);
	return 0;
}

static int enc_snap_proc(struct riot_writer *w, const struct riot_snap_proc *p,
			 struct rec_enc *e)
{
	int rc = set_paths(w, e, p->pid, &p->cwd, &p->comm);

	if (rc)
		return rc;
	enc_time(w, e, p->pid, p->t, 0, false);
	set_nz(e, F_TID, p->pid);
	set_nz(e, F_PID, zz_diff(p->ppid, p->pid));
	return 0;
}

static int enc_snap_fd(struct riot_writer *w, const struct riot_snap_fd *f,
		       struct rec_enc *e)
{
	int rc = set_str(w, e, F_PATH, f->pid, &f->path);

	if (rc)
		return rc;
	enc_time(w, e, f->pid, f->t, 0, false);
	set_nz(e, F_TID, f->pid);
	set_nz(e, F_FD, zz_enc(f->fd));
	set_nz(e, F_FLAGS, f->flags);
	set_nz(e, F_OFF, f->pos);
	set_nz(e, F_SIZE, f->size);
	set_nz(e, F_FTYPE, f->ftype);
	if (f->has_perm)
		set(e, F_PERM, f->perm);
	set_nz(e, F_INO, f->ino);
	set_nz(e, F_DEV, f->dev);
	return 0;
}

static void enc_drop(struct riot_writer *w, const struct riot_drop *d,
		     struct rec_enc *e)
{
	enc_time(w, e, 0, d->t_first, d->t_last - d->t_first, false);
	set_nz(e, F_KIND, d->cpu);
	set_nz(e, F_COUNT, d->count);
	w->drops += d->count;
}

/* The record that opens every block: the block's index in the file. */
static int block_seq(struct riot_writer *w)
{
	struct rec_enc e = { .type = REC_BLOCK_SEQ, .mask = 0 };

	set(&e, F_KIND, w->blocks);
	return rec_emit(w, &e);
}

int riot_writer_add(struct riot_writer *w, const struct riot_rec *r)
{
	struct rec_enc e;
	int rc;

	if (w->err)
		return w->err;
	if (r->type == RIOT_REC_STRING || r->type == 0 || r->type >= RIOT_REC_TYPE_MAX)
		return -EINVAL;
	/* A record defines at most two strings; they and it share a block. */
	if ((w->nstr + 2 > BLK_STR_MAX || w->nrec + 3 > BLK_REC_MAX) &&
	    (rc = riot_writer_flush(w)))
		return rc;
	if (w->nrec == 0 && (rc = block_seq(w)))
		return rc;
	e.type = r->type;
	e.mask = 0;
	switch (r->type) {
	case RIOT_REC_SYSCALL:
		rc = enc_syscall(w, &r->sc, &e);
		break;
	case RIOT_REC_PROC:
		rc = enc_proc(w, &r->proc, &e);
		break;
	case RIOT_REC_SNAP_PROC:
		rc = enc_snap_proc(w, &r->sproc, &e);
		break;
	case RIOT_REC_SNAP_FD:
		rc = enc_snap_fd(w, &r->sfd, &e);
		break;
	default:
		enc_drop(w, &r->drop, &e);
		rc = 0;
		break;
	}
	if (!rc)
		rc = rec_emit(w, &e);
	if (rc)
		return rc;
	if (w->raw_len >= w->block_bytes)
		return riot_writer_flush(w);
	return 0;
}

/* ---- lifecycle ---- */

static void writer_free(struct riot_writer *w)
{
	for (unsigned i = 0; i < NSTREAMS; i++)
		free(w->st[i].p);
	for (unsigned i = 0; i < PLANE_FIELDS; i++) {
		free(w->pl[i].v);
		free(w->pl[i].len);
	}
	free(w->planes.p);
	free(w->out.p);
	free(w->strs);
	map_fini(&w->str_ids);
	for (unsigned i = 0; i < RIOT_END_SECTIONS_MAX; i++)
		free(w->sections[i].p);
	ZSTD_freeCCtx(w->zc);
	free(w);
}

struct riot_writer *riot_writer_open(const char *path,
				     const struct riot_log_header *h,
				     const struct riot_writer_opts *o)
{
	struct riot_writer *w = calloc(1, sizeof(*w));
	int rc = -ENOMEM;

	if (!w)
		return NULL;
	w->fd = -1;
	w->level = o && o->zstd_level ? o->zstd_level : 3;
	w->block_bytes = o && o->block_bytes ? o->block_bytes : BLK_BYTES_DEFAULT;
	if (w->block_bytes > BLK_BYTES_MAX)
		w->block_bytes = BLK_BYTES_MAX;
	w->sync = o && o->sync;
	w->zc = ZSTD_createCCtx();
	w->strs = calloc(BLK_STR_MAX, sizeof(*w->strs));
	map_init(&w->str_ids, map_seed());
	if (!w->zc || !w->strs)
		goto fail;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		rc = -errno;
		goto fail;
	}
	block_reset(w);
	rc = write_header(w, h);
	if (rc) {
		close(w->fd);
		unlink(path);
		w->fd = -1;
		goto fail;
	}
	return w;
fail:
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
	errno = -rc;
	return NULL;
}

int riot_writer_end_section(struct riot_writer *w, unsigned key, const void *p, size_t len)
{
	struct bytes *s;

	if (key < 1 || key > RIOT_END_SECTIONS_MAX || len > RIOT_END_SECTION_BYTES_MAX)
		return -EINVAL;
	s = &w->sections[key - 1];
	s->len = 0;
	if (bytes_reserve(s, len ? len : 1))
		return -ENOMEM;
	return put_mem(s, p, len);
}

/* Format 1.3: the number of sections, then key, length and bytes each. */
static int put_end_sections(struct riot_writer *w, struct bytes *b)
{
	unsigned n = 0;
	int rc;

	for (unsigned i = 0; i < RIOT_END_SECTIONS_MAX; i++)
		n += w->sections[i].p != NULL;
	rc = put_varint(b, n);
	for (unsigned i = 0; !rc && i < RIOT_END_SECTIONS_MAX; i++) {
		const struct bytes *s = &w->sections[i];

		if (!s->p)
			continue;
		rc = put_varint(b, i + 1);
		rc = rc ? rc : put_varint(b, s->len);
		rc = rc ? rc : put_mem(b, s->p, s->len);
	}
	return rc;
}

/* The end record: a frame header like a block's (magic REND, payload
 * stored uncompressed), then the totals and the end sections. */
static int write_end(struct riot_writer *w)
{
	struct bytes b = { 0 };
	int rc = bytes_reserve(&b, BLK_HDR_SIZE);

	if (rc)
		return rc;
	memset(b.p, 0, BLK_HDR_SIZE);
	b.len = BLK_HDR_SIZE;
	rc = rc ? rc : put_varint(&b, END_FLAG_CLEAN);
	rc = rc ? rc : put_varint(&b, w->blocks);
	rc = rc ? rc : put_varint(&b, w->t_last);
	rc = rc ? rc : put_varint(&b, w->drops);
	rc = rc ? rc : put_varint(&b, REC_BLOCK_SEQ + 1);
	for (unsigned i = 0; !rc && i <= REC_BLOCK_SEQ; i++)
		rc = put_varint(&b, w->counts[i]);
	rc = rc ? rc : put_varint(&b, RIOT_SYS_COUNT);
	for (unsigned i = 0; !rc && i < RIOT_SYS_COUNT; i++)
		rc = put_varint(&b, w->syscalls[i]);
	rc = rc ? rc : put_end_sections(w, &b);
	if (!rc) {
		uint32_t len = (uint32_t)(b.len - BLK_HDR_SIZE);
		memcpy(b.p, END_MAGIC, FRAME_MAGIC_LEN);
		put_le32(b.p + 4, len);
		put_le32(b.p + 8, len);
		put_le32(b.p + 24, (uint32_t)crc32(0, b.p + BLK_HDR_SIZE, len));
		put_le32(b.p + 28, (uint32_t)crc32(0, b.p, BLK_HDR_CRC_OFF));
		rc = append_frame(w, b.p, b.len);
	}
	free(b.p);
	return rc;
}

int riot_writer_close(struct riot_writer *w)
{
	int rc = riot_writer_flush(w);

	if (!rc)
		rc = write_end(w);
	if (!rc && w->sync && fdatasync(w->fd) < 0)
		rc = -errno;
	if (close(w->fd) < 0 && !rc)
		rc = -errno;
	writer_free(w);
	return rc;
}

void riot_writer_abort(struct riot_writer *w)
{
	if (!w)
		return;
	riot_writer_flush(w);
	close(w->fd);
	writer_free(w);
}

uint64_t riot_writer_bytes(const struct riot_writer *w)
{
	return w->bytes_ok;
}

uint64_t riot_writer_t_last(const struct riot_writer *w)
{
	return w->t_last;
}

uint64_t riot_writer_count(const struct riot_writer *w, unsigned type)
{
	return type < LOG_TYPES_MAX ? w->counts[type] : 0;
}
