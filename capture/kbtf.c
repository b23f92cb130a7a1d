/* capture/kbtf.c: the few facts capture asks of the kernel's BTF, read as
 * a stream (capture_int.h).
 *
 * libbpf parses the whole of it: reads 5-6 MB into one buffer, copies it,
 * indexes every type. Capture's start-up did that once for these
 * questions and libbpf again to load: 11 MB of fresh memory twice, whose
 * first touch is most of the cost (a fault a page). Here the strings are
 * read once to find the names asked for, then the types once in a 64 KiB
 * window; what is kept is the kind and the one reference of each type
 * (4 bytes a type), to follow a typedef to the function it points to. */
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture_int.h"

#define WINDOW (64u << 10)

/* A section of the file, read through a window. */
struct stream {
	int fd;
	uint64_t pos, end;	/* the file offset of buf[len], the section's end */
	uint8_t *buf;
	size_t at, len;		/* consumed, held */
};

/* Makes need bytes available at buf + at: 0, -EINVAL past the section's
 * end, or the read's -errno. */
static int need(struct stream *s, size_t n)
{
	if (s->len - s->at >= n)
		return 0;
	if (n > WINDOW)
		return -EINVAL;
	memmove(s->buf, s->buf + s->at, s->len - s->at);
	s->len -= s->at;
	s->at = 0;
	while (s->len < n) {
		size_t want = WINDOW - s->len;
		ssize_t got;

		if (want > s->end - s->pos)
			want = (size_t)(s->end - s->pos);
		if (!want)
			return -EINVAL;
		got = pread(s->fd, s->buf + s->len, want, (off_t)s->pos);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EINVAL;
		s->len += (size_t)got;
		s->pos += (uint64_t)got;
	}
	return 0;
}

static int skip(struct stream *s, uint64_t n)
{
	while (n) {
		size_t held = s->len - s->at;

		if (n <= held) {
			s->at += n;
			return 0;
		}
		n -= held;
		s->at = s->len;
		if (n > s->end - s->pos)
			return -EINVAL;
		/* whole windows are not read: the offset moves past them */
		uint64_t jump = n - n % WINDOW;
		s->pos += jump;
		n -= jump;
		if (n) {
			int rc = need(s, (size_t)n);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Whether the len bytes at p are name: most strings differ at once. */
static bool is_name(const char *p, size_t len, const char *name)
{
	return p[0] == name[0] && !strncmp(p, name, len + 1);
}

static bool at_end(const struct stream *s)
{
	return s->at == s->len && s->pos == s->end;
}

/* The offsets in the string section of each name asked for (UINT32_MAX:
 * absent), and of q->member for an enum. */
static int find_names(struct stream *s, const struct kbtf_query *q, unsigned n,
		      uint32_t *name_off, uint32_t *member_off)
{
	uint64_t lens = 0;	/* bit len % 64 set: a name of that length is asked */
	uint32_t off = 0;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		name_off[i] = member_off[i] = UINT32_MAX;
		lens |= 1ull << (strlen(q[i].name) % 64);
		if (q[i].member)
			lens |= 1ull << (strlen(q[i].member) % 64);
	}
	while (!at_end(s)) {
		const char *p, *nul;
		size_t len;

		if ((rc = need(s, 1)))
			return rc;
		p = (const char *)s->buf + s->at;
		nul = memchr(p, 0, s->len - s->at);
		if (!nul) {	/* the string goes on past the window */
			if ((rc = need(s, s->len - s->at + 1)))
				return rc;
			continue;
		}
		len = (size_t)(nul - p);
		for (unsigned i = 0; (lens >> (len % 64) & 1) && i < n; i++) {
			if (name_off[i] == UINT32_MAX && is_name(p, len, q[i].name))
				name_off[i] = off;
			if (q[i].member && member_off[i] == UINT32_MAX &&
			    is_name(p, len, q[i].member))
				member_off[i] = off;
		}
		s->at += len + 1;
		off += (uint32_t)(len + 1);
	}
	return 0;
}

/* The bytes that follow a type's struct btf_type; -1: a kind unknown. */
static int64_t type_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case 17:	/* BTF_KIND_DECL_TAG */
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case 18:	/* BTF_KIND_TYPE_TAG */
		return 0;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case 19:	/* BTF_KIND_ENUM64 */
		return 12 * (int64_t)vlen;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8 * (int64_t)vlen;
	default:
		return -1;
	}
}

/* What is kept of each type: its kind in the top 5 bits, below them the
 * type it refers to (a pointer, typedef or modifier) or its vlen (a
 * function prototype). */
#define REF_BITS 27
#define REF_MASK ((1u << REF_BITS) - 1)

static bool is_modifier(uint32_t kind)
{
	return kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_CONST || kind == BTF_KIND_RESTRICT || kind == 18;
}

/* A typedef's tracepoint arguments: the typedef names a pointer (through
 * modifiers) to a prototype; its parameters, or -1. */
static int tp_args(const uint32_t *ref, uint32_t ntypes, uint32_t id)
{
	uint32_t kind = BTF_KIND_TYPEDEF;

	for (unsigned hops = 0; is_modifier(kind) && hops < 32; hops++) {
		id = ref[id] & REF_MASK;
		if (!id || id >= ntypes)
			return -1;
		kind = ref[id] >> REF_BITS;
	}
	if (kind != BTF_KIND_PTR)
		return -1;
	id = ref[id] & REF_MASK;
	if (!id || id >= ntypes || ref[id] >> REF_BITS != BTF_KIND_FUNC_PROTO)
		return -1;
	return (int)(ref[id] & REF_MASK);
}

/* The types, once: each asked-for name's first type of its kind; an
 * enum's members looked through. */
static int read_types(struct stream *s, struct kbtf_query *q, unsigned n,
		      const uint32_t *name_off, const uint32_t *member_off,
		      uint32_t **refp, uint32_t *ntypes, uint32_t *ids)
{
	size_t cap = 4096;
	uint32_t *ref = malloc(cap * sizeof(*ref)), id = 1;
	uint64_t offs = 0;	/* bit name_off % 64 set: a name asked is there */
	int rc = 0;

	for (unsigned i = 0; i < n; i++)
		if (name_off[i] != UINT32_MAX)
			offs |= 1ull << (name_off[i] % 64);

	if (!ref)
		return -ENOMEM;
	ref[0] = 0;	/* void */
	while (!rc && !at_end(s)) {
		struct btf_type t;
		uint32_t kind, vlen;
		int64_t extra;

		if ((rc = need(s, sizeof(t))))
			break;
		memcpy(&t, s->buf + s->at, sizeof(t));
		s->at += sizeof(t);
		kind = (t.info >> 24) & 0x1f;
		vlen = t.info & 0xffff;
		if ((extra = type_extra(kind, vlen)) < 0 || id > REF_MASK) {
			rc = -EINVAL;
			break;
		}
		if (id == cap) {
			uint32_t *r = realloc(ref, 2 * cap * sizeof(*ref));

			if (!r) {
				rc = -ENOMEM;
				break;
			}
			ref = r;
			cap *= 2;
		}
		ref[id] = kind << REF_BITS |
			  (kind == BTF_KIND_FUNC_PROTO ? vlen : t.type & REF_MASK);
		bool members = false;

		for (unsigned i = 0; (offs >> (t.name_off % 64) & 1) && i < n; i++) {
			if (ids[i] || t.name_off != name_off[i] || kind != q[i].kind)
				continue;
			ids[i] = id;
			members |= kind == BTF_KIND_ENUM && q[i].member;
		}
		if (members) {	/* an enum's members looked through, once */
			for (uint32_t k = 0; k < vlen && !rc; k++) {
				uint32_t m;

				if ((rc = need(s, 8)))
					break;
				memcpy(&m, s->buf + s->at, 4);
				s->at += 8;
				for (unsigned i = 0; i < n; i++)
					if (ids[i] == id && q[i].member && m == member_off[i])
						q[i].found = 1;
			}
			extra = 0;
		}
		if (!rc)
			rc = skip(s, (uint64_t)extra);
		id++;
	}
	*refp = ref;
	*ntypes = id;
	return rc;
}

static void absent(struct kbtf_query *q, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		q[i].found = q[i].kind == BTF_KIND_TYPEDEF ? -1 : 0;
}

int kbtf_scan(const char *path, struct kbtf_query *q, unsigned n)
{
	struct btf_header h;
	struct stream s = { .fd = -1 };
	uint32_t *name_off = NULL, *member_off = NULL, *ids = NULL, *ref = NULL, ntypes = 0;
	int rc = 0;

	absent(q, n);
	s.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s.fd < 0)
		return -errno;
	name_off = malloc(n * sizeof(*name_off));
	member_off = malloc(n * sizeof(*member_off));
	ids = calloc(n, sizeof(*ids));
	s.buf = malloc(WINDOW);
	if (!name_off || !member_off || !ids || !s.buf) {
		rc = -ENOMEM;
		goto out;
	}
	s.end = sizeof(h);
	if ((rc = need(&s, sizeof(h))))
		goto out;
	memcpy(&h, s.buf, sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < sizeof(h)) {
		rc = -EINVAL;
		goto out;
	}
	/* the strings, then the types: two sections of the file */
	s = (struct stream){ .fd = s.fd, .buf = s.buf,
			     .pos = (uint64_t)h.hdr_len + h.str_off,
			     .end = (uint64_t)h.hdr_len + h.str_off + h.str_len };
	if ((rc = find_names(&s, q, n, name_off, member_off)))
		goto out;
	s = (struct stream){ .fd = s.fd, .buf = s.buf,
			     .pos = (uint64_t)h.hdr_len + h.type_off,
			     .end = (uint64_t)h.hdr_len + h.type_off + h.type_len };
	if ((rc = read_types(&s, q, n, name_off, member_off, &ref, &ntypes, ids)))
		goto out;
	for (unsigned i = 0; i < n; i++) {
		if (q[i].kind == BTF_KIND_TYPEDEF)
			q[i].found = ids[i] ? tp_args(ref, ntypes, ids[i]) : -1;
		else if (q[i].kind != BTF_KIND_ENUM || !q[i].member)
			q[i].found = ids[i] != 0;
	}
out:
	if (rc)
		absent(q, n);
	free(ref);
	free(ids);
	free(member_off);
	free(name_off);
	free(s.buf);
	close(s.fd);
	return rc;
}
