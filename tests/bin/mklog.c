/* mklog: writes a .riot log from a text description, one record a line, for
 * tests of everything that reads logs (init, replay, report).
 *
 * usage: mklog -o FILE [--host S] [--kernel S] [--cmdline S] [INPUT]
 *        (INPUT defaults to stdin; the header's strings take the escapes
 *        of a path below, so a test can give them any bytes)
 *
 * Lines (blank lines and lines starting with '#' are ignored):
 *
 *   SYSCALL key=value...      a syscall record; SYSCALL is a name from
 *                             bpf/syscalls.def (openat, pread64, readlink...)
 *   snap_proc pid=N cwd=PATH [ppid=N] [comm=S]
 *   snap_fd pid=N fd=N path=PATH [flags=F] [pos=N] [size=N] [ftype=T] [perm=N]
 *   proc_fork pid=N child=N [child_tid=N] [flags=F]
 *   proc_exec pid=N path=PATH [comm=S]
 *   proc_exit pid=N [code=N]
 *   drop count=N [cpu=N]
 *
 * Syscall keys: pid tid t dur ret fd fd2 dirfd dirfd2 path path2 off off2
 * count flags mode cmd arg iovcnt uid gid size ino dev ftype created perm ctx. A key
 * given sets its RIOT_HAS_* bit; ret defaults to 0, pid to 100, tid to pid,
 * t to 1000 ns after the previous record, dur to 500.
 *
 * Values: numbers are decimal or 0x hex, negative allowed; ret also takes
 * -ENAME (-ENOENT, -EEXIST, ...); fd and dirfd take AT_FDCWD; flags take
 * names joined by '|' (O_RDONLY O_WRONLY O_RDWR O_CREAT O_EXCL O_TRUNC
 * O_APPEND O_DIRECTORY O_NOFOLLOW O_CLOEXEC O_PATH O_DIRECT O_DSYNC
 * AT_SYMLINK_NOFOLLOW AT_REMOVEDIR AT_EMPTY_PATH RENAME_NOREPLACE
 * RENAME_EXCHANGE, and io_uring's IOSQE_FIXED_FILE IOSQE_IO_DRAIN
 * IOSQE_IO_LINK IOSQE_IO_HARDLINK) or a number;
 * ftype takes reg dir lnk sock fifo chr blk or a number; perm is octal. Strings (path,
 * path2, cwd, comm) run to the next space and take escapes: \xHH (any
 * byte), \\ (a backslash), \{N*TEXT} (TEXT repeated N times, for long
 * paths). A trailing '!' (path=/a/b!) marks the string truncated, as
 * capture does for a path it cut.
 *
 * Example:
 *   snap_proc pid=100 cwd=/data
 *   openat dirfd=AT_FDCWD path=/data/in flags=O_RDONLY ret=3 size=8192 ftype=reg created=0
 *   pread64 fd=3 off=0 count=4096 ret=4096
 *   readlink path=/data/link path2=in ret=2
 *   openat dirfd=AT_FDCWD path=/data/missing flags=O_RDONLY ret=-ENOENT
 *   io_uring:write ctx=1 fd=3 off=0 count=4096 flags=IOSQE_IO_LINK ret=4096
 *
 * Asynchronous requests (io_uring:*, aio:*, mmap:*) are named as in
 * bpf/syscalls.def; their t is the submission and dur runs to the
 * completion, so requests of one ctx overlap where t + dur passes the
 * next one's t.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"
#include "tests/bin/mklog_text.h"

int main(int argc, char **argv)
{
	struct riot_log_header h = {
		.host = "mklog", .kernel = "synthetic", .arch = "x86_64",
		.riot_version = "mklog", .cmdline = "mklog", .start_t = 1000,
	};
	const char *out = NULL, *in = NULL;
	struct line_ctx c = { .t = 1000 }, args = { 0 };
	struct riot_writer *w;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc)
			h.host = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			h.kernel = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "--cmdline") == 0 && i + 1 < argc)
			h.cmdline = parse_str(&args, argv[++i]).s;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			out = NULL, in = NULL, i = argc;
		else if (!in && argv[i][0] != '-')
			in = argv[i];
		else
			out = NULL, i = argc;
	}
	if (!out) {
		fputs("usage: mklog -o FILE [--host S] [--kernel S] [--cmdline S] [INPUT]\n"
		      "(see tests/bin/mklog.c for the format)\n",
		      stderr);
		line_free(&args);
		return 2;
	}
	f = in ? fopen(in, "r") : stdin;
	if (!f) {
		perror(in);
		line_free(&args);
		return 1;
	}
	w = riot_writer_open(out, &h, NULL);
	line_free(&args);	/* the header is written */
	if (!w) {
		perror(out);
		return 1;
	}
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		struct riot_rec r;
		char *p = line + strspn(line, " \t");

		c.lineno++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (parse_line(&c, p, &r))
			rc = riot_writer_add(w, &r);
		line_free(&c);
	}
	free(line);
	if (rc < 0) {
		fprintf(stderr, "mklog: line %u: %s\n", c.lineno, strerror(-rc));
		riot_writer_abort(w);
		return 1;
	}
	rc = riot_writer_close(w);
	if (rc < 0) {
		fprintf(stderr, "mklog: %s: %s\n", out, strerror(-rc));
		return 1;
	}
	return 0;
}
