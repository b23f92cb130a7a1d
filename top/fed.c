/* top/fed.c: the view fed by another command (top.h: riot replay --top).
 * The same aggregate and tabs as riot top, over operations handed in one
 * by one instead of a capture's records; no resolver: paths come as the
 * command has them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "top/top.h"
#include "top/top_int.h"

struct top_fed {
	struct top_agg agg;
	struct top_term term;
	struct top_view *view;
	struct top_src src;
	char title[256], note[128];
};

struct top_fed *top_fed_open(const char *title, const char *gap_name, char *why, size_t len)
{
	struct top_fed *f = calloc(1, sizeof(*f));

	if (!f || top_agg_init(&f->agg)) {
		snprintf(why, len, "out of memory");
		free(f);
		return NULL;
	}
	/* paths come resolved: the resolver would hold them twice */
	model_free(f->agg.m);
	f->agg.m = NULL;
	if (top_term_open(&f->term, why, len)) {
		top_agg_fini(&f->agg);
		free(f);
		return NULL;
	}
	if (!(f->view = top_view_new(&f->term))) {
		snprintf(why, len, "out of memory");
		top_fed_close(f);
		return NULL;
	}
	snprintf(f->title, sizeof(f->title), "%s", title);
	f->src.agg = &f->agg;
	f->src.title = f->title;
	f->src.gap_name = gap_name;
	return f;
}

void top_fed_name(struct top_fed *f, uint32_t pid, const char *comm)
{
	top_agg_name(&f->agg, pid, comm);
}

void top_fed_fork(struct top_fed *f, uint32_t parent, uint32_t child)
{
	const char *c = top_agg_comm(&f->agg, parent);

	if (strcmp(c, "?"))
		top_agg_name(&f->agg, child, c);
}

int top_fed_add(struct top_fed *f, const struct top_fed_op *op)
{
	struct riot_syscall sc;

	memset(&sc, 0, sizeof(sc));
	sc.t = op->t_ns;
	sc.dur = op->dur_ns;
	sc.ret = op->ret;
	sc.pid = op->pid;
	sc.tid = op->tid;
	sc.sys = op->sys;
	sc.fd = -1;
	return top_agg_add_op(&f->agg, &sc, op->path, op->gap_ns);
}

int top_fed_step(struct top_fed *f, uint64_t now_ns, uint64_t lost, int timeout_ms)
{
	f->src.now = now_ns;
	f->src.lost = lost;
	return top_view_step(f->view, &f->src, timeout_ms) == TOP_QUIT;
}

void top_fed_end(struct top_fed *f, const char *note, const volatile int *stop)
{
	snprintf(f->note, sizeof(f->note), "%s; q quits", note);
	f->src.end_note = f->note;
	f->src.ended = true;
	while (!*stop && top_view_step(f->view, &f->src, 200) != TOP_QUIT)
		;
}

void top_fed_close(struct top_fed *f)
{
	if (!f)
		return;
	if (f->view)
		top_view_free(f->view);
	top_term_close(&f->term);
	top_agg_fini(&f->agg);
	free(f);
}
