/* capture/reorder.c: puts events back in the order they took effect.
 * CPUs hand their events over in batches, so the ring buffer interleaves
 * them out of order; a resolver reading the log needs an open before the
 * read on its fd. A batch arrives nearly sorted, so it is kept whole as a
 * run (one copy, sorted by insertion; its index and bytes in one
 * allocation), and runs are merged through a small heap keyed by each
 * run's next event. The caller releases events below
 * the point every CPU has handed over (tracer_progress()). Memory is
 * bounded: beyond max_bytes the earliest events leave early.
 *
 * A batch can also be lent rather than copied (reorder_lend()): the run
 * then points into the caller's memory (the ring buffer, not yet handed
 * back), and most of its events are released from there, never copied;
 * reorder_keep() copies what is left before the caller takes it back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"
#include "lib/grow.h"

struct item {
	uint64_t key;
	uint32_t off, size;
};

struct run {
	uint64_t seq;		/* arrival: ties keep arrival order */
	size_t n, pos;
	size_t bytes;
	uint8_t *data;		/* after the items, or the lender's */
	bool lent;
	struct item items[];
};

struct reorder {
	struct run **heap;
	size_t n, cap;
	size_t bytes, max_bytes;
	uint64_t seq;
	struct item *index;	/* the batch being pushed, before its copy */
	size_t index_cap;
};

struct reorder *reorder_new(size_t max_bytes)
{
	struct reorder *r = calloc(1, sizeof(*r));

	if (r)
		r->max_bytes = max_bytes;
	return r;
}

static bool before(const struct run *a, const struct run *b)
{
	uint64_t ka = a->items[a->pos].key, kb = b->items[b->pos].key;

	return ka < kb || (ka == kb && a->seq < b->seq);
}

static void swap(struct run **a, struct run **b)
{
	struct run *t = *a;

	*a = *b;
	*b = t;
}

static void sift_up(struct reorder *r, size_t i)
{
	while (i && before(r->heap[i], r->heap[(i - 1) / 2])) {
		swap(&r->heap[i], &r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct reorder *r, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < r->n && before(r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->n && before(r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		swap(&r->heap[i], &r->heap[m]);
		i = m;
	}
}

/* Hands the earliest event to fn. */
static int pop(struct reorder *r, reorder_fn fn, void *ctx)
{
	struct run *top = r->heap[0];
	const struct item *it = &top->items[top->pos++];
	int err = fn(ctx, top->data + it->off, it->size);

	if (top->pos == top->n) {
		r->bytes -= top->bytes;
		r->heap[0] = r->heap[--r->n];
		free(top);
	}
	if (r->n)
		sift_down(r, 0);
	return err;
}

/* Insertion sort: a batch is sorted but for rare preemptions. */
static void sort_items(struct item *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct item v = a[i];
		size_t j = i;

		while (j && a[j - 1].key > v.key) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/* Index of the events in data into r->index: key, offset, size of each,
 * in key order; their number in *n. */
static int index_batch(struct reorder *r, const uint8_t *data, size_t len,
		       reorder_key_fn key_of, reorder_size_fn size_of, size_t *n)
{
	size_t off = 0, k = 0, size;

	while (off < len && (size = size_of(data + off, len - off))) {
		if (k == r->index_cap && GROW(r->index, r->index_cap, k + 1, 256) < 0)
			return -ENOMEM;
		r->index[k++] = (struct item){ key_of(data + off, size), (uint32_t)off,
					       (uint32_t)size };
		off += (size + 7) & ~(size_t)7;
	}
	sort_items(r->index, k);
	*n = k;
	return off < len ? -EINVAL : 0;
}

static int add_run(struct reorder *r, struct run *run)
{
	if (GROW(r->heap, r->cap, r->n + 1, 256) < 0)
		return -ENOMEM;
	run->seq = r->seq++;
	r->heap[r->n++] = run;
	sift_up(r, r->n - 1);
	r->bytes += run->bytes;
	return 0;
}

/* The batch as a run: its items and, unless lent, a copy of its bytes. */
static int push(struct reorder *r, const void *data, size_t len, bool lent,
		reorder_key_fn key_of, reorder_size_fn size_of,
		reorder_fn fn, void *ctx)
{
	struct run *run;
	size_t n;
	int err = index_batch(r, data, len, key_of, size_of, &n), bad;

	if (err && err != -EINVAL)
		return err;
	bad = err == -EINVAL;
	if (!n)
		return bad;
	run = malloc(sizeof(*run) + n * sizeof(struct item) + (lent ? 0 : len));
	if (!run)
		return -ENOMEM;
	*run = (struct run){ .n = n, .bytes = len, .lent = lent,
			     .data = lent ? (uint8_t *)data : (uint8_t *)(run->items + n) };
	memcpy(run->items, r->index, n * sizeof(struct item));
	if (!lent)
		memcpy(run->data, data, len);
	err = add_run(r, run);
	if (err) {
		free(run);
		return err;
	}
	while (r->bytes > r->max_bytes && r->n)
		if ((err = pop(r, fn, ctx)))
			return err;
	return bad;
}

int reorder_push(struct reorder *r, const void *data, size_t len,
		 reorder_key_fn key_of, reorder_size_fn size_of,
		 reorder_fn fn, void *ctx)
{
	return push(r, data, len, false, key_of, size_of, fn, ctx);
}

int reorder_lend(struct reorder *r, const void *data, size_t len,
		 reorder_key_fn key_of, reorder_size_fn size_of,
		 reorder_fn fn, void *ctx)
{
	return push(r, data, len, true, key_of, size_of, fn, ctx);
}

int reorder_keep(struct reorder *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct run *old = r->heap[i], *run;
		size_t items = old->n * sizeof(struct item);

		if (!old->lent)
			continue;
		run = malloc(sizeof(*run) + items + old->bytes);
		if (!run)
			return -ENOMEM;
		memcpy(run, old, sizeof(*run) + items);
		run->data = (uint8_t *)run->items + items;
		run->lent = false;
		memcpy(run->data, old->data, old->bytes);
		r->heap[i] = run;	/* the same keys: the heap holds */
		free(old);
	}
	return 0;
}

int reorder_release(struct reorder *r, uint64_t until, reorder_fn fn, void *ctx)
{
	int err;

	while (r->n && r->heap[0]->items[r->heap[0]->pos].key < until)
		if ((err = pop(r, fn, ctx)))
			return err;
	return 0;
}

size_t reorder_bytes(const struct reorder *r)
{
	return r->bytes;
}

void reorder_free(struct reorder *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->heap[i]);
	free(r->heap);
	free(r->index);
	free(r);
}
