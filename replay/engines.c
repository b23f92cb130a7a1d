/* replay/engines.c: the engine table (engine.h). A new engine is its own
 * file, defining `const struct replay_engine replay_engine_NAME`, plus
 * one line in ENGINES; the first line is the default, the engine whose
 * measurements are the most faithful (replay/ENGINES.md). */
#include <string.h>

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
