/* top/agg.c: the summaries riot top draws, fed every record in log order
 * (top_int.h). Memory is fixed once the tables are full: per syscall and
 * class a row each, heavy hitters for files, processes and stacks, a ring
 * of the last events and of the last seconds; only the resolver
 * (model/) grows, with the distinct paths, up to its own limit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "top/top_int.h"

/* ---- histograms ---- */

static unsigned bucket(uint64_t v)
{
	unsigned e;

	if (v < TOP_HIST_SUB)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);	/* >= 2 */
	return TOP_HIST_SUB + (e - 2) * TOP_HIST_SUB +
	       (unsigned)((v >> (e - 2)) & (TOP_HIST_SUB - 1));
}

static uint64_t bucket_high(unsigned b)
{
	unsigned e, sub;

	if (b < TOP_HIST_SUB)
		return b;
	e = (b - TOP_HIST_SUB) / TOP_HIST_SUB + 2;
	sub = (b - TOP_HIST_SUB) % TOP_HIST_SUB;
	if (e == 63 && sub == TOP_HIST_SUB - 1)
		return UINT64_MAX;
	return ((uint64_t)(TOP_HIST_SUB + sub + 1) << (e - 2)) - 1;
}

static inline void hist_add(struct top_hist *h, uint64_t v)
{
	h->n++;
	h->b[bucket(v)]++;
	if (v > h->max)
		h->max = v;
}

void top_hist_add(struct top_hist *h, uint64_t v)
{
	hist_add(h, v);
}

/* v, counted w times (a sampled call). */
static void hist_addn(struct top_hist *h, uint64_t v, uint32_t w)
{
	h->n += w;
	h->b[bucket(v)] += w;
	if (v > h->max)
		h->max = v;
}

void top_hist_merge(struct top_hist *into, const struct top_hist *h)
{
	into->n += h->n;
	if (h->max > into->max)
		into->max = h->max;
	for (unsigned b = 0; b < TOP_HIST_BUCKETS; b++)
		into->b[b] += h->b[b];
}

uint64_t top_hist_q(const struct top_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)(q * (double)h->n);
	if (rank >= h->n)
		rank = h->n - 1;
	for (unsigned b = 0; b < TOP_HIST_BUCKETS; b++) {
		seen += h->b[b];
		if (seen > rank) {
			uint64_t hi = bucket_high(b);

			return hi < h->max ? hi : h->max;
		}
	}
	return h->max;
}

void top_hist_log2(const struct top_hist *h, uint64_t out[64])
{
	memset(out, 0, 64 * sizeof(out[0]));
	for (unsigned b = 0; b < TOP_HIST_BUCKETS; b++) {
		uint64_t lo = b < TOP_HIST_SUB ? b : bucket_high(b - 1) + 1;
		unsigned k = lo < 2 ? 0 : 63 - (unsigned)__builtin_clzll(lo);

		out[k] += h->b[b];
	}
}

/* ---- classes ---- */

static const char *const class_names[TOP_NCLASS] = {
	"read", "write", "sync", "metadata", "directory", "other",
};

const char *top_class_name(unsigned c)
{
	return c < TOP_NCLASS ? class_names[c] : "?";
}

unsigned top_class_of(unsigned sys)
{
	const struct riot_sys_info *si = riot_sys_info(sys);

	if (!si)
		return TOP_OTHER;
	switch (si->cls) {
	case RIOT_CLASS_DATA_READ: return TOP_READ;
	case RIOT_CLASS_DATA_WRITE: case RIOT_CLASS_DATA_COPY: return TOP_WRITE;
	case RIOT_CLASS_SYNC: return TOP_SYNC;
	case RIOT_CLASS_DIR: return TOP_DIR;
	case RIOT_CLASS_OPEN: case RIOT_CLASS_FD: case RIOT_CLASS_STAT:
	case RIOT_CLASS_NAMESPACE: case RIOT_CLASS_CWD: case RIOT_CLASS_ATTR:
	case RIOT_CLASS_XATTR:
		return TOP_META;
	default:
		return TOP_OTHER;
	}
}

/* What the path every call takes needs of a syscall, looked up once per
 * syscall rather than per call: its top_class in the low bits, and: */
enum {
	FACT_BYTES = 1u << 3,	/* its result counts bytes moved */
	FACT_ASYNC = 1u << 4,	/* an asynchronous request */
	FACT_TABLES = 1u << 5,	/* it may change the resolver's tables */
	FACT_CLASS = 7u,
};
static uint8_t sys_facts[RIOT_SYS_COUNT + 1];	/* [RIOT_SYS_COUNT]: unknown */

static void facts_init(void)
{
	for (unsigned s = 0; s <= RIOT_SYS_COUNT; s++) {
		const struct riot_sys_info *si = s < RIOT_SYS_COUNT ? riot_sys_info(s) : NULL;
		struct riot_syscall sc = { .sys = (uint16_t)s };
		unsigned f = top_class_of(s);

		if (si && (si->cls == RIOT_CLASS_DATA_READ || si->cls == RIOT_CLASS_DATA_WRITE ||
			   si->cls == RIOT_CLASS_DATA_COPY))
			f |= FACT_BYTES;
		if (si && (si->flags & RIOT_SF_ASYNC))
			f |= FACT_ASYNC;
		if (!si || model_changes_tables(&sc))
			f |= FACT_TABLES;
		sys_facts[s] = (uint8_t)f;
	}
}

static unsigned facts_of(unsigned sys)
{
	return sys_facts[sys < RIOT_SYS_COUNT ? sys : RIOT_SYS_COUNT];
}

/* ---- heavy hitters ---- */

#define HH_SAMPLE 8	/* rows looked at to pick one to replace */

static int hh_init(struct top_hh *h, uint32_t cap, uint64_t seed)
{
	memset(h, 0, sizeof(*h));
	h->rows = calloc(cap, sizeof(*h->rows));
	if (!h->rows)
		return -ENOMEM;
	h->cap = cap;
	h->rng = seed | 1;
	map_init(&h->idx, seed);
	return 0;
}

static void hh_clear(struct top_hh *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		free(h->rows[i].text);
	memset(h->rows, 0, (size_t)h->cap * sizeof(*h->rows));
	h->n = 0;
	h->evicted = 0;
	memset(h->memo, 0, sizeof(h->memo));
	map_clear(&h->idx);
}

/* Frees without clearing: rows never touched stay untouched (a clear
 * would fault every page of them in on the way out). */
static void hh_fini(struct top_hh *h)
{
	if (!h->rows)
		return;
	for (uint32_t i = 0; i < h->n; i++)
		free(h->rows[i].text);
	free(h->rows);
	map_fini(&h->idx);
}

static uint64_t hh_hash(uint64_t key, uint64_t key2)
{
	uint64_t k[2] = { key, key2 };

	return hash_bytes(k, sizeof(k), 0x746f70);
}

static uint32_t hh_rand(struct top_hh *h)
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 7;
	h->rng ^= h->rng << 17;
	return (uint32_t)h->rng;
}

/* The row of (key, key2), made when new (*fresh set: the caller fills its
 * identity); NULL on ENOMEM. */
static unsigned hh_memo_slot(uint64_t key, uint64_t key2)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull ^ key2 * 0xc2b2ae3d27d4eb4full) >> 58);
}

static struct top_row *hh_row(struct top_hh *h, uint64_t key, uint64_t key2, bool *fresh)
{
	uint32_t m = h->memo[hh_memo_slot(key, key2)];
	uint64_t hv, *slot;
	uint32_t pos = 0, i, victim;
	struct top_row *r;

	if (m && m <= h->n && h->rows[m - 1].key == key && h->rows[m - 1].key2 == key2) {
		*fresh = false;
		return &h->rows[m - 1];
	}
	hv = hh_hash(key, key2);

	*fresh = false;
	while ((slot = map_next(&h->idx, hv, &pos))) {
		r = &h->rows[*slot - 1];
		if (r->key == key && r->key2 == key2) {
			h->memo[hh_memo_slot(key, key2)] = (uint32_t)*slot;
			return r;
		}
	}
	if (h->n < h->cap) {
		i = h->n++;
		r = &h->rows[i];
		memset(r, 0, sizeof(*r));
	} else {
		/* the least counted of a few rows: over many replacements the
		 * rows counted most stay */
		victim = hh_rand(h) % h->cap;
		for (unsigned k = 1; k < HH_SAMPLE; k++) {
			uint32_t c = hh_rand(h) % h->cap;

			if (h->rows[c].count < h->rows[victim].count)
				victim = c;
		}
		i = victim;
		r = &h->rows[i];
		pos = 0;
		uint64_t old = hh_hash(r->key, r->key2);

		while ((slot = map_next(&h->idx, old, &pos))) {
			if (*slot == i + 1) {
				map_del_at(&h->idx, (uint32_t)(slot - h->idx.vals));
				break;
			}
		}
		uint64_t over = r->count;

		free(r->text);
		memset(r, 0, sizeof(*r));
		r->over = over;
		r->count = over;
		h->evicted++;
	}
	if (map_add(&h->idx, hv, i + 1))
		return NULL;
	r->key = key;
	r->key2 = key2;
	h->memo[hh_memo_slot(key, key2)] = i + 1;
	*fresh = true;
	return r;
}

/* ---- the aggregate ---- */

int top_agg_init(struct top_agg *a)
{
	uint64_t seed = map_seed();

	memset(a, 0, sizeof(*a));
	facts_init();	/* the same facts each time */
	a->m = model_new();
	a->ev = calloc(TOP_EVENTS, sizeof(*a->ev));
	a->comms = calloc(TOP_COMMS, sizeof(*a->comms));
	a->tid_end = calloc(TOP_TIDS, sizeof(*a->tid_end));
	a->pend = malloc(TOP_PEND * sizeof(*a->pend));
	a->every = a->countdown = 1;
	map_init(&a->comm_of, seed);
	map_init(&a->comm_idx, seed);
	if (!a->m || !a->ev || !a->comms || !a->tid_end || !a->pend || hh_init(&a->files, TOP_FILES, seed) ||
	    hh_init(&a->procs_hh, TOP_PROCS, seed + 1) || hh_init(&a->stacks, TOP_STACKS, seed + 2)) {
		top_agg_fini(a);
		return -ENOMEM;
	}
	return 0;
}

void top_agg_fini(struct top_agg *a)
{
	if (a->m)
		model_free(a->m);
	hh_fini(&a->files);
	hh_fini(&a->procs_hh);
	hh_fini(&a->stacks);
	map_fini(&a->comm_of);
	map_fini(&a->comm_idx);
	free(a->ev);
	free(a->comms);
	free(a->tid_end);
	free(a->pend);
	memset(a, 0, sizeof(*a));
}

void top_agg_sample(struct top_agg *a)
{
	a->sampling = true;
}

void top_agg_reset(struct top_agg *a)
{
	memset(a->sys, 0, sizeof(a->sys));
	memset(a->skipped, 0, sizeof(a->skipped));
	memset(a->cls, 0, sizeof(a->cls));
	hh_clear(&a->files);
	hh_clear(&a->procs_hh);
	hh_clear(&a->stacks);
	memset(a->ops_s, 0, sizeof(a->ops_s));
	memset(a->bytes_s, 0, sizeof(a->bytes_s));
	a->sec_first = a->sec_last = 0;
	a->ev_total = 0;
	a->records = a->syscalls = a->procs = a->drops = a->malformed = 0;
	a->think_ns = a->busy_ns = 0;
	a->sampled_calls = 0;
	a->t0 = a->t_last;
	a->sec_lo = 0;
}

static void note_second(struct top_agg *a, uint64_t t, unsigned cls, uint64_t n,
			uint64_t bytes);

void top_agg_settle(struct top_agg *a)
{
	uint64_t ops[TOP_NCLASS], bytes[TOP_NCLASS];

	for (unsigned c = 0; c < TOP_NCLASS; c++) {
		ops[c] = a->cls[c].count;
		bytes[c] = a->cls[c].bytes;
	}
	for (unsigned s = 0; s <= RIOT_SYS_COUNT; s++) {
		struct top_tally *k = &a->skipped[s];

		if (!k->count)
			continue;
		a->syscalls += k->count;
		if (s < RIOT_SYS_COUNT) {
			a->sys[s].count += k->count;
			a->sys[s].bytes += k->bytes;
		}
		k->count = k->bytes = 0;
	}
	memset(a->cls, 0, sizeof(a->cls));
	a->think_ns = a->busy_ns = 0;
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
		const struct top_row *r = &a->sys[s];
		struct top_row *c;

		if (!r->count)
			continue;
		a->think_ns += r->gap_ns;
		if (!(facts_of(s) & FACT_ASYNC))
			a->busy_ns += r->time_ns;
		c = &a->cls[top_class_of(s)];
		c->count += r->count;
		c->errors += r->errors;
		c->bytes += r->bytes;
		c->time_ns += r->time_ns;
		c->gap_ns += r->gap_ns;
		c->gaps += r->gaps;
		top_hist_merge(&c->lat, &r->lat);
		top_hist_merge(&c->gap, &r->gap);
	}
	/* sampling: what the classes gained since the last settle, in the
	 * second of the latest call */
	for (unsigned c = 0; a->sampling && a->t_last && c < TOP_NCLASS; c++) {
		uint64_t n = a->cls[c].count - ops[c], b = a->cls[c].bytes - bytes[c];

		if (!n)
			continue;
		note_second(a, a->t_last, c, n, b);
	}
}

/* The comm's index + 1, interned; 0 past TOP_COMMS. */
static uint32_t comm_intern(struct top_agg *a, const struct riot_str *s)
{
	char c[16] = "";
	uint64_t h, *v;
	uint32_t pos = 0;

	if (s->s)
		snprintf(c, sizeof(c), "%.15s", s->s);
	h = hash_bytes(c, strlen(c), 0x636f6d6d);
	while ((v = map_next(&a->comm_idx, h, &pos)))
		if (strcmp(a->comms[*v - 1], c) == 0)
			return (uint32_t)*v;
	if (a->ncomms == TOP_COMMS)
		return 0;
	memcpy(a->comms[a->ncomms], c, sizeof(c));
	if (map_add(&a->comm_idx, h, a->ncomms + 1))
		return 0;
	return ++a->ncomms;
}

const char *top_agg_comm(const struct top_agg *a, uint32_t pid)
{
	const uint64_t *v = map_get(&a->comm_of, pid);

	return v && *v ? a->comms[*v - 1] : "?";
}

/* pid's comm index + 1 (0: unknown), the last answer kept */
static uint32_t comm_idx(struct top_agg *a, uint32_t pid)
{
	const uint64_t *v;

	if (pid && pid == a->memo_pid)
		return a->memo_comm;
	v = map_get(&a->comm_of, pid);
	a->memo_pid = pid;
	a->memo_comm = v ? (uint32_t)*v : 0;
	return a->memo_comm;
}

static const char *comm_name(struct top_agg *a, uint32_t pid)
{
	uint32_t c = comm_idx(a, pid);

	return c ? a->comms[c - 1] : "?";
}

/* a comm (interned: 16 bytes; "?": 2) into a 16-byte field */
static void copy_comm(char dst[16], const char *comm)
{
	size_t n = strnlen(comm, 15);

	memcpy(dst, comm, n);
	dst[n] = 0;
}

static void set_comm(struct top_agg *a, uint32_t pid, uint32_t idx)
{
	if (idx)
		map_put(&a->comm_of, pid, idx);
	a->memo_pid = 0;
}

static void note_proc(struct top_agg *a, const struct riot_rec *rec)
{
	const uint64_t *v;

	if (rec->type == RIOT_REC_SNAP_PROC) {
		set_comm(a, rec->sproc.pid, comm_intern(a, &rec->sproc.comm));
		return;
	}
	a->procs++;
	switch (rec->proc.kind) {
	case RIOT_PROC_FORK:	/* the child is named as its parent */
		v = map_get(&a->comm_of, rec->proc.pid);
		if (v && rec->proc.child_pid != rec->proc.pid)
			set_comm(a, rec->proc.child_pid, (uint32_t)*v);
		break;
	case RIOT_PROC_EXEC:
		set_comm(a, rec->proc.pid, comm_intern(a, &rec->proc.comm));
		break;
	default:
		break;
	}
}

/* The second of completion t in the history ring. */
static void note_second(struct top_agg *a, uint64_t t, unsigned cls, uint64_t n,
			uint64_t bytes)
{
	uint64_t s;

	/* most calls end in the second the last one did: no division */
	if (t - a->sec_lo < 1000000000ull && a->sec_lo && t >= a->sec_lo) {
		a->sec_ops[cls] += n;
		a->sec_bytes[cls] += bytes;
		return;
	}
	s = t > a->t0 ? (t - a->t0) / 1000000000ull : 0;
	if (s + TOP_SECONDS <= a->sec_last)
		return;	/* older than the history */
	while (a->sec_last < s) {
		a->sec_last++;
		memset(a->ops_s[a->sec_last % TOP_SECONDS], 0, sizeof(a->ops_s[0]));
		memset(a->bytes_s[a->sec_last % TOP_SECONDS], 0, sizeof(a->bytes_s[0]));
	}
	if (a->sec_last >= TOP_SECONDS && a->sec_first < a->sec_last - TOP_SECONDS + 1)
		a->sec_first = a->sec_last - TOP_SECONDS + 1;
	if (s == a->sec_last) {
		a->sec_lo = a->t0 + s * 1000000000ull;
		a->sec_ops = a->ops_s[s % TOP_SECONDS];
		a->sec_bytes = a->bytes_s[s % TOP_SECONDS];
	}
	a->ops_s[s % TOP_SECONDS][cls] += n;
	a->bytes_s[s % TOP_SECONDS][cls] += bytes;
}

/* A call into row r: its count and bytes n times, the rest w times (a
 * sampled call stands for w calls; a syscall's row counts every call
 * itself); gap: its think time, or UINT64_MAX when it has none. */
static void row_add(struct top_row *r, const struct riot_syscall *sc, uint64_t bytes,
		    uint64_t gap, uint32_t n, uint32_t w)
{
	r->count += n;
	r->bytes += bytes * n;
	r->errors += sc->ret < 0 ? w : 0;
	r->time_ns += sc->dur * w;
	hist_addn(&r->lat, sc->dur, w);
	if (gap != UINT64_MAX) {
		r->gap_ns += gap * w;
		r->gaps += w;
		hist_addn(&r->gap, gap, w);
	}
}

/* Keeps sc's end as its thread's last (e: the thread's slot). */
static inline void tid_end_note(struct top_tid_end *e, const struct riot_syscall *sc)
{
	e->tid = sc->tid;
	e->end = sc->t + sc->dur;
}

/* The think time before sc (since its thread's previous call ended), or
 * UINT64_MAX: none (the thread's first call seen, an asynchronous
 * request, which neither has a gap nor ends one, as the resolver counts
 * them). */
static uint64_t tid_gap(struct top_agg *a, const struct riot_syscall *sc, bool async)
{
	struct top_tid_end *e = &a->tid_end[sc->tid % TOP_TIDS];
	uint64_t gap = UINT64_MAX;

	if (async)
		return gap;
	if (e->tid == sc->tid && e->end)
		gap = sc->t > e->end ? sc->t - e->end : 0;
	tid_end_note(e, sc);
	return gap;
}

/* The bytes sc moved; facts: facts_of(its syscall). */
static uint64_t bytes_moved(const struct riot_syscall *sc, unsigned facts)
{
	return (facts & FACT_BYTES) && sc->ret > 0 ? (uint64_t)sc->ret : 0;
}

/* The path a call names as the view shows it: resolved by the model, else
 * as recorded (relative ones then as they were passed), else "". */
static const char *path_of(const struct riot_syscall *sc, const struct model_op *op)
{
	if (op && op->path)
		return op->path;
	if (sc->has & RIOT_HAS_PATH && sc->path.s)
		return sc->path.s;
	return "";
}

static void copy_tail(char *dst, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n < len) {
		memcpy(dst, s, n + 1);
		return;
	}
	/* "…" in UTF-8 is three bytes; the view draws it as '~' without UTF-8 */
	memcpy(dst, "\xe2\x80\xa6", 3);
	memcpy(dst + 3, s + n - (len - 4), len - 4);
	dst[len - 1] = 0;
}

static void note_event(struct top_agg *a, const struct riot_syscall *sc, uint64_t gap,
		       const char *path)
{
	struct top_event *e = &a->ev[a->ev_total++ % TOP_EVENTS];

	e->t = sc->t;
	e->dur = sc->dur;
	e->gap = gap;
	e->ret = sc->ret;
	e->pid = sc->pid;
	e->tid = sc->tid;
	e->fd = sc->has & RIOT_HAS_FD ? sc->fd : -1;
	e->sys = sc->sys;
	copy_comm(e->comm, comm_name(a, sc->pid));
	copy_tail(e->path, sizeof(e->path), path);
}

/* A call to its syscall's row (its count and bytes; its errors, time,
 * think time and histograms counted w times: a call of the sample stands
 * for w calls) and the rates. facts: facts_of(its syscall). */
static void note_call(struct top_agg *a, const struct riot_syscall *sc, uint64_t bytes,
		      uint64_t gap, unsigned facts, uint32_t w)
{
	uint64_t end = sc->t + sc->dur;

	a->syscalls++;
	if (end > a->t_last)
		a->t_last = end;
	if (sc->sys < RIOT_SYS_COUNT)
		row_add(&a->sys[sc->sys], sc, bytes, gap, 1, w);
	/* sampling, the rates are counted a few times a second instead
	 * (top_agg_settle()) */
	if (!a->sampling)
		note_second(a, end, facts & FACT_CLASS, 1, bytes);
}

/* What a call adds to the details, counted w times: the stream, files,
 * processes and stacks. */
static int note_detail(struct top_agg *a, const struct riot_syscall *sc,
		       const struct model_op *op, uint64_t bytes, uint64_t gap, uint32_t w)
{
	const char *path = path_of(sc, op);
	struct top_row *r;
	bool fresh;

	a->sampled_calls++;
	note_event(a, sc, gap, path);
	/* files: by path (a file's id would split a path opened twice) */
	if (path[0]) {
		uint64_t key = op && op->path_id ? op->path_id : hash_bytes(path, strlen(path), 1);

		r = hh_row(&a->files, key, op && op->path_id ? 0 : 1, &fresh);
		if (!r)
			return -ENOMEM;
		if (fresh && !(r->text = strdup(path)))
			return -ENOMEM;
		row_add(r, sc, bytes, gap, w, w);
	}
	r = hh_row(&a->procs_hh, sc->pid, 0, &fresh);
	if (!r)
		return -ENOMEM;
	if (fresh) {
		r->pid = sc->pid;
		copy_comm(r->comm, comm_name(a, sc->pid));
	}
	row_add(r, sc, bytes, gap, w, w);
	/* stacks: comm, syscall, path */
	{
		uint64_t ci = comm_idx(a, sc->pid);
		uint64_t pkey = op && op->path_id ? op->path_id :
				path[0] ? hash_bytes(path, strlen(path), 1) : 0;

		r = hh_row(&a->stacks, (ci << 16) | sc->sys, pkey, &fresh);
		if (!r)
			return -ENOMEM;
		if (fresh) {
			r->pid = sc->pid;
			copy_comm(r->comm, comm_name(a, sc->pid));
			if (!(r->text = strdup(path)))
				return -ENOMEM;
		}
		row_add(r, sc, bytes, gap, w, w);
	}
	return 0;
}

/* The power of two at least want, from `every` up to 1024. */
static uint32_t every_for(uint64_t want, uint32_t every)
{
	while (every < want && every < 1024)
		every *= 2;
	return every;
}

/* Sampling, at a call the sample takes (one in `every`): it stands for
 * the `every` calls since the one before; each tenth of a second,
 * `every` is set anew from the calls of the one before. A tenth that has
 * taken TOP_BURST_WHOLE calls before its end sets `every` at once from
 * its rate so far. */
static void resample(struct top_agg *a, uint64_t t)
{
	const uint64_t share = TOP_DETAIL_RATE / 10;

	a->win_n += a->every;
	if (t < a->win_lo || t - a->win_lo >= 100000000ull) {
		a->every = every_for(a->win_n / share, 1);
		a->win_lo = t;
		a->win_n = 0;
		a->win_taken = 0;
	} else if (++a->win_taken >= TOP_BURST_WHOLE && a->every < 1024) {
		uint64_t dt = t - a->win_lo > 1000000 ? t - a->win_lo : 1000000;

		/* the calls a tenth of a second brings at the rate so far */
		a->every = every_for(a->win_n * 100000000ull / dt / share, a->every * 2);
		a->win_taken = 0;
	}
	a->countdown = a->every;
}

/* rec to the resolver, into *op (*have: it has a view of rec). -ENOMEM. */
static int model_feed_one(struct top_agg *a, const struct riot_rec *rec, struct model_op *op,
			  bool *have)
{
	int err;

	*have = false;
	if (!a->m)
		return 0;
	err = model_apply(a->m, rec, op);
	if (err == -ENOMEM)
		return err;
	if (err) {	/* -E2BIG: paths as recorded from now on */
		a->model_err = err;
		model_free(a->m);
		a->m = NULL;
		return 0;
	}
	*have = true;
	return 0;
}

/* The resolver's view of rec, into *op; false when it has none (it
 * failed, or was not fed this call). The opens it has been spared so far
 * go first, in their order. -ENOMEM. */
static int model_feed(struct top_agg *a, const struct riot_rec *rec, struct model_op *op,
		      bool *have)
{
	for (uint32_t i = 0; i < a->npend; i++) {
		int err = model_feed_one(a, &a->pend[i].rec, op, have);

		if (err)
			return err;
	}
	a->npend = 0;
	return model_feed_one(a, rec, op, have);
}

/* A skipped open the resolver can be spared until it is needed: one that
 * gave an fd, with a path of its own (no other record's text). */
static bool open_deferrable(const struct riot_syscall *sc)
{
	return (sc->sys == RIOT_SYS_openat || sc->sys == RIOT_SYS_open ||
		sc->sys == RIOT_SYS_openat2 || sc->sys == RIOT_SYS_creat) &&
	       sc->ret >= 0 && sc->ret <= INT32_MAX && (sc->has & RIOT_HAS_PATH) && sc->path.s &&
	       !sc->path2.s && !sc->value;
}

/* The resolver fed a call it must see though the sample skips it: apart,
 * so that the skip itself saves no registers. A skipped open waits
 * (TOP_PEND of them, newest last); a skipped close of the fd the newest
 * waiting open gave, in the same thread, cancels both: nothing looked
 * the file up between them, and nothing after the close can name it
 * through that fd, so the resolver never needs either (most of what
 * the view would cost a program that opens many files, such as tar). */
static __attribute__((noinline, cold)) int skip_tables(struct top_agg *a,
						       const struct riot_rec *rec)
{
	const struct riot_syscall *sc = &rec->sc;
	struct model_op op;
	bool have;

	if (a->m && a->pend && open_deferrable(sc) && a->npend < TOP_PEND) {
		struct top_pend *p = &a->pend[a->npend];
		size_t len = strlen(sc->path.s);

		if (len < sizeof(p->path)) {
			p->rec = *rec;
			memcpy(p->path, sc->path.s, len + 1);
			p->rec.sc.path.s = p->path;
			a->npend++;
			return 0;
		}
	}
	if (a->npend && sc->sys == RIOT_SYS_close && sc->ret == 0 && (sc->has & RIOT_HAS_FD)) {
		const struct riot_syscall *o = &a->pend[a->npend - 1].rec.sc;

		if (o->tid == sc->tid && o->ret == sc->fd) {
			a->npend--;
			a->spared++;
			return 0;
		}
	}
	return model_feed(a, rec, &op, &have);
}

/* Sampling, a call the sample skips: what must count every call (its
 * syscall's calls and bytes, its thread's end for the next call's think
 * time, the resolver's tables), the least work a call can cost. */
static int skip_call(struct top_agg *a, const struct riot_rec *rec)
{
	const struct riot_syscall *sc = &rec->sc;
	unsigned s = sc->sys < RIOT_SYS_COUNT ? sc->sys : RIOT_SYS_COUNT;
	unsigned facts = sys_facts[s];

	/* t_last moves with the sample: a call of it is at most `every`
	 * calls behind */
	a->skipped[s].count++;
	a->skipped[s].bytes += bytes_moved(sc, facts);
	if (!(facts & FACT_ASYNC))	/* the thread's end, for its next call */
		tid_end_note(&a->tid_end[sc->tid % TOP_TIDS], sc);
	return facts & FACT_TABLES ? skip_tables(a, rec) : 0;
}

static int add_syscall(struct top_agg *a, const struct riot_rec *rec)
{
	const struct riot_syscall *sc = &rec->sc;
	unsigned facts = facts_of(sc->sys);
	uint32_t w = a->every;	/* the calls this one stands for */
	bool have = false;
	uint64_t bytes, gap;
	struct model_op op;
	int err;

	if (a->sampling)
		resample(a, sc->t + sc->dur);
	else
		a->countdown = 1;
	bytes = bytes_moved(sc, facts);
	gap = tid_gap(a, sc, facts & FACT_ASYNC);
	note_call(a, sc, bytes, gap, facts, w);
	if ((err = model_feed(a, rec, &op, &have)))
		return err;
	return note_detail(a, sc, have ? &op : NULL, bytes, gap, w);
}

/* A record taken whole: apart, so that a skipped call saves none of the
 * registers this path needs. */
static __attribute__((noinline)) int add_whole(struct top_agg *a, const struct riot_rec *rec)
{
	struct model_op op;
	bool have;
	int err;

	if (!a->records++ || !a->t0)
		a->t0 = rec->type == RIOT_REC_SYSCALL ? rec->sc.t : a->t0;
	if (rec->type == RIOT_REC_SYSCALL)
		return add_syscall(a, rec);
	if ((err = model_feed(a, rec, &op, &have)))
		return err;
	switch (rec->type) {
	case RIOT_REC_PROC:
	case RIOT_REC_SNAP_PROC:
		note_proc(a, rec);
		return 0;
	case RIOT_REC_DROP:
		a->drops += rec->drop.count;
		return 0;
	default:
		return 0;
	}
}

int top_agg_add(struct top_agg *a, const struct riot_rec *rec)
{
	if (rec->type == RIOT_REC_SYSCALL && --a->countdown)
		return skip_call(a, rec);	/* the most frequent path */
	return add_whole(a, rec);
}

int top_agg_add_op(struct top_agg *a, const struct riot_syscall *sc, const char *path,
		   int64_t gap_ns)
{
	struct model_op op;

	uint64_t gap = gap_ns >= 0 ? (uint64_t)gap_ns : UINT64_MAX;
	uint64_t bytes = bytes_moved(sc, facts_of(sc->sys));

	memset(&op, 0, sizeof(op));
	op.path = path && path[0] ? path : NULL;
	if (!a->records++ || !a->t0)
		a->t0 = sc->t;
	note_call(a, sc, bytes, gap, facts_of(sc->sys), 1);
	return note_detail(a, sc, &op, bytes, gap, 1);
}

void top_agg_name(struct top_agg *a, uint32_t pid, const char *comm)
{
	struct riot_str s = { .s = comm };

	set_comm(a, pid, comm_intern(a, &s));
}

const struct top_event *top_agg_event(const struct top_agg *a, uint64_t i)
{
	if (i >= a->ev_total || i >= TOP_EVENTS)
		return NULL;
	return &a->ev[(a->ev_total - 1 - i) % TOP_EVENTS];
}

uint64_t top_agg_bytes(const struct top_agg *a)
{
	uint64_t b = sizeof(*a) + (uint64_t)TOP_EVENTS * sizeof(*a->ev) +
		     (uint64_t)TOP_COMMS * sizeof(*a->comms);
	const struct top_hh *hh[] = { &a->files, &a->procs_hh, &a->stacks };

	for (unsigned k = 0; k < 3; k++) {
		b += (uint64_t)hh[k]->cap * sizeof(struct top_row) + hh[k]->idx.cap * 16ull;
		for (uint32_t i = 0; i < hh[k]->n; i++)
			b += hh[k]->rows[i].text ? strlen(hh[k]->rows[i].text) + 1 : 0;
	}
	return b;
}
