/* capture/capture.h: `riot capture`, recording file I/O with eBPF into a
 * .riot log (formats/log.h). */
#ifndef RIOT_CAPTURE_CAPTURE_H
#define RIOT_CAPTURE_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/events.h"
#include "capture/block.h"
#include "formats/log.h"

/* argv[0] is "capture". Returns the exit status: 0, 1 (runtime error),
 * 2 (usage), or with `-- CMD` the command's own status. */
int cmd_capture(int argc, char **argv);
/* Full text of `riot capture --help`. */
extern const char cmd_capture_help[];

/* What loading capture's BPF programs on the running kernel gives. */
struct capture_load {
	unsigned loaded, total;	/* programs loaded, programs riot has */
	double load_s;		/* wall seconds the kernel took to load them */
	char fallbacks[256];	/* comma-separated fallback names, "" none */
};

/* Loads the real programs (every syscall on, as a capture with no --ops)
 * and unloads them: 0 with cl filled when capture will work here; else
 * -errno with one line in why saying why not (a missing privilege or
 * feature, or the verifier's verdict on a refused program, with the
 * kernel's release). cl->fallbacks is filled in both cases. */
int capture_check_load(struct capture_load *cl, char *why, size_t len);
/* What a fallback name (struct capture_load, the log's header) means, in
 * a line; NULL for a name this riot does not know. */
const char *capture_fallback_effect(const char *name);

/* ---- a capture's options (options.c) ---- */

#define CAPTURE_MAX_PIDS 1024

struct capture_opts {
	const char *out;
	enum riot_target_mode mode;
	pid_t pids[CAPTURE_MAX_PIDS];	/* -p */
	unsigned npids;
	const char *cgroup;		/* --cgroup */
	char **cmd;			/* -- CMD ARGS */
	const char *comm;		/* --comm */
	const char *path_prefix;	/* --path, normalised, no trailing / */
	uint64_t sys_on[(RIOT_SYS_COUNT + 63) / 64];
	double duration;		/* -d; 0: until stopped */
	uint64_t ring_bytes;
	int nice;			/* --nice: riot's own, once the
					 * command runs; 0: left as it is */
	int zstd_level;
	bool quiet;
	bool all_ops;
	bool block;			/* --block or --block-dev */
	const char *block_devs[BLOCK_DEVS_MAX];	/* --block-dev */
	unsigned nblock_devs;
	uint64_t rotate_bytes;		/* --rotate; 0: none */
	double rotate_secs;		/* --rotate-time; 0: none */
	uint64_t keep;			/* --keep; 0: every segment */
	bool check;			/* --check: load, say, unload */
	const char *in;			/* riot top FILE: a log to browse */
};

/* Strings the options point into. */
struct capture_opt_bufs {
	char prefix[PATH_MAX];
	char cgroup[PATH_MAX];
};

/* Which command parses: `riot capture` needs -o and one target; `riot top`
 * takes neither (no target: the process picker; no -o: no log) and takes
 * a log FILE to browse instead of a target (in). */
enum capture_cmd { CAPTURE_CMD_CAPTURE, CAPTURE_CMD_TOP };

/* Parses argv (argv[0] the command's name) into o, with its defaults.
 * help: the text -h prints. Returns 0, RIOT_EXIT_USAGE (said), RIOT_EXIT_FAIL
 * (said), or -1 after --help. */
int capture_parse_args(int argc, char **argv, struct capture_opts *o, struct capture_opt_bufs *b,
		       enum capture_cmd cmd, const char *help);

/* ---- one capture, watched (session.c) ---- */

struct capture_watch;
/* What a viewer of a running capture (riot top) is handed. Each hook may
 * be NULL; a hook's non-zero return (-errno) ends the capture as an error
 * would, except tick's 1, which ends it as Ctrl-C does. */
struct capture_hooks {
	void *ctx;
	/* Every record as the log gets it (after --path), in log order, the
	 * start state first; also without a log. */
	int (*rec)(void *ctx, const struct riot_rec *rec);
	/* From the drain loop: every 10 ms while it runs (at most 100 ms
	 * apart when it waits), and as soon as input_fd has input. */
	int (*tick)(void *ctx, struct capture_watch *w);
	/* Once the drain has ended and before the log's summary. */
	void (*end)(void *ctx, struct capture_watch *w);
	/* The viewer's input (its terminal), which ends the drain's wait
	 * for a tick; -1: none, and a tick comes every 10 ms. */
	int input_fd;
};
/* The counts a viewer shows beside the records. */
struct capture_counts {
	uint64_t drops;		/* ring buffer full, no task slot */
	uint64_t log_bytes;	/* written so far; 0 without a log */
	const char *log_path;	/* NULL without a log */
	bool running;		/* false once the capture has ended */
	bool target_gone;	/* it ended because -- CMD or every -p process
				 * exited */
	int child_status;	/* -- CMD's exit status once target_gone */
	unsigned signals;	/* SIGINT and SIGTERM received so far */
	pid_t child;		/* -- CMD's pid, or 0 */
};
void capture_watch_counts(const struct capture_watch *w, struct capture_counts *out);
/* Switches syscalls on and off in the kernel while the capture runs (what
 * --ops does at the start): a bit per RIOT_SYS_* of sys_on. A syscall
 * whose program was not loaded (left out by --ops) stays off. 0 or
 * -errno. */
int capture_watch_set_ops(struct capture_watch *w, const uint64_t *sys_on);
/* Whether syscall sys's program is loaded (it can be switched on). */
bool capture_watch_loaded(const struct capture_watch *w, unsigned sys);

/* Runs a capture of o to its end, the log (o->out; none when NULL) and h
 * (NULL: none) fed as it goes; argv is the command line the log's header
 * records. With hooks and -- CMD, the command's standard streams are
 * /dev/null and a tick's 1 stops it (SIGTERM, SIGKILL 2 s later). Returns
 * the exit status, as cmd_capture(). */
int capture_session(struct capture_opts *o, int argc, char **argv, const struct capture_hooks *h);

#endif
