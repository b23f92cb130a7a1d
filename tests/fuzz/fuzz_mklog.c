/* libFuzzer target: the text form of a log (tests/bin/mklog.c's grammar,
 * one record a line) built into a log and read back by every reader of
 * the planners' path: the log reader and the model (riot info's pass),
 * the replay plan and the init plan (riot replay --dry-run).
 *
 * Structure-aware: the input is mklog text, not log bytes, so a mutation
 * changes a syscall's name, a key, a number, a flag or a path (its
 * escapes \xHH and \{N*TEXT} included) and the readers see a valid log of
 * another workload rather than a checksum failure. run.sh seeds it with
 * the hostile cases of tests/hostile and gives it a dictionary of every
 * record and syscall name, key and flag name. A line mklog refuses is left
 * out (its reason ignored), as are records the writer refuses; at most
 * MAX_RECORDS records a run. Header strings come from the input's first
 * line when it starts with "#!": host, kernel and command line, with the
 * path escapes. */
#include "formats/log.h"
#include "model/model.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/bin/mklog_text.h"
#include "tests/fuzz/fuzz_dry.h"

#define MAX_RECORDS 4000

/* The "#!host kernel cmdline" line: the header's strings, unescaped into
 * c's strings (freed with the line). */
static void header_line(struct line_ctx *c, char *line, struct riot_log_header *h)
{
	jmp_buf fail;
	const char **field[] = { &h->host, &h->kernel, &h->cmdline };
	char *save, *tok = strtok_r(line + 2, " \t\r", &save);

	c->fail = &fail;
	if (setjmp(fail))
		return;
	for (unsigned i = 0; tok && i < 3; i++, tok = strtok_r(NULL, " \t\r", &save))
		*field[i] = parse_str(c, tok).s;
}

/* The text in data, as mklog makes it, into a log at path; 0 when
 * written. */
static int write_text(const char *path, const uint8_t *data, size_t size)
{
	struct riot_log_header h = { .host = "fuzz", .kernel = "fuzz", .arch = "x86_64",
				     .riot_version = "fuzz", .cmdline = "fuzz", .start_t = 1000 };
	struct riot_writer_opts o = { .block_bytes = 512 };
	struct line_ctx hc = { 0 }, c = { .t = 1000 };
	struct riot_writer *w;
	char *text = malloc(size + 1), *line, *next;
	unsigned n = 0;
	int rc = 0;

	if (!text)
		return -1;
	memcpy(text, data, size);
	text[size] = '\0';
	line = text;
	next = strchr(line, '\n');
	if (next)
		*next++ = '\0';
	if (line[0] == '#' && line[1] == '!') {
		header_line(&hc, line, &h);
		line = next;
	}
	w = riot_writer_open(path, &h, &o);
	line_free(&hc);
	if (!w) {
		free(text);
		return -1;
	}
	for (; line && n < MAX_RECORDS && !rc; line = next) {
		jmp_buf fail;
		struct riot_rec r;
		char *p = line + strspn(line, " \t");

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		c.lineno++;
		if (*p == '#' || *p == '\0')
			continue;
		c.fail = &fail;
		if (setjmp(fail) == 0 && parse_line(&c, p, &r)) {
			/* a record the writer refuses is left out; an error of
			 * the file itself ends the log */
			rc = riot_writer_add(w, &r);
			rc = rc == -EINVAL || rc == -E2BIG || rc == -ENAMETOOLONG ? 0 : rc;
			n++;
		}
		line_free(&c);
	}
	free(text);
	if (rc) {
		riot_writer_abort(w);
		return -1;
	}
	return riot_writer_close(w) ? -1 : 0;
}

/* riot info's pass: every record through the model. */
static void model_pass(const char *path)
{
	char err[512];
	struct riot_reader *rd = riot_reader_open(path, err, sizeof(err));
	struct model *m = model_new();
	struct riot_rec r;
	struct model_op op;

	while (rd && m && riot_reader_next(rd, &r) > 0)
		if (model_apply(m, &r, &op) == -ENOMEM)
			break;
	model_free(m);
	if (rd)
		riot_reader_close(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("fuzz_mklog", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || write_text(path, data, size))
		return 0;
	model_pass(path);
	dry_run(path);
	return 0;
}
