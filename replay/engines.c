/* replay/engines.c: the engine table (engine.h), and what every engine's
 * threads share: the gate they start at, their start. A new engine is its own
 * file, defining `const struct replay_engine replay_engine_NAME`, plus
 * one line in ENGINES; the first line is the default, the engine whose
 * measurements are the most faithful (replay/ENGINES.md). */
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/engine.h"

#define ENGINES \
	ENGINE(sync) \
	ENGINE(uring)

#define ENGINE(name) extern const struct replay_engine replay_engine_##name;
ENGINES
#undef ENGINE

const struct replay_engine *const replay_engines[] = {
#define ENGINE(name) &replay_engine_##name,
	ENGINES
#undef ENGINE
};

const unsigned replay_nengines = sizeof(replay_engines) / sizeof(replay_engines[0]);

const struct replay_engine *replay_engine_find(const char *name)
{
	for (unsigned i = 0; i < replay_nengines; i++) {
		const struct replay_engine *e = replay_engines[i];

		if (strcmp(e->name, name) == 0 || (e->alias && strcmp(e->alias, name) == 0))
			return e;
	}
	return NULL;
}

void replay_engine_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < replay_nengines && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      replay_engines[i]->name);
}

void replay_engines_help(FILE *out)
{
	fputs("\nEngines (--engine):\n", out);
	for (unsigned i = 0; i < replay_nengines; i++) {
		const struct replay_engine *e = replay_engines[i];
		const char *p = e->help;

		fprintf(out, "  %-8s%s", e->name, i ? "" : "(default) ");
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t k = nl ? (size_t)(nl - p) : strlen(p);

			fprintf(out, "%s%.*s\n", p == e->help ? "" : "            ", (int)k, p);
			p += k + (nl ? 1 : 0);
		}
	}
}

/* The engine threads sleep on the gate itself, so they all run as soon as
 * it opens: a polling sleep would start the run up to its period late. */
void replay_ctx_open_gate(struct replay_ctx *cx)
{
	atomic_store(&cx->started, 1);
	syscall(SYS_futex, (uint32_t *)&cx->started, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

void replay_ctx_wait_gate(struct replay_ctx *cx)
{
	while (!atomic_load(&cx->started))
		syscall(SYS_futex, (uint32_t *)&cx->started, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

struct thread_start {
	void *(*fn)(void *);
	void *arg;
};

/* A thread's first malloc makes its allocator arena (mmap, mprotect) and
 * its first histogram faults 30 KiB in: done here, before the thread's
 * first op, not between two of them. */
static void *thread_main(void *p)
{
	struct thread_start ts = *(struct thread_start *)p;
	struct hist *h = malloc(sizeof(*h));

	free(p);
	if (h)
		hist_init(h);
	free(h);
	return ts.fn(ts.arg);
}

bool replay_thread_start(pthread_t *th, size_t stack, void *(*fn)(void *), void *arg)
{
	struct thread_start *ts = malloc(sizeof(*ts));
	pthread_attr_t attr;
	bool ok;

	if (!ts)
		return false;
	*ts = (struct thread_start){ fn, arg };
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	ok = pthread_create(th, &attr, thread_main, ts) == 0;
	pthread_attr_destroy(&attr);
	if (!ok)
		free(ts);
	return ok;
}
