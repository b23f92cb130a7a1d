/* What reached the devices, in a capture's log: the end section of format
 * 1.3 comes back from the reader byte for byte, unknown section keys are
 * skipped, a log without the section (or cut short) has none; a run's
 * devices encode and decode to the same figures, and every malformed or
 * truncated encoding is refused without a crash. */
#include "tests/unit/unit.h"
#include "formats/log.h"
#include "report/report.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static const struct riot_log_header hdr = { .host = "h", .kernel = "k", .start_t = 1 };

static struct riot_reader *write_and_open(const char *path, const void *sec, size_t len,
					  unsigned key)
{
	struct riot_writer *w = riot_writer_open(path, &hdr, &(struct riot_writer_opts){ 0 });
	struct riot_rec rec = { .type = RIOT_REC_SYSCALL,
				.sc = { .sys = RIOT_SYS_read, .pid = 5, .tid = 5, .t = 10,
					.dur = 2, .ret = 0 } };
	struct riot_rec got;
	char err[256];
	struct riot_reader *r;

	CHECK(w != NULL);
	if (!w)
		return NULL;
	CHECK_EQ(riot_writer_add(w, &rec), 0);
	if (sec)
		CHECK_EQ(riot_writer_end_section(w, key, sec, len), 0);
	CHECK_EQ(riot_writer_close(w), 0);
	r = riot_reader_open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return NULL;
	/* nothing before the end record is read */
	CHECK(riot_reader_end_section(r, RIOT_END_DEVICES, &len) == NULL);
	while (riot_reader_next(r, &got) > 0)
		;
	CHECK(riot_reader_complete(r));
	return r;
}

static void sections(const char *path)
{
	uint8_t sec[3000];
	size_t len = 0;
	const uint8_t *p;
	struct riot_reader *r;
	struct riot_writer *w;

	for (unsigned i = 0; i < sizeof(sec); i++)
		sec[i] = (uint8_t)(i * 7);
	r = write_and_open(path, sec, sizeof(sec), RIOT_END_DEVICES);
	p = r ? riot_reader_end_section(r, RIOT_END_DEVICES, &len) : NULL;
	CHECK(p != NULL);
	CHECK_U64(len, sizeof(sec));
	CHECK(p && memcmp(p, sec, sizeof(sec)) == 0);
	riot_reader_close(r);

	/* another key only: the devices section is absent */
	r = write_and_open(path, sec, 5, 7);
	CHECK(r && riot_reader_end_section(r, RIOT_END_DEVICES, &len) == NULL);
	p = r ? riot_reader_end_section(r, 7, &len) : NULL;
	CHECK(p && len == 5 && memcmp(p, sec, 5) == 0);
	riot_reader_close(r);

	/* no section */
	r = write_and_open(path, NULL, 0, 0);
	CHECK(r && riot_reader_end_section(r, RIOT_END_DEVICES, &len) == NULL);
	riot_reader_close(r);

	/* keys and sizes out of range are refused */
	w = riot_writer_open(path, &hdr, &(struct riot_writer_opts){ 0 });
	CHECK(w != NULL);
	if (w) {
		CHECK_EQ(riot_writer_end_section(w, 0, sec, 1), -EINVAL);
		CHECK_EQ(riot_writer_end_section(w, RIOT_END_SECTIONS_MAX + 1, sec, 1), -EINVAL);
		CHECK_EQ(riot_writer_end_section(w, 1, sec, RIOT_END_SECTION_BYTES_MAX + 1), -EINVAL);
		riot_writer_abort(w);
	}
	/* a log cut before its end record has none */
	w = riot_writer_open(path, &hdr, &(struct riot_writer_opts){ 0 });
	if (w) {
		struct riot_rec rec = { .type = RIOT_REC_SYSCALL,
					.sc = { .sys = RIOT_SYS_read, .pid = 5, .tid = 5, .t = 10 } };
		struct riot_rec got;
		char err[256];

		riot_writer_add(w, &rec);
		riot_writer_end_section(w, RIOT_END_DEVICES, sec, 10);
		riot_writer_abort(w);
		r = riot_reader_open(path, err, sizeof(err));
		while (r && riot_reader_next(r, &got) > 0)
			;
		CHECK(r && !riot_reader_complete(r));
		CHECK(r && riot_reader_end_section(r, RIOT_END_DEVICES, &len) == NULL);
		riot_reader_close(r);
	}
}

static void make_block(struct run_block *b, struct run_device *d, struct run_depth_point *pts)
{
	memset(d, 0, 2 * sizeof(*d));
	*b = (struct run_block){ .window_ns = 123456789, .flush_ns = 4567, .synced = true,
				 .dev = d, .ndev = 2 };
	d[0].dev = 0x700003;
	strcpy(d[0].name, "loop3");
	strcpy(d[0].kind, "loop");
	strcpy(d[0].note, "loop device backed by /img");
	for (unsigned k = 0; k < RUN_DEV_OPS; k++) {
		d[0].reqs[k] = 10 + k;
		d[0].bytes[k] = (k + 1) * 4096;
	}
	for (unsigned k = 0; k < 2; k++) {
		hist_init(&d[0].lat[k]);
		hist_add(&d[0].lat[k], 5);
		hist_add(&d[0].lat[k], 100000 + k);
		hist_add(&d[0].lat[k], 7000000000ull);
	}
	d[0].lat_sum_all = 99;
	d[0].depth_peak = 32;
	d[0].untimed = 2;
	d[0].depth_step_ns = 20000000;
	pts[0] = (struct run_depth_point){ 0, 1.5, 3 };
	pts[1] = (struct run_depth_point){ 20000000, 0.25, 32 };
	d[0].depth = pts;
	d[0].ndepth = 2;
	d[1].dev = 0x800001;
	strcpy(d[1].name, "sda1");
	strcpy(d[1].kind, "partition");
	hist_init(&d[1].lat[0]);
	hist_init(&d[1].lat[1]);
}

static void codec(void)
{
	struct run_device d[2];
	struct run_depth_point pts[2];
	struct run_block b, got;
	uint8_t *buf;
	size_t len;

	make_block(&b, d, pts);
	CHECK_EQ(run_block_encode(&b, &buf, &len), 0);
	CHECK_EQ(run_block_decode(buf, len, &got), 0);
	CHECK_U64(got.window_ns, b.window_ns);
	CHECK_U64(got.flush_ns, b.flush_ns);
	CHECK(got.synced);
	CHECK_EQ(got.ndev, 2);
	if (got.ndev == 2) {
		for (unsigned i = 0; i < 2; i++) {
			CHECK_U64(got.dev[i].dev, d[i].dev);
			CHECK(strcmp(got.dev[i].name, d[i].name) == 0);
			CHECK(strcmp(got.dev[i].kind, d[i].kind) == 0);
			CHECK(strcmp(got.dev[i].note, d[i].note) == 0);
			CHECK(memcmp(got.dev[i].reqs, d[i].reqs, sizeof(d[i].reqs)) == 0);
			CHECK(memcmp(got.dev[i].bytes, d[i].bytes, sizeof(d[i].bytes)) == 0);
			for (unsigned k = 0; k < 2; k++) {
				CHECK(memcmp(got.dev[i].lat[k].b, d[i].lat[k].b,
					     sizeof(d[i].lat[k].b)) == 0);
				CHECK_U64(got.dev[i].lat[k].count, d[i].lat[k].count);
				CHECK_U64(got.dev[i].lat[k].sum, d[i].lat[k].sum);
				CHECK_U64(got.dev[i].lat[k].max, d[i].lat[k].count ? d[i].lat[k].max : 0);
				CHECK_U64(hist_quantile(&got.dev[i].lat[k], 0.5),
					  hist_quantile(&d[i].lat[k], 0.5));
				CHECK_U64(hist_quantile(&got.dev[i].lat[k], 0.99),
					  hist_quantile(&d[i].lat[k], 0.99));
			}
			CHECK_U64(got.dev[i].lat_sum_all, d[i].lat_sum_all);
			CHECK_U64(got.dev[i].depth_peak, d[i].depth_peak);
			CHECK_U64(got.dev[i].untimed, d[i].untimed);
			CHECK_U64(got.dev[i].depth_step_ns, d[i].depth_step_ns);
			CHECK_EQ(got.dev[i].ndepth, d[i].ndepth);
		}
		CHECK_U64(got.dev[0].depth[1].t_ns, 20000000);
		CHECK(got.dev[0].depth[0].depth == 1.5 && got.dev[0].depth[1].depth == 0.25);
		CHECK_EQ(got.dev[0].depth[1].depth_max, 32);
	}
	run_block_free(&got);

	/* every cut is refused (a longer encoding only appends) */
	for (size_t n = 0; n < len; n++) {
		int rc = run_block_decode(buf, n, &got);

		CHECK_EQ(rc, -EBADMSG);
		if (rc == 0)
			run_block_free(&got);
	}
	/* every byte flipped: refused or decoded, never a crash or a leak */
	for (size_t i = 0; i < len; i++) {
		for (unsigned v = 0; v < 256; v += 51) {
			uint8_t save = buf[i];

			buf[i] = (uint8_t)v;
			if (run_block_decode(buf, len, &got) == 0)
				run_block_free(&got);
			buf[i] = save;
		}
	}
	free(buf);
}

int main(void)
{
	char path[] = "/tmp/riot-test-device.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	sections(path);
	codec();
	unlink(path);
	return unit_done();
}
