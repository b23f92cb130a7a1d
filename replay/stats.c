/* replay/stats.c: accounting and summaries of a replay (stats.h). */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/fields.h"
#include "lib/grow.h"
#include "lib/json.h"
#include "lib/text.h"
#include "replay/stats.h"

void replay_stats_init(struct replay_stats *s)
{
	memset(s, 0, sizeof(*s));
	hist_init(&s->delay);
}

void replay_stats_ready(struct replay_stats *s, const struct replay_op *op)
{
	struct replay_sys_stats *ss = &s->sys[op->sys < RIOT_SYS_COUNT ? op->sys : 0];

	if (!ss->lat && (ss->lat = malloc(sizeof(*ss->lat))))
		hist_init(ss->lat);
}

void replay_stats_free(struct replay_stats *s)
{
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		free(s->sys[i].lat);
	free(s->per_second);
	free(s->depth_captured);
	free(s->depth_replayed);
	free(s->astreams);
	memset(s, 0, sizeof(*s));
}

static int depth_hists(struct replay_stats *s)
{
	if (!s->depth_captured && (s->depth_captured = malloc(sizeof(struct hist))))
		hist_init(s->depth_captured);
	if (!s->depth_replayed && (s->depth_replayed = malloc(sizeof(struct hist))))
		hist_init(s->depth_replayed);
	return s->depth_captured && s->depth_replayed ? 0 : -ENOMEM;
}

void replay_account_depth(struct replay_stats *s, uint32_t captured, uint32_t replayed)
{
	if (depth_hists(s) < 0)
		return;	/* the depths are missing from the summary, no more */
	hist_add(s->depth_captured, captured);
	hist_add(s->depth_replayed, replayed);
}

int replay_stats_add_async_stream(struct replay_stats *s, const struct replay_async_stream *a)
{
	struct replay_async_stream *n = realloc(s->astreams, (s->nastreams + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->astreams = n;
	s->astreams[s->nastreams++] = *a;
	return 0;
}

static bool byte_result(unsigned act)
{
	switch (act) {
	case ACT_READ: case ACT_WRITE: case ACT_GETDENTS: case ACT_READLINK:
	case ACT_XATTR_GET: case ACT_XATTR_LIST: case ACT_COPY:
		return true;
	default:
		return false;
	}
}

/* How the replayed result differs from the captured one, or 0. An open's
 * fd number, a getdents byte count (entry sizes depend on the filesystem)
 * and a readlink's (the length of a target riot rewrote to keep the link
 * in the root: replay_root_link_target()) are compared as success or
 * failure only. */
static int divergence(const struct replay_op *op, int64_t res)
{
	if ((op->ret < 0) != (res < 0) || (op->ret < 0 && op->ret != res))
		return RUN_DIV_RESULT;
	if (res >= 0 && byte_result(op->act) && op->act != ACT_GETDENTS &&
	    op->act != ACT_READLINK && op->ret != res)
		return RUN_DIV_BYTES;
	return 0;
}

static void note_example(struct replay_sys_stats *ss, const struct replay_op *op, int64_t res)
{
	struct replay_div_example *e;

	if (ss->nexamples >= REPLAY_DIV_EXAMPLES)
		return;
	e = &ss->examples[ss->nexamples++];
	e->seq = op->seq;
	e->captured = op->ret;
	e->replayed = res;
	snprintf(e->path, sizeof(e->path), "%s", op->path ? op->path : "");
}

static int ensure_seconds(struct replay_stats *s, uint64_t sec)
{
	return GROW(s->per_second, s->nseconds, sec + 1, 64);
}

static void count_second(struct replay_stats *s, uint64_t end_ns)
{
	uint64_t sec = end_ns / 1000000000u;

	if (ensure_seconds(s, sec) == 0)
		s->per_second[sec]++;
	if (end_ns > s->last_end_ns)
		s->last_end_ns = end_ns;
}

static void count_bytes(struct replay_stats *s, struct replay_sys_stats *ss,
			const struct replay_op *op, int64_t res)
{
	if (res <= 0)
		return;
	if (op->act == ACT_READ || op->act == ACT_COPY)
		s->bytes_read += (uint64_t)res;
	if (op->act == ACT_WRITE || op->act == ACT_COPY)
		s->bytes_written += (uint64_t)res;
	if (op->act == ACT_READ || op->act == ACT_WRITE || op->act == ACT_COPY)
		ss->bytes += (uint64_t)res;
}

static void report_op(struct replay_report *rep, const struct replay_op *op,
		      const struct replay_done *d, int div)
{
	struct run_op ro = {
		.sys = op->sys, .pid = op->pid, .tid = op->tid, .file = op->file,
		.path_id = op->path_id, .t_ns = d->t_ns, .lat_ns = d->lat_ns,
		.ret = d->result, .issue_delay_ns = d->delay_ns,
	};

	pthread_mutex_lock(&rep->lock);
	if (d->issued)
		run_acc_op(rep->acc, &ro);
	if (div)
		run_acc_divergence(rep->acc, op->sys, (enum run_divergence)div, op->ret,
				   d->issued ? d->result : 0, op->path);
	pthread_mutex_unlock(&rep->lock);
}

void replay_report_proc(void *ctx, const struct riot_rec *r)
{
	struct replay_report *rep = ctx;

	pthread_mutex_lock(&rep->lock);
	run_acc_proc_record(rep->acc, r);	/* names only: a failure loses a name */
	pthread_mutex_unlock(&rep->lock);
}

static void account_not_issued(struct replay_stats *s, struct replay_sys_stats *ss,
			       const struct replay_op *op, const struct replay_done *d)
{
	const struct riot_sys_info *si = riot_sys_info(op->sys);

	if (si && op->ret > 0 && si->cls == RIOT_CLASS_DATA_READ)
		s->skipped_read += (uint64_t)op->ret;
	if (si && op->ret > 0 && si->cls == RIOT_CLASS_DATA_WRITE)
		s->skipped_written += (uint64_t)op->ret;
	if (op->act == ACT_STATE) {
		ss->state_only++;
	} else if (op->act == ACT_FAILED) {
		ss->failed_as_captured++;
	} else if (op->act == ACT_UNREPLAYABLE) {
		ss->unreplayable++;
	} else {
		unsigned why = d->skip ? d->skip : op->skip;

		ss->skipped++;
		s->skip_by[why < SKIP_COUNT ? why : SKIP_NONE]++;
	}
}

static replay_tap_fn *tap_fn;
static void *tap_ctx;

void replay_stats_tap(replay_tap_fn *fn, void *ctx)
{
	tap_ctx = ctx;
	tap_fn = fn;
}

void replay_account(struct replay_stats *s, struct replay_report *rep,
		    const struct replay_op *op, const struct replay_done *d)
{
	struct replay_sys_stats *ss = &s->sys[op->sys < RIOT_SYS_COUNT ? op->sys : 0];
	int div = 0;

	if (op->opflags & OPF_RELEASE) {
		/* the workload made no call for it: nothing to compare */
		s->released += d->issued;
		s->released_failed += d->issued && d->result < 0 && d->result != -EBADF;
		return;
	}
	if (tap_fn)
		tap_fn(tap_ctx, op, d);
	s->ops++;
	ss->ops++;
	if (!d->issued) {
		account_not_issued(s, ss, op, d);
		if (op->act != ACT_STATE && op->act != ACT_FAILED)
			div = RUN_DIV_SKIPPED;
	} else {
		s->issued++;
		ss->issued++;
		ss->fallbacks += d->fallback;
		ss->here += d->here;
		if (d->result < 0)
			ss->errors++;
		if (!ss->lat && (ss->lat = malloc(sizeof(*ss->lat))))
			hist_init(ss->lat);
		if (ss->lat)
			hist_add(ss->lat, d->lat_ns);
		if (d->delay_ns >= 0) {
			hist_add(&s->delay, (uint64_t)d->delay_ns);
			s->late += (uint64_t)d->delay_ns > REPLAY_LATE_NS;
		}
		count_bytes(s, ss, op, d->result);
		count_second(s, d->t_ns + d->lat_ns);
		div = divergence(op, d->result);
		s->flips += (op->ret < 0) != (d->result < 0);
		if (div) {
			ss->div[div]++;
			note_example(ss, op, d->result);
		}
	}
	if (rep)
		report_op(rep, op, d, div);
}

static void merge_sys(struct replay_sys_stats *a, const struct replay_sys_stats *b)
{
	a->ops += b->ops;
	a->issued += b->issued;
	a->errors += b->errors;
	a->bytes += b->bytes;
	a->fallbacks += b->fallbacks;
	a->here += b->here;
	a->state_only += b->state_only;
	a->failed_as_captured += b->failed_as_captured;
	a->skipped += b->skipped;
	a->unreplayable += b->unreplayable;
	for (unsigned k = 0; k < RUN_DIV_COUNT; k++)
		a->div[k] += b->div[k];
	for (unsigned i = 0; i < b->nexamples && a->nexamples < REPLAY_DIV_EXAMPLES; i++)
		a->examples[a->nexamples++] = b->examples[i];
}

int replay_stats_merge(struct replay_stats *into, const struct replay_stats *from)
{
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		const struct replay_sys_stats *b = &from->sys[i];
		struct replay_sys_stats *a = &into->sys[i];

		merge_sys(a, b);
		if (!b->lat)
			continue;
		if (!a->lat) {
			if (!(a->lat = malloc(sizeof(*a->lat))))
				return -ENOMEM;
			hist_init(a->lat);
		}
		hist_merge(a->lat, b->lat);
	}
	hist_merge(&into->delay, &from->delay);
	if (from->depth_captured) {
		if (depth_hists(into) < 0)
			return -ENOMEM;
		hist_merge(into->depth_captured, from->depth_captured);
		hist_merge(into->depth_replayed, from->depth_replayed);
	}
	for (uint32_t i = 0; i < from->nastreams; i++)
		if (replay_stats_add_async_stream(into, &from->astreams[i]) < 0)
			return -ENOMEM;
	into->late += from->late;
	into->ops += from->ops;
	into->issued += from->issued;
	into->bytes_read += from->bytes_read;
	into->bytes_written += from->bytes_written;
	into->reopened += from->reopened;
	into->missed_wakeups += from->missed_wakeups;
	into->released += from->released;
	into->released_failed += from->released_failed;
	into->flips += from->flips;
	into->skipped_read += from->skipped_read;
	into->skipped_written += from->skipped_written;
	for (unsigned k = 0; k < SKIP_COUNT; k++)
		into->skip_by[k] += from->skip_by[k];
	if (from->nseconds && ensure_seconds(into, from->nseconds - 1) < 0)
		return -ENOMEM;
	for (uint64_t sec = 0; sec < from->nseconds; sec++)
		into->per_second[sec] += from->per_second[sec];
	if (from->last_end_ns > into->last_end_ns)
		into->last_end_ns = from->last_end_ns;
	if (from->think_vend_ns > into->think_vend_ns)
		into->think_vend_ns = from->think_vend_ns;
	return 0;
}

static uint64_t sum_field(const struct replay_stats *s, size_t offset)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		n += *(const uint64_t *)((const char *)&s->sys[i] + offset);
	return n;
}

#define SUM(s, field) sum_field(s, offsetof(struct replay_sys_stats, field))

static uint64_t sum_div(const struct replay_stats *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		for (unsigned k = RUN_DIV_RESULT; k < RUN_DIV_COUNT; k++)
			if (k != RUN_DIV_SKIPPED)
				n += s->sys[i].div[k];
	return n;
}

static const char *sys_name(unsigned i)
{
	const struct riot_sys_info *si = riot_sys_info(i);

	return si ? si->name : "?";
}

static void print_counts(FILE *out, const char *what, const struct replay_stats *s, size_t offset)
{
	const char *sep = "";

	fprintf(out, "%-14s %" PRIu64, what, sum_field(s, offset));
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		uint64_t n = *(const uint64_t *)((const char *)&s->sys[i] + offset);

		if (n) {
			fprintf(out, "%s%s %" PRIu64, *sep ? ", " : " (", sys_name(i), n);
			sep = ",";
		}
	}
	fprintf(out, "%s\n", *sep ? ")" : "");
}

static void print_divergences(FILE *out, const struct replay_stats *s)
{
	char path[4 * 160 + 8];

	fprintf(out, "%-14s %" PRIu64 "\n", "divergences:", sum_div(s));
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		const struct replay_sys_stats *ss = &s->sys[i];

		if (!ss->div[RUN_DIV_RESULT] && !ss->div[RUN_DIV_BYTES])
			continue;
		fprintf(out, "  %-18s %" PRIu64 " other result, %" PRIu64 " other byte count\n",
			sys_name(i), ss->div[RUN_DIV_RESULT], ss->div[RUN_DIV_BYTES]);
		for (unsigned e = 0; e < ss->nexamples; e++)
			fprintf(out, "    op %" PRIu64 " %s: captured %" PRId64 "%s%s, replayed %"
				PRId64 "%s%s\n", ss->examples[e].seq,
				text_safe(ss->examples[e].path, path, sizeof(path)),
				ss->examples[e].captured, riot_errno_str(ss->examples[e].captured) ? " " : "",
				riot_errno_str(ss->examples[e].captured) ?: "",
				ss->examples[e].replayed, riot_errno_str(ss->examples[e].replayed) ? " " : "",
				riot_errno_str(ss->examples[e].replayed) ?: "");
	}
}

void replay_timing_of(const struct replay_stats *s, struct replay_timing *t)
{
	*t = (struct replay_timing){ .paced = s->delay.count, .late = s->late };
	if (t->paced) {
		t->p99_ns = hist_quantile(&s->delay, 0.99);
		t->max_ns = s->delay.max;
	}
	t->kept = t->p99_ns <= REPLAY_LATE_P99_NS && t->max_ns <= REPLAY_LATE_MAX_NS;
}

void replay_timing_warning(const struct replay_timing *t, char *buf, size_t len)
{
	char p99[32], max[32];

	riot_fmt_ns(t->p99_ns, p99, sizeof(p99));
	riot_fmt_ns(t->max_ns, max, sizeof(max));
	snprintf(buf, len, "warning: timing not kept: issue delay p99 %s, max %s; %" PRIu64
		 " of %" PRIu64 " paced ops (%.1f %%) issued over 1 ms late", p99, max, t->late,
		 t->paced, t->paced ? 100.0 * (double)t->late / (double)t->paced : 0.0);
}

/* Skipped ops that lose storage I/O: not those on pipes, sockets, devices
 * or /proc, /sys and /dev, which no storage would have served. */
static uint64_t storage_skips(const struct replay_stats *s)
{
	uint64_t n = 0;

	for (unsigned k = 1; k < SKIP_COUNT; k++)
		if (k != SKIP_NOT_A_PATH && k != SKIP_PSEUDO && k != SKIP_DEVICE)
			n += s->skip_by[k];
	return n;
}

void replay_trust_of(const struct replay_stats *s, struct replay_trust *t)
{
	uint64_t div = sum_div(s), skipped = storage_skips(s), unrep = SUM(s, unreplayable);

	*t = (struct replay_trust){ .off = div + skipped + unrep };
	t->unreliable = s->flips ||
		(s->ops && (double)t->off > REPLAY_UNRELIABLE_SHARE * (double)s->ops);
	if (!t->unreliable)
		return;
	snprintf(t->warning, sizeof(t->warning), "warning: not the captured I/O: %" PRIu64
		 " divergences (%" PRIu64 " of them success against failure), %" PRIu64
		 " skipped, %" PRIu64 " unreplayable of %" PRIu64 " operations (%.1f %%): its "
		 "times describe this replay, not the program", div, s->flips, skipped, unrep,
		 s->ops, s->ops ? 100.0 * (double)t->off / (double)s->ops : 0.0);
}

/* A syscall's line of the summary: its text table's columns and its
 * member of the JSON's "syscalls" are this one list (a field with no
 * heading is JSON only). */
struct sys_row {
	uint64_t ops, issued, errors, bytes, fallbacks, here, state_only, failed_as_captured,
		 skipped, unreplayable, div_result, div_bytes;
	uint64_t lat_count, lat_p50, lat_p99;	/* text "-" when lat_count is 0 */
};

#define SROW(m) offsetof(struct sys_row, m), 0
#define SROW_IF(m, c) offsetof(struct sys_row, m), offsetof(struct sys_row, c)
static const struct field sys_fields[] = {
	{ "ops", "ops", 10, FIELD_U64, SROW(ops) },
	{ "issued", "issued", 10, FIELD_U64, SROW(issued) },
	{ "errors", "errors", 8, FIELD_U64, SROW(errors) },
	{ "bytes", "bytes", 12, FIELD_U64, SROW(bytes) },
	{ "fallbacks", NULL, 0, FIELD_U64, SROW(fallbacks) },
	{ "inline", NULL, 0, FIELD_U64, SROW(here) },
	{ "state_only", NULL, 0, FIELD_U64, SROW(state_only) },
	{ "failed_as_captured", NULL, 0, FIELD_U64, SROW(failed_as_captured) },
	{ "skipped", NULL, 0, FIELD_U64, SROW(skipped) },
	{ "unreplayable", NULL, 0, FIELD_U64, SROW(unreplayable) },
	{ "div_result", NULL, 0, FIELD_U64, SROW(div_result) },
	{ "div_bytes", NULL, 0, FIELD_U64, SROW(div_bytes) },
	{ "lat_p50_ns", "p50", 10, FIELD_NS_IF, SROW_IF(lat_p50, lat_count) },
	{ "lat_p99_ns", "p99", 10, FIELD_NS_IF, SROW_IF(lat_p99, lat_count) },
};

static void sys_row(struct sys_row *r, const struct replay_sys_stats *ss)
{
	*r = (struct sys_row){
		.ops = ss->ops, .issued = ss->issued, .errors = ss->errors, .bytes = ss->bytes,
		.fallbacks = ss->fallbacks, .here = ss->here, .state_only = ss->state_only,
		.failed_as_captured = ss->failed_as_captured, .skipped = ss->skipped,
		.unreplayable = ss->unreplayable, .div_result = ss->div[RUN_DIV_RESULT],
		.div_bytes = ss->div[RUN_DIV_BYTES],
		.lat_count = ss->lat ? ss->lat->count : 0,
		.lat_p50 = ss->lat ? hist_quantile(ss->lat, 0.5) : 0,
		.lat_p99 = ss->lat ? hist_quantile(ss->lat, 0.99) : 0,
	};
}

static void print_timing(FILE *out, const struct replay_summary_info *si)
{
	if (strcmp(si->timing, "think") == 0)
		fprintf(out, "timing think");
	else if (si->speed == 0)
		fprintf(out, "as fast as possible");
	else
		fprintf(out, "captured timing, speed %g", si->speed);
}

void replay_print_summary(FILE *out, const struct replay_stats *s,
			  const struct replay_summary_info *si)
{
	double secs = (double)si->elapsed_ns / 1e9;
	char b1[32], b2[32], p50[32], p99[32], warn[256];
	struct replay_timing tm;
	struct replay_trust trust;

	replay_trust_of(s, &trust);
	if (trust.unreliable)
		fprintf(out, "%s\n", trust.warning);
	fprintf(out, "replay:        %s engine, %s order, ", si->engine, si->order);
	print_timing(out, si);
	fprintf(out, ", %u workers, %u streams%s\n", si->workers, si->streams,
		si->log_complete ? "" : ", log incomplete");
	if (si->shard_n)
		fprintf(out, "shard:         %u of %u (its processes' operations only)\n",
			si->shard_k, si->shard_n);
	if (si->start_at)
		fprintf(out, "start:         %" PRId64 " ns after the epoch, %s after --start-at\n",
			si->start_unix_ns, riot_fmt_ns(si->start_late_ns, b1, sizeof(b1)));
	fprintf(out, "operations:    %" PRIu64 " (%" PRIu64 " issued, %" PRIu64 " state only, %"
		PRIu64 " failed as captured, %" PRIu64 " skipped, %" PRIu64 " unreplayable)\n",
		s->ops, s->issued, SUM(s, state_only), SUM(s, failed_as_captured),
		SUM(s, skipped), SUM(s, unreplayable));
	fprintf(out, "bytes:         %s read, %s written\n",
		riot_fmt_bytes(s->bytes_read, b1, sizeof(b1)),
		riot_fmt_bytes(s->bytes_written, b2, sizeof(b2)));
	if (s->skipped_read || s->skipped_written)
		fprintf(out, "not replayed:  %s read, %s written by skipped or unreplayable ops\n",
			riot_fmt_bytes(s->skipped_read, b1, sizeof(b1)),
			riot_fmt_bytes(s->skipped_written, b2, sizeof(b2)));
	if (s->released)
		fprintf(out, "implicit closes: %" PRIu64 " (files let go by dup2, close_range, exec, "
			"exit), %" PRIu64 " failed\n", s->released, s->released_failed);
	fprintf(out, "elapsed:       %.3f s, %.0f issued ops/s\n", secs,
		secs > 0 ? (double)s->issued / secs : 0);
	if (strcmp(si->timing, "think") == 0)
		fprintf(out, "predicted:     %.3f s: the program's time on this storage, from its "
			"start\n               to its end (captured: %.3f s, %+.1f %%)\n",
			(double)si->predicted_ns / 1e9, (double)si->captured_ns / 1e9,
			si->captured_ns ? 100.0 * ((double)si->predicted_ns /
						   (double)si->captured_ns - 1) : 0.0);
	else
		fprintf(out, "captured:      %.3f s: the program's time, from its start to its "
			"end\n               (--timing think predicts it on this storage)\n",
			(double)si->captured_ns / 1e9);
	riot_fmt_ns(si->clock_bias_ns, b1, sizeof(b1));
	fprintf(out, "latencies:     as the capture times them, in the kernel: less %s of\n"
		"               clock reads and syscall entry and exit (a null syscall's)\n", b1);
	replay_timing_of(s, &tm);
	if (s->delay.count) {
		riot_fmt_ns(hist_quantile(&s->delay, 0.5), p50, sizeof(p50));
		riot_fmt_ns(hist_quantile(&s->delay, 0.99), p99, sizeof(p99));
		riot_fmt_ns(s->delay.max, b1, sizeof(b1));
		/* the late share, kept time or not: a run can keep its p99
		 * and still have some ops late */
		fprintf(out, "issue delay:   p50 %s, p99 %s, max %s; %" PRIu64 " of %" PRIu64
			" paced ops (%.2f %%) over 1 ms late\n", p50, p99, b1, tm.late, tm.paced,
			tm.paced ? 100.0 * (double)tm.late / (double)tm.paced : 0.0);
		riot_fmt_ns(si->timer_lag_ns, b1, sizeof(b1));
		fprintf(out, "               (this machine's timers wake p99 %s late: the last\n"
			"               stretch before an op is due is spun or yielded, not slept)\n", b1);
	}
	if (!tm.kept) {
		replay_timing_warning(&tm, warn, sizeof(warn));
		fprintf(out, "%s\n", warn);
	}
	if (s->depth_captured && s->depth_captured->count)
		fprintf(out, "async depth:   %" PRIu32 " streams (rings, AIO contexts, mappings), %"
			PRIu64 " requests in flight at issue: captured max %" PRIu64 " p50 %" PRIu64
			", replayed max %" PRIu64 " p50 %" PRIu64 "\n"
			"               (aio:* replayed as io_uring requests, mmap:* as preads and\n"
			"               pwrites of the same ranges)\n",
			s->nastreams, s->depth_captured->count, s->depth_captured->max,
			hist_quantile(s->depth_captured, 0.5), s->depth_replayed->max,
			hist_quantile(s->depth_replayed, 0.5));
	print_counts(out, "fallbacks:", s, offsetof(struct replay_sys_stats, fallbacks));
	if (sum_field(s, offsetof(struct replay_sys_stats, here)))
		print_counts(out, "run inline:", s, offsetof(struct replay_sys_stats, here));
	print_divergences(out, s);
	print_counts(out, "failed as captured:", s,
		     offsetof(struct replay_sys_stats, failed_as_captured));
	print_counts(out, "unreplayable:", s, offsetof(struct replay_sys_stats, unreplayable));
	print_counts(out, "skipped:", s, offsetof(struct replay_sys_stats, skipped));
	for (unsigned k = 1; k < SKIP_COUNT; k++)
		if (s->skip_by[k])
			fprintf(out, "  %-18s %" PRIu64 "\n", replay_skip_name(k), s->skip_by[k]);
	fprintf(out, "\n%-18s", "syscall");
	fields_head(out, sys_fields, FIELDS_N(sys_fields));
	fputc('\n', out);
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		struct sys_row r;

		if (!s->sys[i].ops)
			continue;
		sys_row(&r, &s->sys[i]);
		fprintf(out, "%-18s", sys_name(i));
		fields_text(out, sys_fields, FIELDS_N(sys_fields), &r);
		fputc('\n', out);
	}
}

static void json_sys(struct json *j, const struct replay_sys_stats *ss, const char *name)
{
	struct sys_row r;

	sys_row(&r, ss);
	json_obj_open(j, name);
	fields_json(j, sys_fields, FIELDS_N(sys_fields), &r);
	json_arr_open(j, "examples");
	for (unsigned e = 0; e < ss->nexamples; e++) {
		json_obj_open(j, NULL);
		json_u64(j, "op", ss->examples[e].seq);
		json_str(j, "path", ss->examples[e].path);
		json_i64(j, "captured", ss->examples[e].captured);
		json_i64(j, "replayed", ss->examples[e].replayed);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

void replay_print_json(FILE *out, const struct replay_stats *s,
		       const struct replay_summary_info *si)
{
	struct json j;
	struct replay_timing tm;
	struct replay_trust trust;
	char warn[256];

	json_init(&j, out, false);
	json_obj_open(&j, NULL);
	json_str(&j, "engine", si->engine);
	json_str(&j, "order", si->order);
	json_str(&j, "timing", si->timing);
	json_double(&j, "speed", si->speed);
	json_u64(&j, "workers", si->workers);
	json_u64(&j, "streams", si->streams);
	json_bool(&j, "log_complete", si->log_complete);
	json_u64(&j, "elapsed_ns", si->elapsed_ns);
	if (strcmp(si->timing, "think") == 0)
		json_u64(&j, "predicted_ns", si->predicted_ns);
	else
		json_null(&j, "predicted_ns");
	json_u64(&j, "captured_ns", si->captured_ns);
	json_u64(&j, "clock_bias_ns", si->clock_bias_ns);
	json_u64(&j, "timer_lag_ns", si->timer_lag_ns);
	json_i64(&j, "start_unix_ns", si->start_unix_ns);
	if (si->start_at) {
		json_i64(&j, "start_at_ns", si->start_at_ns);
		json_u64(&j, "start_late_ns", si->start_late_ns);
	} else {
		json_null(&j, "start_at_ns");
		json_null(&j, "start_late_ns");
	}
	if (si->shard_n) {
		json_u64(&j, "shard_k", si->shard_k);
		json_u64(&j, "shard_n", si->shard_n);
	}
	json_u64(&j, "ops", s->ops);
	json_u64(&j, "issued", s->issued);
	json_u64(&j, "bytes_read", s->bytes_read);
	json_u64(&j, "bytes_written", s->bytes_written);
	json_u64(&j, "bytes_read_not_replayed", s->skipped_read);
	json_u64(&j, "bytes_written_not_replayed", s->skipped_written);
	json_u64(&j, "fallbacks", SUM(s, fallbacks));
	json_u64(&j, "inline", SUM(s, here));
	json_u64(&j, "divergences", sum_div(s));
	json_u64(&j, "flips", s->flips);
	replay_trust_of(s, &trust);
	json_bool(&j, "unreliable", trust.unreliable);
	if (trust.unreliable)
		json_str(&j, "warning", trust.warning);
	else
		json_null(&j, "warning");
	json_u64(&j, "failed_as_captured", SUM(s, failed_as_captured));
	json_u64(&j, "skipped", SUM(s, skipped));
	json_u64(&j, "unreplayable", SUM(s, unreplayable));
	json_u64(&j, "reopened", s->reopened);
	json_u64(&j, "missed_wakeups", s->missed_wakeups);
	json_u64(&j, "implicit_closes", s->released);
	json_u64(&j, "implicit_closes_failed", s->released_failed);
	json_u64(&j, "delay_count", s->delay.count);
	json_u64(&j, "delay_p50_ns", hist_quantile(&s->delay, 0.5));
	json_u64(&j, "delay_p99_ns", hist_quantile(&s->delay, 0.99));
	json_u64(&j, "delay_max_ns", s->delay.max);
	replay_timing_of(s, &tm);
	json_bool(&j, "timing_kept", tm.kept);
	json_u64(&j, "late_ops", tm.late);
	if (!tm.kept) {
		replay_timing_warning(&tm, warn, sizeof(warn));
		json_str(&j, "timing_warning", warn);
	}
	json_u64(&j, "async_requests", s->depth_captured ? s->depth_captured->count : 0);
	json_u64(&j, "async_depth_captured_max", s->depth_captured ? s->depth_captured->max : 0);
	json_u64(&j, "async_depth_captured_p50",
		 s->depth_captured ? hist_quantile(s->depth_captured, 0.5) : 0);
	json_u64(&j, "async_depth_replayed_max", s->depth_replayed ? s->depth_replayed->max : 0);
	json_u64(&j, "async_depth_replayed_p50",
		 s->depth_replayed ? hist_quantile(s->depth_replayed, 0.5) : 0);
	json_arr_open(&j, "async_streams");
	for (uint32_t i = 0; i < s->nastreams; i++) {
		json_obj_open(&j, NULL);
		json_u64(&j, "pid", s->astreams[i].pid);
		json_u64(&j, "ctx", s->astreams[i].ctx);
		json_u64(&j, "contexts", s->astreams[i].contexts);
		json_u64(&j, "requests", s->astreams[i].requests);
		json_u64(&j, "depth_captured_max", s->astreams[i].captured_max);
		json_u64(&j, "depth_replayed_max", s->astreams[i].replayed_max);
		json_u64(&j, "first_ns", s->astreams[i].first_ns);
		json_u64(&j, "last_ns", s->astreams[i].last_ns);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_open(&j, "skip_reasons");
	for (unsigned k = 1; k < SKIP_COUNT; k++)
		if (s->skip_by[k])
			json_u64(&j, replay_skip_name(k), s->skip_by[k]);
	json_obj_close(&j);
	json_obj_open(&j, "syscalls");
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++)
		if (s->sys[i].ops)
			json_sys(&j, &s->sys[i], sys_name(i));
	json_obj_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
}
