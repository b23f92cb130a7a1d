/* formats/devices.c: the devices section of a log's end record
 * (formats/devices.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/devices.h"
#include "formats/log_codec.h"

/* All varints: window_ns, flush_ns, synced, ndev; per device: dev, name,
 * kind and note (length, bytes), requests and bytes of the four groups;
 * for reads and writes the number of non-empty latency buckets, each as
 * (bucket - previous bucket - 1, count), then sum and max; lat_sum_all,
 * depth_peak, untimed, depth_step_ns, the number of depth points and each
 * as (t_ns, depth in thousandths, depth_max). Bytes after that are a newer
 * riot's and are ignored. */

#define DEV_SECTION_DEVS_MAX 16
#define DEV_SECTION_POINTS_MAX 4096

static int put_str(struct bytes *b, const char *s)
{
	size_t n = strlen(s);
	int rc = put_varint(b, n);

	return rc ? rc : put_mem(b, s, n);
}

static int put_hist(struct bytes *b, const struct hist *h)
{
	unsigned nb = 0, prev = 0;
	int rc;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		nb += h->b[i] != 0;
	rc = put_varint(b, nb);
	for (unsigned i = 0, first = 1; !rc && i < HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		rc = put_varint(b, first ? i : i - prev - 1);
		rc = rc ? rc : put_varint(b, h->b[i]);
		prev = i;
		first = 0;
	}
	rc = rc ? rc : put_varint(b, h->sum);
	return rc ? rc : put_varint(b, h->count ? h->max : 0);
}

static int put_device(struct bytes *b, const struct run_device *d)
{
	int rc = put_varint(b, d->dev);

	rc = rc ? rc : put_str(b, d->name);
	rc = rc ? rc : put_str(b, d->kind);
	rc = rc ? rc : put_str(b, d->note);
	for (unsigned k = 0; !rc && k < RUN_DEV_OPS; k++)
		rc = put_varint(b, d->reqs[k]);
	for (unsigned k = 0; !rc && k < RUN_DEV_OPS; k++)
		rc = put_varint(b, d->bytes[k]);
	for (unsigned k = 0; !rc && k < 2; k++)
		rc = put_hist(b, &d->lat[k]);
	rc = rc ? rc : put_varint(b, d->lat_sum_all);
	rc = rc ? rc : put_varint(b, d->depth_peak);
	rc = rc ? rc : put_varint(b, d->untimed);
	rc = rc ? rc : put_varint(b, d->depth_step_ns);
	rc = rc ? rc : put_varint(b, d->ndepth);
	for (unsigned i = 0; !rc && i < d->ndepth; i++) {
		rc = put_varint(b, d->depth[i].t_ns);
		rc = rc ? rc : put_varint(b, (uint64_t)(d->depth[i].depth * 1000 + 0.5));
		rc = rc ? rc : put_varint(b, d->depth[i].depth_max);
	}
	return rc;
}

int run_block_encode(const struct run_block *blk, uint8_t **out, size_t *len)
{
	struct bytes b = { 0 };
	int rc = put_varint(&b, blk->window_ns);

	rc = rc ? rc : put_varint(&b, blk->flush_ns);
	rc = rc ? rc : put_varint(&b, blk->synced);
	rc = rc ? rc : put_varint(&b, blk->ndev);
	for (unsigned i = 0; !rc && i < blk->ndev; i++)
		rc = put_device(&b, &blk->dev[i]);
	if (rc) {
		free(b.p);
		return rc;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

static int get_str(struct cursor *c, char *buf, size_t size)
{
	uint64_t n;

	if (get_varint(c, &n) || n >= size || n > (uint64_t)(c->end - c->p) ||
	    memchr(c->p, 0, n))
		return -EBADMSG;
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	return 0;
}

static int get_hist(struct cursor *c, struct hist *h)
{
	uint64_t nb, at = 0, v;

	hist_init(h);
	if (get_varint(c, &nb) || nb > HIST_BUCKETS)
		return -EBADMSG;
	for (uint64_t i = 0; i < nb; i++) {
		uint64_t gap, n;

		if (get_varint(c, &gap) || get_varint(c, &n) || n == 0 ||
		    gap >= HIST_BUCKETS - at)
			return -EBADMSG;
		at += gap;
		h->b[at] = n;
		if (h->count + n < h->count)
			return -EBADMSG;
		h->count += n;
		if (i == 0)
			h->min = hist_bucket_low((unsigned)at);
		at++;
	}
	if (get_varint(c, &h->sum) || get_varint(c, &v))
		return -EBADMSG;
	h->max = v;
	if (!h->count)
		h->min = 0;
	return 0;
}

static int get_device(struct cursor *c, struct run_device *d)
{
	uint64_t n, v, max;

	memset(d, 0, sizeof(*d));
	if (get_varint(c, &d->dev) || get_str(c, d->name, sizeof(d->name)) ||
	    get_str(c, d->kind, sizeof(d->kind)) || get_str(c, d->note, sizeof(d->note)))
		return -EBADMSG;
	for (unsigned k = 0; k < RUN_DEV_OPS; k++)
		if (get_varint(c, &d->reqs[k]))
			return -EBADMSG;
	for (unsigned k = 0; k < RUN_DEV_OPS; k++)
		if (get_varint(c, &d->bytes[k]))
			return -EBADMSG;
	for (unsigned k = 0; k < 2; k++)
		if (get_hist(c, &d->lat[k]))
			return -EBADMSG;
	if (get_varint(c, &d->lat_sum_all) || get_varint(c, &d->depth_peak) ||
	    get_varint(c, &d->untimed) || get_varint(c, &d->depth_step_ns) ||
	    get_varint(c, &n) || n > DEV_SECTION_POINTS_MAX)
		return -EBADMSG;
	if (n && !(d->depth = calloc(n, sizeof(*d->depth))))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		struct run_depth_point *p = &d->depth[d->ndepth++];

		if (get_varint(c, &p->t_ns) || get_varint(c, &v) || get_varint(c, &max) ||
		    max > UINT32_MAX)
			return -EBADMSG;
		p->depth = (double)v / 1000;
		p->depth_max = (uint32_t)max;
	}
	return 0;
}

int run_block_decode(const void *p, size_t len, struct run_block *blk)
{
	struct cursor c = { p, (const uint8_t *)p + len };
	uint64_t synced, ndev;
	int rc = 0;

	memset(blk, 0, sizeof(*blk));
	if (get_varint(&c, &blk->window_ns) || get_varint(&c, &blk->flush_ns) ||
	    get_varint(&c, &synced) || get_varint(&c, &ndev) || ndev > DEV_SECTION_DEVS_MAX)
		return -EBADMSG;
	blk->synced = synced != 0;
	if (ndev && !(blk->dev = calloc(ndev, sizeof(*blk->dev))))
		return -ENOMEM;
	for (uint64_t i = 0; i < ndev && !rc; i++) {
		rc = get_device(&c, &blk->dev[i]);
		blk->ndev++;
	}
	if (rc)
		run_block_free(blk);
	return rc;
}

void run_block_free(struct run_block *b)
{
	if (!b || !b->dev)
		return;
	for (unsigned i = 0; i < b->ndev; i++)
		free(b->dev[i].depth);
	free(b->dev);
	b->dev = NULL;
	b->ndev = 0;
}
