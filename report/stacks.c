/* report/stacks.c: a run's calls as flamegraph stacks (report_int.h):
 * comm, then syscall, then the components of the call's path. The
 * accumulator adds each call to its (comm, syscall, path id) key; the
 * stacks are made into text, capped and folded only when written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"
#include "lib/grow.h"
#include "model/model.h"
#include "report/report_int.h"

const char *const stack_weight_names[STACK_WEIGHTS] = {
	[STACK_COUNT] = "count", [STACK_TIME] = "time", [STACK_BYTES] = "bytes",
};

#define COMM_OTHER 0xffffu		/* comm ids past the key's 16 bits */
#define PATH_OTHER UINT32_MAX		/* keys past RUN_STACKS_HELD */

void stacks_init(struct stack_set *s)
{
	memset(s, 0, sizeof(*s));
	s->seed = map_seed();
	map_init(&s->ix, s->seed);
	map_init(&s->comm_ix, s->seed);
}

void stacks_fini(struct stack_set *s)
{
	for (uint32_t i = 0; i < s->ncomms; i++)
		free(s->comms[i]);
	free(s->comms);
	free(s->v);
	map_fini(&s->ix);
	map_fini(&s->comm_ix);
}

uint32_t stacks_comm(struct stack_set *s, const char *comm)
{
	size_t len = strlen(comm);
	uint64_t h = hash_bytes(comm, len, s->seed), *v;
	uint32_t pos = 0;

	while ((v = map_next(&s->comm_ix, h, &pos)))
		if (strcmp(s->comms[*v], comm) == 0)
			return (uint32_t)*v + 1;
	if (s->ncomms >= COMM_OTHER - 1)
		return COMM_OTHER;
	if (GROW(s->comms, s->comms_cap, (size_t)s->ncomms + 1, 16) < 0)
		return 0;
	s->comms[s->ncomms] = strdup(comm);
	if (!s->comms[s->ncomms] || map_add(&s->comm_ix, h, s->ncomms)) {
		free(s->comms[s->ncomms]);
		return 0;
	}
	return ++s->ncomms;
}

int stacks_add(struct stack_set *s, uint32_t comm, unsigned sys, uint32_t path_id,
	       uint64_t lat_ns, uint64_t bytes)
{
	uint64_t key = (uint64_t)comm << 48 | (uint64_t)sys << 32 | path_id, *ix;
	struct stack_acc *e;

	ix = map_get(&s->ix, key);
	if (!ix && s->n >= RUN_STACKS_HELD) {	/* the rest of this stack's paths */
		key = (uint64_t)comm << 48 | (uint64_t)sys << 32 | PATH_OTHER;
		ix = map_get(&s->ix, key);
	}
	if (!ix) {
		if (GROW(s->v, s->cap, (size_t)s->n + 1, 256) < 0 || map_put(&s->ix, key, s->n))
			return -ENOMEM;
		s->v[s->n] = (struct stack_acc){ .key = key };
		ix = map_get(&s->ix, key);
		s->n++;
	}
	e = &s->v[*ix];
	e->w[STACK_COUNT]++;
	e->w[STACK_TIME] += lat_ns;
	e->w[STACK_BYTES] += bytes;
	return 0;
}

/* ---- text ---- */

struct buf {
	char *s;
	size_t len, cap;
	int err;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (GROW(b->s, b->cap, b->len + n + 1, 256) < 0) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* A frame: its bytes, ';' (the separator) and control bytes as '?'. */
static void put_frame(struct buf *b, const char *s, size_t n)
{
	size_t at = b->len;

	if (b->len)
		put(b, ";", 1);
	at = b->len;
	put(b, s, n);
	for (size_t i = at; !b->err && i < b->len; i++) {
		unsigned char c = (unsigned char)b->s[i];

		if (c == ';' || c < 0x20 || c == 0x7f)
			b->s[i] = '?';
	}
}

static void put_path(struct buf *b, const char *p)
{
	const char *end;

	if (*p != '/') {		/* a pipe:[..], anon_inode:...: one frame */
		put_frame(b, p, strlen(p));
		return;
	}
	if (!p[1]) {
		put_frame(b, "/", 1);
		return;
	}
	while (*p) {
		p++;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		if (end > p)
			put_frame(b, p, (size_t)(end - p));
		p = end;
	}
}

/* The text of a stack into b (emptied first). */
static void stack_text(const struct stack_set *s, const struct model *m, uint64_t key,
		       struct buf *b)
{
	uint32_t comm = (uint32_t)(key >> 48), path = (uint32_t)key;
	const struct riot_sys_info *si = riot_sys_info((unsigned)(key >> 32 & 0xffff));
	const char *c = comm == COMM_OTHER ? STACK_OTHER : comm ? s->comms[comm - 1] : "?";
	const char *p;

	b->len = 0;
	put_frame(b, c, strlen(c));
	put_frame(b, si ? si->name : "?", strlen(si ? si->name : "?"));
	if (path == PATH_OTHER) {
		put_frame(b, STACK_OTHER, strlen(STACK_OTHER));
	} else if (path) {
		p = m ? model_path(m, path) : NULL;
		if (p)
			put_path(b, p);
		else
			put_frame(b, "?", 1);
	}
}

/* ---- folding ---- */

/* The stacks written: each distinct text once, its weights summed. */
struct out_set {
	struct stack_folded *v;
	size_t n, cap;
	struct u64map ix;		/* hash of the text -> indexes */
	uint64_t seed;
};

static int out_add(struct out_set *o, const char *s, size_t len, const uint64_t *w)
{
	uint64_t h = hash_bytes(s, len, o->seed), *v;
	uint32_t pos = 0;
	struct stack_folded *f;

	while ((v = map_next(&o->ix, h, &pos))) {
		f = &o->v[*v];
		if (strcmp(f->stack, s) == 0)
			goto add;
	}
	if (GROW(o->v, o->cap, o->n + 1, 64) < 0 || map_add(&o->ix, h, o->n))
		return -ENOMEM;
	f = &o->v[o->n];
	memset(f, 0, sizeof(*f));
	f->stack = strndup(s, len);
	if (!f->stack)
		return -ENOMEM;
	o->n++;
add:
	for (unsigned k = 0; k < STACK_WEIGHTS; k++)
		f->w[k] += w[k];
	return 0;
}

static const struct stack_acc *sort_base;
static unsigned sort_weight;

/* Heaviest first; ties by key, so the cut does not depend on the map. */
static int by_weight(const void *x, const void *y)
{
	const struct stack_acc *a = &sort_base[*(const uint32_t *)x];
	const struct stack_acc *b = &sort_base[*(const uint32_t *)y];

	if (a->w[sort_weight] != b->w[sort_weight])
		return a->w[sort_weight] < b->w[sort_weight] ? 1 : -1;
	return (a->key > b->key) - (a->key < b->key);
}

static int by_text(const void *x, const void *y)
{
	return strcmp(((const struct stack_folded *)x)->stack,
		      ((const struct stack_folded *)y)->stack);
}

/* Marks in keep[] the max heaviest stacks by each weight of mask. */
static int pick(const struct stack_set *s, unsigned mask, uint32_t max, uint8_t *keep)
{
	uint32_t *order = malloc(sizeof(*order) * (s->n ? s->n : 1));

	if (!order)
		return -ENOMEM;
	for (unsigned k = 0; k < STACK_WEIGHTS; k++) {
		if (!(mask >> k & 1))
			continue;
		for (uint32_t i = 0; i < s->n; i++)
			order[i] = i;
		sort_base = s->v;
		sort_weight = k;
		qsort(order, s->n, sizeof(*order), by_weight);
		for (uint32_t i = 0; i < s->n && i < max; i++)
			if (s->v[order[i]].w[k])
				keep[order[i]] = 1;
	}
	free(order);
	return 0;
}

/* Every frame sequence the kept stacks begin with, by hash. */
static int note_prefixes(struct u64map *pre, const struct buf *b, uint64_t seed)
{
	for (size_t i = 1; i <= b->len; i++)
		if ((i == b->len || b->s[i] == ';') && map_put(pre, hash_bytes(b->s, i, seed), 1))
			return -ENOMEM;
	return 0;
}

/* A dropped stack folded: its longest beginning that a kept stack has
 * too, then (other); a stack a kept one begins with stays as it is. */
static int fold_one(struct out_set *o, const struct u64map *pre, struct buf *b,
		    const uint64_t *w, uint64_t seed)
{
	size_t j = b->len;

	if (map_get(pre, hash_bytes(b->s, b->len, seed)))
		return out_add(o, b->s, b->len, w);
	/* frames hold no ';': each one ends a beginning */
	while (j > 0) {
		j--;
		while (j > 0 && b->s[j] != ';')
			j--;
		if (j > 0 && map_get(pre, hash_bytes(b->s, j, seed)))
			break;
	}
	b->len = j;
	put_frame(b, STACK_OTHER, strlen(STACK_OTHER));
	return b->err ? b->err : out_add(o, b->s, b->len, w);
}

int stacks_fold(const struct stack_set *s, const struct model *m, unsigned mask, uint32_t max,
		struct stack_folded **out, size_t *nout)
{
	uint8_t *keep = calloc(s->n ? s->n : 1, 1);
	struct out_set o = { .seed = s->seed };
	struct u64map pre;
	struct buf b = { 0 };
	int rc;

	map_init(&pre, s->seed);
	map_init(&o.ix, s->seed);
	rc = keep ? pick(s, mask, max ? max : 1, keep) : -ENOMEM;
	for (uint32_t i = 0; i < s->n && !rc; i++) {
		if (!keep[i])
			continue;
		stack_text(s, m, s->v[i].key, &b);
		rc = b.err ? b.err : out_add(&o, b.s, b.len, s->v[i].w);
		if (!rc)
			rc = note_prefixes(&pre, &b, s->seed);
	}
	for (uint32_t i = 0; i < s->n && !rc; i++) {
		if (keep[i])
			continue;
		stack_text(s, m, s->v[i].key, &b);
		rc = b.err ? b.err : fold_one(&o, &pre, &b, s->v[i].w, s->seed);
	}
	free(keep);
	free(b.s);
	map_fini(&pre);
	map_fini(&o.ix);
	if (rc) {
		stacks_folded_free(o.v, o.n);
		return rc;
	}
	qsort(o.v, o.n, sizeof(*o.v), by_text);
	*out = o.v;
	*nout = o.n;
	return 0;
}

void stacks_folded_free(struct stack_folded *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].stack);
	free(v);
}
