/* tests/fuzz/fuzz_strace.c: libFuzzer target for the strace importer. The
 * input is taken as strace output, line by line; every record the importer
 * makes is also resolved by a model, as a reader of the log would. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "convert/strace.h"
#include "model/model.h"

static int resolve(const struct riot_rec *r, void *arg)
{
	return model_apply(arg, r, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strace_import_opts o = { .cwd = "/w" };
	struct model *m = model_new();
	struct strace_importer *im = m ? strace_importer_new(&o, resolve, m) : NULL;
	const char *p = (const char *)data, *end = p + size;

	while (im && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (strace_importer_line(im, p, n))
			break;
		p += n + 1;
	}
	if (im)
		strace_importer_finish(im);
	strace_importer_free(im);
	model_free(m);
	return 0;
}
