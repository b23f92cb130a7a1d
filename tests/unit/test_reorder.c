/* test_reorder: capture's reorder buffer (capture/reorder.c). Events of
 * batches that interleave come out in key order, ties in arrival order;
 * release hands over exactly the keys below its bound; beyond its byte
 * bound the earliest leave early; a malformed tail is left out and said;
 * a callback's error stops the hand-over. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "capture/capture_int.h"
#include "tests/unit/unit.h"

/* An event as the ring buffer holds it: its size first, so size_of can
 * walk a batch; some carry a payload, so sizes differ. */
struct ev {
	uint32_t size;		/* bytes of this event, >= sizeof(struct ev) */
	uint32_t id;		/* arrival order in the test */
	uint64_t key;
};

static uint64_t key_of(const void *data, size_t size)
{
	(void)size;
	return ((const struct ev *)data)->key;
}

static size_t size_of(const void *data, size_t avail)
{
	const struct ev *e = data;

	if (avail < sizeof(*e) || e->size < sizeof(*e) || e->size > avail)
		return 0;
	return e->size;
}

#define MAX_OUT 256
struct out {
	size_t n;
	uint32_t id[MAX_OUT];
	uint64_t key[MAX_OUT];
	size_t stop_at;		/* fail with -EIO at this event (0: never) */
};

static int take(void *ctx, const void *data, size_t size)
{
	struct out *o = ctx;
	const struct ev *e = data;

	if (o->stop_at && o->n + 1 == o->stop_at)
		return -EIO;
	CHECK_U64(size, e->size);
	if (o->n < MAX_OUT) {
		o->id[o->n] = e->id;
		o->key[o->n] = e->key;
	}
	o->n++;
	return 0;
}

/* A batch of n events with these keys (payload of 8 * (i % 3) bytes, each
 * event at an 8-byte boundary), ids from *id on. */
static size_t batch(uint8_t *buf, const uint64_t *keys, size_t n, uint32_t *id)
{
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		struct ev *e = (struct ev *)(buf + off);

		e->size = (uint32_t)(sizeof(*e) + 8 * (i % 3));
		e->id = (*id)++;
		e->key = keys[i];
		memset(buf + off + sizeof(*e), 0xab, e->size - sizeof(*e));
		off += (e->size + 7) & ~(size_t)7;
	}
	return off;
}

static void test_merge(void)
{
	/* CPU A's batch, nearly sorted (one preemption); CPU B's, sorted;
	 * a tie between them on key 30 */
	static const uint64_t a[] = { 10, 30, 20, 50, 70 }, b[] = { 5, 30, 40, 60 };
	uint8_t buf[1024];
	struct out o = { 0 };
	struct reorder *r = reorder_new(1 << 20);
	uint32_t id = 0;
	size_t len;

	CHECK(r != NULL);
	if (!r)
		return;
	len = batch(buf, a, 5, &id);	/* ids 0..4 */
	CHECK_EQ(reorder_push(r, buf, len, key_of, size_of, take, &o), 0);
	len = batch(buf, b, 4, &id);	/* ids 5..8 */
	CHECK_EQ(reorder_push(r, buf, len, key_of, size_of, take, &o), 0);
	CHECK_U64(o.n, 0);		/* nothing leaves before a release */
	CHECK_EQ(reorder_release(r, 40, take, &o), 0);
	/* below 40: 5 10 20 30(A, id 1) 30(B, id 6) */
	CHECK_U64(o.n, 5);
	static const uint64_t want1[] = { 5, 10, 20, 30, 30 };
	static const uint32_t ids1[] = { 5, 0, 2, 1, 6 };
	for (size_t i = 0; i < 5 && i < o.n; i++) {
		CHECK_U64(o.key[i], want1[i]);
		CHECK_U64(o.id[i], ids1[i]);
	}
	CHECK_EQ(reorder_release(r, 40, take, &o), 0);
	CHECK_U64(o.n, 5);		/* released already: nothing more */
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), 0);
	static const uint64_t want2[] = { 40, 50, 60, 70 };
	CHECK_U64(o.n, 9);
	for (size_t i = 0; i < 4 && 5 + i < o.n; i++)
		CHECK_U64(o.key[5 + i], want2[i]);
	reorder_free(r);
}

/* Beyond max_bytes the earliest events leave at push time. */
static void test_bound(void)
{
	static const uint64_t k1[] = { 100, 200 }, k2[] = { 50, 150 };
	uint8_t buf[256];
	struct out o = { 0 };
	uint32_t id = 0;
	size_t len1, len2;
	struct reorder *r;

	len1 = batch(buf, k1, 2, &id);
	r = reorder_new(len1);	/* room for exactly one batch */
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(reorder_push(r, buf, len1, key_of, size_of, take, &o), 0);
	CHECK_U64(o.n, 0);
	len2 = batch(buf, k2, 2, &id);
	CHECK_EQ(reorder_push(r, buf, len2, key_of, size_of, take, &o), 0);
	/* over the bound: the earliest leave until a run empties and its
	 * bytes are freed: 50, 100, 150 (the second batch's run), not 200 */
	CHECK_U64(o.n, 3);
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), 0);
	CHECK_U64(o.n, 4);
	static const uint64_t want[] = { 50, 100, 150, 200 };
	for (size_t i = 0; i < 4; i++)
		CHECK_U64(o.key[i], want[i]);
	reorder_free(r);
}

/* A batch whose tail does not parse keeps its whole events and says so. */
static void test_malformed(void)
{
	static const uint64_t k[] = { 3, 1, 2 };
	uint8_t buf[256];
	struct out o = { 0 };
	uint32_t id = 0;
	size_t len = batch(buf, k, 3, &id);
	struct reorder *r = reorder_new(1 << 20);
	struct ev *bad = (struct ev *)(buf + len);

	CHECK(r != NULL);
	if (!r)
		return;
	bad->size = 4096;	/* runs past the batch */
	bad->key = 0;
	CHECK_EQ(reorder_push(r, buf, len + sizeof(*bad), key_of, size_of, take, &o), 1);
	/* all garbage: nothing kept, said */
	memset(buf, 0, sizeof(struct ev));
	CHECK_EQ(reorder_push(r, buf, sizeof(struct ev), key_of, size_of, take, &o), 1);
	CHECK_EQ(reorder_push(r, buf, 0, key_of, size_of, take, &o), 0);
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), 0);
	CHECK_U64(o.n, 3);
	for (size_t i = 0; i < 3; i++)
		CHECK_U64(o.key[i], i + 1);
	reorder_free(r);
}

/* The callback's error stops the release; the rest stays for later. */
static void test_error(void)
{
	static const uint64_t k[] = { 1, 2, 3, 4 };
	uint8_t buf[256];
	struct out o = { .stop_at = 3 };
	uint32_t id = 0;
	size_t len = batch(buf, k, 4, &id);
	struct reorder *r = reorder_new(1 << 20);

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(reorder_push(r, buf, len, key_of, size_of, take, &o), 0);
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), -EIO);
	CHECK_U64(o.n, 2);
	o.stop_at = 0;
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), 0);
	/* the event whose hand-over failed is not handed again */
	CHECK_U64(o.n, 3);
	CHECK_U64(o.key[2], 4);
	reorder_free(r);
	reorder_free(NULL);
}

/* Lent batches: the events leave from the lender's memory; what is left
 * when reorder_keep() runs is copied, so the lender may then overwrite
 * its memory and the events still leave as they were; a batch pushed
 * (copied) beside them is not touched by keep. */
static void test_lend(void)
{
	static const uint64_t a[] = { 10, 20, 30, 40 }, b[] = { 15, 35 }, c[] = { 25 };
	uint8_t la[256], lb[256], pc[256];
	struct out o = { 0 };
	uint32_t id = 0;
	size_t len_a = batch(la, a, 4, &id), len_b, len_c;	/* ids 0..3 */
	struct reorder *r = reorder_new(1 << 20);

	CHECK(r != NULL);
	if (!r)
		return;
	len_b = batch(lb, b, 2, &id);	/* ids 4, 5 */
	len_c = batch(pc, c, 1, &id);	/* id 6 */
	CHECK_EQ(reorder_lend(r, la, len_a, key_of, size_of, take, &o), 0);
	CHECK_EQ(reorder_lend(r, lb, len_b, key_of, size_of, take, &o), 0);
	CHECK_EQ(reorder_push(r, pc, len_c, key_of, size_of, take, &o), 0);
	memset(pc, 0, sizeof(pc));	/* pushed: copied at once */
	CHECK_U64(reorder_bytes(r), len_a + len_b + len_c);
	CHECK_EQ(reorder_release(r, 21, take, &o), 0);
	CHECK_U64(o.n, 3);		/* 10 15 20, from the lent bytes */
	CHECK_EQ(reorder_keep(r), 0);
	memset(la, 0, sizeof(la));
	memset(lb, 0, sizeof(lb));
	CHECK_EQ(reorder_release(r, UINT64_MAX, take, &o), 0);
	static const uint64_t want[] = { 10, 15, 20, 25, 30, 35, 40 };
	static const uint32_t ids[] = { 0, 4, 1, 6, 2, 5, 3 };
	CHECK_U64(o.n, 7);
	for (size_t i = 0; i < 7 && i < o.n; i++) {
		CHECK_U64(o.key[i], want[i]);
		CHECK_U64(o.id[i], ids[i]);
	}
	CHECK_U64(reorder_bytes(r), 0);
	CHECK_EQ(reorder_keep(r), 0);	/* nothing held: nothing to do */
	reorder_free(r);
}

int main(void)
{
	test_merge();
	test_lend();
	test_bound();
	test_malformed();
	test_error();
	return unit_done();
}
