/* formats/log_codec.h: the byte-level pieces of the .riot format that the
 * writer and the reader must agree on (private to formats/). FORMAT.md is
 * the spec; every constant here appears there under the same meaning. */
#ifndef RIOT_FORMATS_LOG_CODEC_H
#define RIOT_FORMATS_LOG_CODEC_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"

/* ---- framing ---- */

#define LOG_MAGIC		"RIOTLOG\0"
#define LOG_MAGIC_LEN		8
#define LOG_HDR_FIXED		16	/* magic, u16 major, u16 minor, u32 len */
#define LOG_HDR_PAYLOAD_MAX	(1u << 20)

#define BLK_MAGIC		"RBLK"
#define END_MAGIC		"REND"
#define FRAME_MAGIC_LEN		4
#define BLK_HDR_SIZE		32
#define BLK_HDR_CRC_OFF		28	/* the header CRC covers bytes 0..27 */
#define BLK_RAW_MAX		(16u << 20)
#define BLK_BYTES_DEFAULT	(256u << 10)
#define BLK_BYTES_MAX		(8u << 20)
#define BLK_REC_MAX		(1u << 16)	/* records one block may hold */
#define END_PAYLOAD_MAX		(1u << 20)
#define END_FLAG_CLEAN		1u

#define STR_MAX			((unsigned)RIOT_STR_LEN_MAX)	/* log.h */
#define BLK_STR_MAX		16384u	/* strings one block may define */
#define LOG_TYPES_MAX		256u	/* record types are u8 on the wire */
#define LOG_SYS_MAX		65536u	/* syscall ids are u16 */

/* Header TLV keys (FORMAT.md, "File header"). */
enum log_tlv {
	TLV_HOST = 1,
	TLV_KERNEL = 2,
	TLV_ARCH = 3,
	TLV_RIOT_VERSION = 4,
	TLV_CMDLINE = 5,
	TLV_OPTIONS = 6,
	TLV_TARGET = 7,
	TLV_BOOT_TO_WALL = 8,	/* zigzag varint */
	TLV_START_T = 9,	/* varint */
	TLV_CAPTURE_ID = 10,	/* string (minor 6) */
	TLV_SEGMENT = 11,	/* varint (minor 6) */
	TLV_RESTATED = 12,	/* varint (minor 6) */
	TLV_PROBE_NS = 13,	/* varint (minor 7) */
	TLV_PROBE_CALLS = 14,	/* varint (minor 7) */
	TLV_PROBE_UNTRACED = 15,	/* varint (minor 7) */
	TLV_PROBE_RECORDED = 16,	/* varint (minor 7) */
	TLV_FALLBACKS = 17,	/* string (minor 8) */
};

/* ---- block streams and fields ---- */

enum {
	STREAM_TYPE = 0,
	STREAM_MASK = 1,
	STREAM_BLOB = 2,
	STREAM_FIELD0 = 3,	/* field k lives in stream 3 + k */
};
#define FIELD_MAX		64	/* bits of the presence mask */
#define STREAMS_MAX		(STREAM_FIELD0 + FIELD_MAX)

/* Field k always goes to stream 3 + k whatever the record type, so the
 * meaning of an index is per type but the stream it uses is not. Fields 0-2
 * mean the same for every type (a reader skips unknown types with them). */
enum log_field {
	F_BLOB = 0,	/* bytes this record owns in the blob stream */
	F_TIME = 1,	/* zigzag(t - predicted t) */
	F_DUR = 2,	/* duration: the record ends at t + dur */
	F_KIND = 3,	/* syscall id / proc kind / drop cpu / string flags */
	F_TID = 4,
	F_PID = 5,	/* zigzag(pid - tid) (snap: ppid - pid) */
	F_RET = 6,	/* zigzag(ret - predicted ret); proc: exit code */
	F_FD = 7,	/* F_FD..F_VALUE: RIOT_HAS_x is field x + 7 */
	F_FD2 = 8,
	F_DIRFD = 9,
	F_DIRFD2 = 10,
	F_PATH = 11,
	F_PATH2 = 12,
	F_OFF = 13,
	F_OFF2 = 14,
	F_COUNT = 15,
	F_FLAGS = 16,
	F_MODE = 17,
	F_CMD = 18,
	F_ARG = 19,
	F_IOVCNT = 20,
	F_UID = 21,
	F_GID = 22,
	F_SIZE = 23,
	F_FTYPE = 24,
	F_INO = 25,
	F_DEV = 26,
	F_CREATED = 27,
	F_PERM = 28,	/* minor 1 */
	F_VALUE = 29,	/* minor 1: value bytes, in the blob */
	F_CTX = 30,	/* minor 5: an asynchronous request's context */
	F_KNOWN = 31	/* fields this version names */
};
/* Format 2: the streams of the time fields hold byte planes, not varints
 * (FORMAT.md, "Plane streams"): their low bytes are clock noise, stored
 * apart from the high bytes, which compress. */
#define PLANE_FIELDS	2	/* F_TIME and F_DUR: field F_TIME + index */
#define PLANE_BYTES	8	/* planes of a 64-bit value */
#define PLANE_MASK	((1ull << F_TIME) | (1ull << F_DUR))
#define FMT_MAJOR_PLANES 2	/* the first major version that has them */

#define SC_HAS_SHIFT	7
#define SC_HAS_ALL	((1u << 24) - 1)
#define SC_REQUIRED	((1ull << F_TIME) | (1ull << F_DUR) | (1ull << F_KIND) | \
			 (1ull << F_TID) | (1ull << F_PID) | (1ull << F_RET))
#define STRING_TRUNCATED 1u	/* F_KIND bit of a STRING record */

/* Type of the record that opens every block from format 1.2 on: its F_KIND
 * holds the block's index in the file, so blocks moved, swapped or copied
 * are refused. The reader checks and consumes it; callers never see it. */
#define REC_BLOCK_SEQ	7
#define FMT_MINOR_BLOCK_SEQ 2	/* the first minor version that has it */
#define FMT_MINOR_END_SECTIONS 3	/* the first minor version with end sections */

/* ---- predictors: reset at every block start ----
 *
 * Both sides run the same predictors over the same decoded values, so the
 * writer stores only the error of each prediction (FORMAT.md,
 * "Predictors"). */

#define PRED_SLOTS 64
#define TIME_BITS ((1ull << F_TIME) | (1ull << F_DUR) | (1ull << F_TID))

/* Per thread (field 4): where its last record ended, its pid and fd. */
struct task_slot {
	bool used;
	uint64_t tid;
	uint64_t end;
	uint32_t pid;
	int32_t fd;
};

/* Per open file (pid, fd): where sequential access goes next, and the
 * request size last used on it. */
struct file_slot {
	bool used;
	uint32_t pid;
	int32_t fd;
	uint64_t next;
	uint64_t count;
};

struct log_pred {
	uint64_t prev_end;	/* where the previous timed record ended */
	struct task_slot task[PRED_SLOTS];
	struct file_slot file[PRED_SLOTS];
};

static inline void pred_reset(struct log_pred *p, uint64_t first_t)
{
	memset(p, 0, sizeof(*p));
	p->prev_end = first_t;
}

/* The slot of thread tid; a slot held by another thread is taken over and
 * starts from the previous record's end, pid = tid, fd 0. */
static inline struct task_slot *pred_task(struct log_pred *p, uint64_t tid)
{
	struct task_slot *s = &p->task[tid % PRED_SLOTS];

	if (!s->used || s->tid != tid)
		*s = (struct task_slot){ true, tid, p->prev_end, (uint32_t)tid, 0 };
	return s;
}

static inline void pred_task_end(struct log_pred *p, struct task_slot *s,
				 uint64_t end)
{
	s->end = end;
	p->prev_end = end;
}

static inline struct file_slot *pred_file(struct log_pred *p, uint32_t pid,
					  int32_t fd)
{
	uint32_t h = pid * 0x9e3779b1u + (uint32_t)fd * 0x85ebca6bu;
	struct file_slot *s = &p->file[h >> 26];

	if (!s->used || s->pid != pid || s->fd != fd)
		*s = (struct file_slot){ true, pid, fd, 0, 0 };
	return s;
}

/* ---- integers ---- */

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t u)
{
	return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

/* a - b as a signed difference, wrapping instead of overflowing. */
static inline uint64_t zz_diff(uint64_t a, uint64_t b)
{
	return zz_enc((int64_t)(a - b));
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* ---- growable byte buffers (writer side) ---- */

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static inline int bytes_reserve(struct bytes *b, size_t more)
{
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < more)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* Caller has reserved 10 bytes. */
static inline void put_varint_raw(struct bytes *b, uint64_t v)
{
	uint8_t *p = b->p + b->len;

	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->p);
}

static inline int put_varint(struct bytes *b, uint64_t v)
{
	int rc = bytes_reserve(b, 10);

	if (rc)
		return rc;
	put_varint_raw(b, v);
	return 0;
}

static inline int put_mem(struct bytes *b, const void *src, size_t n)
{
	int rc = bytes_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

/* ---- bounded reading (reader side) ---- */

struct cursor {
	const uint8_t *p, *end;
};

/* 0, or -EBADMSG on a varint running past the end or beyond 64 bits. */
static inline int get_varint(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end)
			return -EBADMSG;
		uint8_t byte = *c->p++;
		if (shift == 63 && byte > 1)
			return -EBADMSG;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -EBADMSG;
}

#endif
