/* capture/summary.c: what capture says: the header's description of the
 * target, the live line on a terminal, the summary at the end. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_int.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "model/model.h"

/* ---- the log ---- */

void capture_join_args(char *buf, size_t len, const char *first, int argc,
		      char **argv)
{
	size_t n = snprintf(buf, len, "%s", first);

	for (int i = 0; i < argc && n < len; i++)
		n += snprintf(buf + n, len - n, " %s", argv[i]);
}

void capture_describe(const struct capture_opts *o, char *target, size_t tlen,
		     char *opts, size_t olen)
{
	size_t n = 0;

	if (o->cmd) {
		int argc = 0;

		while (o->cmd[argc])
			argc++;
		capture_join_args(target, tlen, "command:", argc, o->cmd);
	} else if (o->mode == RIOT_TARGET_PIDS) {
		n = snprintf(target, tlen, "pids:");
		for (unsigned i = 0; i < o->npids && n < tlen; i++)
			n += snprintf(target + n, tlen - n, "%s%d", i ? "," : " ",
				      o->pids[i]);
	} else if (o->mode == RIOT_TARGET_CGROUP) {
		snprintf(target, tlen, "cgroup: %s", o->cgroup);
	} else {
		snprintf(target, tlen, "all");
	}
	n = snprintf(opts, olen, "ring=%lluMiB", (unsigned long long)(o->ring_bytes >> 20));
	if (o->comm && n < olen)
		n += snprintf(opts + n, olen - n, " comm=%s", o->comm);
	if (o->path_prefix && n < olen)
		n += snprintf(opts + n, olen - n, " path=%s", o->path_prefix);
	if (!o->all_ops && n < olen) {
		n += snprintf(opts + n, olen - n, " ops=");
		for (unsigned s = 0, first = 1; s < RIOT_SYS_COUNT && n < olen; s++) {
			if (!(o->sys_on[s / 64] >> (s % 64) & 1))
				continue;
			n += snprintf(opts + n, olen - n, "%s%s", first ? "" : ",",
				      riot_sys_info(s)->name);
			first = 0;
		}
	}
	if (o->duration > 0 && n < olen)
		snprintf(opts + n, olen - n, " duration=%gs", o->duration);
}

static uint64_t logged_events(const struct capture *c)
{
	const struct rotation_totals *rt = c->rot ? rotation_totals(c->rot) : NULL;

	return riot_writer_count(c->w, RIOT_REC_SYSCALL) + riot_writer_count(c->w, RIOT_REC_PROC) +
	       (rt ? rt->syscalls + rt->procs : 0);
}

static uint64_t logged_bytes(const struct capture *c)
{
	return riot_writer_bytes(c->w) + (c->rot ? rotation_totals(c->rot)->bytes : 0);
}

void capture_live_start(struct live *l, const struct capture *c, const struct capture_opts *o)
{
	char target[4096], opts[2048], dur[64] = "";

	if (o->cmd || o->quiet)
		return;
	capture_describe(o, target, sizeof(target), opts, sizeof(opts));
	if (o->duration > 0)
		snprintf(dur, sizeof(dur), " for %g s", o->duration);
	fprintf(stderr, "riot capture: recording %s into %s%s; Ctrl-C stops\n",
		o->mode == RIOT_TARGET_ALL ? "every process" : target, o->out, dur);
	l->on = isatty(STDERR_FILENO);
	l->t_ns = riot_now_ns(CLOCK_MONOTONIC);
	l->events = logged_events(c);
}

void capture_live_show(struct live *l, const struct capture *c, uint64_t now)
{
	uint64_t events;
	double secs = now > l->t_ns ? (double)(now - l->t_ns) / 1e9 : 0;
	char size[32];
	int n;

	if (!l->on || !c->w)
		return;
	events = logged_events(c);
	fputc('\r', stderr);
	n = fprintf(stderr, "  %llu events, %.0f events/s, %llu drops, log %s",
		    (unsigned long long)events,
		    secs > 0 ? (double)(events - l->events) / secs : 0.0,
		    (unsigned long long)(c->ring_lost + c->slot_lost),
		    riot_fmt_bytes(logged_bytes(c), size, sizeof(size)));
	if (n < l->width)	/* blank out the rest of a longer line */
		fprintf(stderr, "%*s", l->width - n, "");
	l->width = n > l->width ? n : l->width;
	l->t_ns = now;
	l->events = events;
}

void capture_live_end(struct live *l)
{
	if (l->on && l->width)
		fprintf(stderr, "\r%*s\r", l->width, "");
	l->on = false;
}

void capture_print_summary(const struct capture *c, const char *out,
			  const struct log_totals *lt, uint64_t bytes)
{
	uint64_t events = lt->syscalls + lt->procs;
	char size[32];

	fprintf(stderr,
		"riot capture: %s\n"
		"  events     %llu (%llu syscalls, %llu process events)\n",
		out, (unsigned long long)events,
		(unsigned long long)lt->syscalls,
		(unsigned long long)lt->procs);
	if (c->pf)
		fprintf(stderr, "  filtered   %llu (outside --path; %llu of them "
			"in the kernel)\n",
			(unsigned long long)(c->filtered + c->kfiltered),
			(unsigned long long)c->kfiltered);
	if (c->pf && path_filter_error(c->pf))
		fprintf(stderr, "  --path     stopped filtering: %s; every record "
			"since kept\n", model_strerror(path_filter_error(c->pf)));
	fprintf(stderr, "  drops      %llu", (unsigned long long)(c->ring_lost +
							      c->slot_lost));
	if (c->ring_lost || c->slot_lost)
		fprintf(stderr, " (ring buffer full: %llu, no task slot: %llu)"
			" — counts are lower bounds",
			(unsigned long long)c->ring_lost,
			(unsigned long long)c->slot_lost);
	if (c->malformed)
		fprintf(stderr, ", %llu malformed", (unsigned long long)c->malformed);
	if (c->unfollowed)
		fprintf(stderr, "\n  untraced   %llu new processes (traced set full)",
			(unsigned long long)c->unfollowed);
	fprintf(stderr, "\n  duration   %.3f s\n  log size   %s, %.2f bytes/event\n",
		lt->ns / 1e9, riot_fmt_bytes(bytes, size, sizeof(size)),
		events ? (double)bytes / events : 0.0);
	if (c->cpu_start_ns && c->cpu_end_ns >= c->cpu_start_ns + c->cpu_detach_ns) {
		uint64_t rec = c->cpu_end_ns - c->cpu_start_ns - c->cpu_detach_ns;

		fprintf(stderr, "  riot CPU   %.3f s recording", rec / 1e9);
		if (events)
			fprintf(stderr, " (%.0f ns/event)", (double)rec / events);
		fprintf(stderr, ", %.3f s to start and stop\n",
			(c->cpu_start_ns + c->cpu_detach_ns) / 1e9);
	}
	if (c->rot)
		fprintf(stderr, "  segments   %llu written, the last %s\n",
			(unsigned long long)rotation_totals(c->rot)->segments + 1, out);
}
