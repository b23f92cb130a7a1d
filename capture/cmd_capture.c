/* capture/cmd_capture.c: `riot capture`: options, target, the drain loop
 * from the ring buffer to the log, stop conditions and the summary. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_int.h"
#include "lib/cli.h"
#include "model/model.h"
#include "report/report.h"

#define DEFAULT_RING_MIB 16
/* riot's priority while it drains: on a busy host the ring buffer fills
 * while riot waits for a CPU, and what does not fit is lost. */
#define DEFAULT_NICE -10
#define POLL_MS 10
#define LOSS_POLL_NS 100000000ull	/* drop records every 100 ms */
#define FLUSH_NS 1000000000ull		/* a killed capture loses <= 1 s */
/* An event is logged once every CPU has handed over all it timed before
 * it (tracer_progress()); a CPU riot cannot visit is taken to have done
 * so after this delay. */
#define REORDER_NS 300000000ull
#define REORDER_MAX_BYTES (256ull << 20)
/* A CPU that runs nothing traced hands over its progress only when riot
 * kicks it, so the events of busy CPUs wait for the kick. Waiting 100 ms
 * at a million events a second holds 10-30 MB, which has left the cache
 * by the time it is logged: kick as soon as that much is waiting, at
 * most this often (a kick is a syscall of riot on every CPU). */
#define KICK_BACKLOG (1u << 20)
#define KICK_MIN_NS 10000000ull

const char cmd_capture_help[] =
"Usage: riot capture -o FILE TARGET [FILTERS] [-d SECONDS] [OPTIONS]\n"
"       riot capture --check\n"
"\n"
"Records the file I/O of programs with eBPF into FILE (a .riot log).\n"
"\n"
"Target (exactly one):\n"
"  -- CMD [ARGS...]    start CMD, trace it and every descendant; stop when\n"
"                      CMD exits; exit with CMD's status (128+N if killed\n"
"                      by signal N)\n"
"  -p, --pid PID[,PID...]\n"
"                      existing processes with all their threads, plus what\n"
"                      they fork after the start; stop when all have exited\n"
"      --cgroup PATH   every process in the cgroup v2 PATH or below it\n"
"                      (a path under the cgroup2 mount, or relative to it)\n"
"      --unit NAME     every process of the systemd unit NAME (.service\n"
"                      added when NAME has no suffix): its cgroup under\n"
"                      system.slice of the cgroup2 mount, else the first\n"
"                      cgroup of that name below the mount\n"
"  -a, --all           the whole host, riot itself excluded\n"
"                      (riot never records itself, whatever the target: not\n"
"                      its writes of the log, not its start state)\n"
"\n"
"Filters:\n"
"      --comm NAME     only tasks whose comm is NAME (its first 15 bytes);\n"
"                      applied in the kernel\n"
"      --ops LIST      only these syscalls: comma-separated names (openat,\n"
"                      pread64, ..., and the requests aio:pread, mmap:read,\n"
"                      ...) or classes (data_read, data_write,\n"
"                      data_copy, open, fd, stat, dir, namespace, sync, cwd,\n"
"                      attr, xattr, mmap, async, proc; '@' before a name\n"
"                      forces the class: @open); applied in the kernel.\n"
"                      Default: all. Process events (fork/clone, exec, exit)\n"
"                      are always recorded.\n"
"      --path PREFIX   only operations on files under PREFIX (absolute): path-based\n"
"                      calls whose path, made absolute against the caller's\n"
"                      cwd or dirfd, is PREFIX or below it, and fd-based\n"
"                      calls on fds opened that way (or found open under it\n"
"                      at the start). Paths are compared as named, without\n"
"                      following symlinks. The kernel drops what surely\n"
"                      lies outside (absolute, normal paths; fds opened by\n"
"                      them); riot decides the rest before writing. Process\n"
"                      events, chdir/fchdir and start-state processes are\n"
"                      kept.\n"
"\n"
"Stopping:\n"
"  -d, --duration SECONDS\n"
"                      stop recording after SECONDS (with -- CMD, riot then\n"
"                      still waits for CMD and exits with its status)\n"
"  SIGINT, SIGTERM     stop; with -- CMD a signal sent to riot by a process\n"
"                      is passed on to CMD and recording goes on until CMD\n"
"                      exits (a second signal stops at once)\n"
"\n"
"Rotation (FILE must be NAME.riot; the log is then NAME.000001.riot,\n"
"NAME.000002.riot, ..., each segment a complete log that starts with the\n"
"traced processes' cwd and open fds, so it replays alone; info, dump,\n"
"report, init, replay and export take several segments in order as one log):\n"
"      --rotate SIZE   start a new segment once one holds SIZE bytes on disk\n"
"                      (K, M, G: KiB, MiB, GiB; a segment ends at the first\n"
"                      block past SIZE, blocks of at most SIZE/4 raw bytes)\n"
"      --rotate-time SECONDS\n"
"                      start a new segment every SECONDS\n"
"      --keep N        keep the N newest segments, delete the older ones\n"
"  SIGHUP              with --rotate or --rotate-time: end the segment and\n"
"                      start the next one now\n"
"\n"
"Options:\n"
"  -o, --output FILE   the log to write (replaced if it exists)\n"
"      --ring-size MIB ring buffer size, a power of 2 up to 2048 (default 16)\n"
"      --nice N        riot's own nice value while it records (default -10,\n"
"                      so a busy host cannot starve it into losing events;\n"
"                      the traced command keeps its own); 0: left as is\n"
"      --zstd-level N  compression level of the log blocks, 1 to 19 (default 3)\n"
"      --block         also record what reached the block devices of the\n"
"                      --path PREFIX's filesystem (else the current\n"
"                      directory's): requests, bytes, latency, queue depth,\n"
"                      from the start to a syncfs of that filesystem after\n"
"                      the end, so the writeback of what was written counts;\n"
"                      every request to the device counts, whoever sent it;\n"
"                      a loop device is counted as itself. Stored at the end\n"
"                      of the log (a killed capture has none); `riot report`\n"
"                      shows it beside what the program wrote\n"
"      --block-dev DEV these devices instead (/dev/sdb1, sdb1 or 8:17;\n"
"                      repeatable; implies --block; no syncfs without --path)\n"
"  -q, --quiet         no summary\n"
"      --check         record nothing: load the programs, say whether capture\n"
"                      works on this kernel and which fallbacks it takes where\n"
"                      the kernel lacks a tracepoint or helper (exit 0), or\n"
"                      why not, with the verifier's verdict (exit 1)\n"
"  -h, --help          this text\n"
"\n"
"Environment: RIOT_BPF_DEBUG=1 prints libbpf's log (the verifier's too).\n"
"\n"
"Recorded: every syscall of bpf/syscalls.def (reads, writes, opens, stats,\n"
"namespace and attribute changes, syncs, cwd changes, mmap of files,\n"
"munmap, msync, mremap and madvise of file mappings, io_uring_enter,\n"
"io_submit) with entry time, duration,\n"
"pid, tid, return value, arguments and paths (up to 4096 bytes, flagged\n"
"when cut); at open the file's size, type, inode, device and whether the\n"
"open created it; for stat calls the size and type returned. The requests\n"
"of io_uring rings and AIO contexts are records of their own\n"
"(io_uring:read, aio:pwrite, ...: fd, offset, length, submission and\n"
"completion), as are the pages read and dirtied through file mappings\n"
"(mmap:read, mmap:write), where the kernel has the tracepoints (riot\n"
"capture --check). At the start\n"
"the cwd and open fds of each traced process (every process with -a).\n"
"Anonymous mmap, mremap and madvise are not recorded. Records are logged\n"
"in the order the calls completed (exit time), after the start state.\n"
"\n"
"With -a, -p or --cgroup riot first says on stderr what it records; when\n"
"stderr is a terminal it then keeps one line of events, events/s, drops\n"
"and log size up to date until it stops (no terminal controls otherwise).\n"
"At the end: ring-buffer drain, then a summary on stderr (events, drops,\n"
"duration, log size, bytes per event). Events the kernel side could not\n"
"record (ring buffer full) are counted per CPU and written to the log as\n"
"drop records every 100 ms. The log is flushed every second: a killed\n"
"capture leaves a log readable up to its last complete block (the last\n"
"1.5 s or so are lost).\n"
"\n"
"Needs: root (or CAP_BPF and CAP_PERFMON), kernel BTF\n"
"(/sys/kernel/btf/vmlinux), BTF tracepoints, the BPF ring buffer, task\n"
"local storage and bpf_loop (Linux 5.17 or later); not tracefs. Without\n"
"them riot says what is missing, exits 1 and writes no log. --check says\n"
"whether this kernel loads the programs; README lists the kernels tested.\n"
"\n"
"Errors: a write error (a full disk) stops recording: riot closes the log,\n"
"which stays readable up to its last complete block, says why in one line\n"
"and exits 1; a command started with -- is stopped (SIGTERM, then SIGKILL\n"
"after 2 s).\n"
"\n"
"Exit status: 0, or CMD's status; 1 on error; 2 on a usage error.\n";

/* What the drain loop keeps between records. */
/* A successful execve's path is gone from user memory by its exit; the
 * EXEC event logged just before it carries the file name (the kernel's
 * bprm->filename: as passed to execve; execveat's /dev/fd/N form), so the
 * syscall record takes it from there. Execs in flight at once are few. */
#define EXEC_SLOTS 64

struct exec_name {
	uint32_t pid;
	bool used, truncated;
	char path[PATH_MAX];
};

struct capture {
	struct riot_writer *w;	/* the log, or the segment being written */
	struct rotation *rot;	/* --rotate, --rotate-time */
	const char *log_path;	/* the file w writes */
	struct exec_name *execs;	/* EXEC_SLOTS, allocated at first exec */
	struct path_filter *pf;
	struct reorder *ro;
	uint64_t filtered, malformed;	/* syscalls --path left out */
	uint64_t ring_lost, slot_lost, unfollowed, kfiltered;
	uint64_t t_loss_poll;	/* boot ns of the previous loss poll */
	int err;		/* first write error */
	dev_t log_dev;		/* the log file as created: a log removed */
	ino_t log_ino;		/* or replaced meanwhile is a failure */
	struct block_view block;	/* --block */
};

static volatile sig_atomic_t stop_signals;
static volatile sig_atomic_t forward_signal;
static volatile sig_atomic_t rotate_signals;	/* SIGHUP */

static void on_hup(int sig)
{
	(void)sig;
	rotate_signals = 1;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	stop_signals++;
	/* A signal from a process (kill, timeout) is meant for the whole
	 * job; one from the terminal already reached CMD. */
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE))
		forward_signal = sig;
}

static void set_signals(bool rotating)
{
	if (rotating)
		sigaction(SIGHUP, &(struct sigaction){ .sa_handler = on_hup }, NULL);
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t capture_now_boot(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

/* ---- options ---- */

static int parse_pids(struct capture_opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0;

	if (!copy) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (riot_parse_u64(tok, &v) || v == 0 || v > INT_MAX) {
			rc = riot_usage("-p: '%s' is not a process id", tok);
			break;
		}
		if (o->npids == CAPTURE_MAX_PIDS) {
			rc = riot_usage("-p: at most %d processes",
					CAPTURE_MAX_PIDS);
			break;
		}
		o->pids[o->npids++] = (pid_t)v;
	}
	free(copy);
	return rc;
}

static void enable_sys(struct capture_opts *o, unsigned sys)
{
	o->sys_on[sys / 64] |= 1ull << (sys % 64);
}

static bool enable_class(struct capture_opts *o, const char *name)
{
	bool found = false;

	for (unsigned c = 1; c < RIOT_CLASS_COUNT; c++) {
		if (strcmp(riot_class_name(c), name) != 0)
			continue;
		for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
			if (riot_sys_info(s)->cls == c)
				enable_sys(o, s);
		found = true;
	}
	return found;
}

static int parse_ops(struct capture_opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0, sys;

	if (!copy) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	memset(o->sys_on, 0, sizeof(o->sys_on));
	o->all_ops = false;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (tok[0] == '@' ? enable_class(o, tok + 1) :
		    (sys = riot_sys_by_name(tok)) >= 0 ?
		    (enable_sys(o, (unsigned)sys), true) : enable_class(o, tok))
			continue;
		rc = riot_usage("--ops: unknown syscall or class '%s'", tok);
		break;
	}
	free(copy);
	if (!rc) {	/* "," or "": nothing would be captured */
		bool any = false;

		for (unsigned i = 0; i < sizeof(o->sys_on) / sizeof(o->sys_on[0]); i++)
			any |= o->sys_on[i] != 0;
		if (!any)
			rc = riot_usage("--ops: '%s' names no syscall or class", list);
	}
	return rc;
}

/* "/a/b/" -> "/a/b". A relative prefix is refused: the traced programs'
 * paths are compared made absolute, and riot's own cwd says nothing of
 * theirs. */
static int set_path_prefix(struct capture_opts *o, const char *prefix,
			   char *buf, size_t len)
{
	size_t n;

	if (!prefix[0])
		return riot_usage("--path: empty prefix");
	if (prefix[0] != '/')
		return riot_usage("--path: '%s' is not an absolute path", prefix);
	n = snprintf(buf, len, "%s", prefix);
	if (n >= len)
		return riot_usage("--path: prefix too long");
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	o->path_prefix = buf;
	return 0;
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup, or /sys/fs/cgroup/unified
 * on hybrid hosts. */
static const char *cgroup2_root(char *buf, size_t len)
{
	FILE *in = fopen("/proc/self/mounts", "re");
	char line[1024], dir[512], type[64];

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!in)
		return buf;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%*s %511s %63s", dir, type) == 2 &&
		    strcmp(type, "cgroup2") == 0) {
			snprintf(buf, len, "%s", dir);
			break;
		}
	}
	fclose(in);
	return buf;
}

/* PATH as given when it is a directory of the cgroup2 mount, else
 * relative to that mount. */
static int set_cgroup(struct capture_opts *o, const char *path, char *buf,
		      size_t len)
{
	char root[512];
	size_t n;

	cgroup2_root(root, sizeof(root));
	n = strlen(root);
	if (strncmp(path, root, n) == 0 && (path[n] == '/' || !path[n]))
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "%s/%s", root, path[0] == '/' ? path + 1 : path);
	o->cgroup = buf;
	o->mode = RIOT_TARGET_CGROUP;
	return 0;
}

/* The first directory called name at or below dir (depth levels down),
 * into out: 1 found, 0 not. */
static int find_cgroup_named(const char *dir, const char *name, int depth, char *out,
			     size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (strcmp(de->d_name, name) == 0) {
			snprintf(out, len, "%s", path);
			found = 1;
		} else if (depth > 0) {
			found = find_cgroup_named(path, name, depth - 1, out, len);
		}
	}
	closedir(d);
	return found;
}

/* --unit NAME: the cgroup systemd makes for a unit is its name, in the
 * unit's slice: system.slice for a system service, else another slice or
 * a user's manager (user.slice/user-1000.slice/user@1000.service/...). */
static int set_unit(struct capture_opts *o, const char *name, char *buf, size_t len)
{
	char root[512], unit[NAME_MAX + 1], path[PATH_MAX];
	struct stat st;

	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strlen(name) + sizeof(".service") > sizeof(unit))
		return riot_usage("--unit wants a systemd unit name, got '%s'", name);
	snprintf(unit, sizeof(unit), "%s%s", name, strchr(name, '.') ? "" : ".service");
	cgroup2_root(root, sizeof(root));
	snprintf(path, sizeof(path), "%s/system.slice/%s", root, unit);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(buf, len, "%s", path);
	else if (!find_cgroup_named(root, unit, 8, buf, len)) {
		riot_err("--unit %s: no cgroup %s under %s (is the unit running?)", name, unit,
			 root);
		return RIOT_EXIT_FAIL;
	}
	o->cgroup = buf;
	o->mode = RIOT_TARGET_CGROUP;
	return 0;
}

enum { OPT_CGROUP = 256, OPT_UNIT, OPT_COMM, OPT_PATH, OPT_OPS, OPT_RING, OPT_ZSTD, OPT_BLOCK,
       OPT_BLOCK_DEV, OPT_ROTATE, OPT_ROTATE_TIME, OPT_KEEP, OPT_CHECK, OPT_NICE };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "ops", required_argument, NULL, OPT_OPS },
	{ "duration", required_argument, NULL, 'd' },
	{ "ring-size", required_argument, NULL, OPT_RING },
	{ "nice", required_argument, NULL, OPT_NICE },
	{ "zstd-level", required_argument, NULL, OPT_ZSTD },
	{ "block", no_argument, NULL, OPT_BLOCK },
	{ "block-dev", required_argument, NULL, OPT_BLOCK_DEV },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "rotate-time", required_argument, NULL, OPT_ROTATE_TIME },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct opt_bufs {
	char prefix[PATH_MAX];
	char cgroup[PATH_MAX];
};

static int parse_one(struct capture_opts *o, int c, struct opt_bufs *b,
		     int *targets)
{
	uint64_t v;

	switch (c) {
	case 'o': o->out = optarg; return 0;
	case OPT_CHECK: o->check = true; return 0;
	case 'p':
		(*targets)++;
		o->mode = RIOT_TARGET_PIDS;
		return parse_pids(o, optarg);
	case 'a': (*targets)++; o->mode = RIOT_TARGET_ALL; return 0;
	case OPT_CGROUP:
		(*targets)++;
		return set_cgroup(o, optarg, b->cgroup, sizeof(b->cgroup));
	case OPT_UNIT:
		(*targets)++;
		return set_unit(o, optarg, b->cgroup, sizeof(b->cgroup));
	case OPT_COMM:
		if (!optarg[0] || strlen(optarg) >= RIOT_COMM_LEN)
			return riot_usage("--comm: a name of 1 to %d bytes",
					  RIOT_COMM_LEN - 1);
		o->comm = optarg;
		return 0;
	case OPT_PATH:
		return set_path_prefix(o, optarg, b->prefix, sizeof(b->prefix));
	case OPT_OPS: return parse_ops(o, optarg);
	case 'd':
		if (riot_parse_double(optarg, &o->duration) || o->duration <= 0)
			return riot_usage("-d: '%s' is not a positive number of seconds",
					  optarg);
		return 0;
	case OPT_RING:
		/* the kernel's ring buffer size is a u32 power of 2 */
		if (riot_parse_u64(optarg, &v) || !v || (v & (v - 1)) ||
		    v > 2048)
			return riot_usage("--ring-size: '%s' is not a power of 2 from 1 to "
					  "2048 MiB", optarg);
		o->ring_bytes = v << 20;
		return 0;
	case OPT_NICE: {
		char *end;
		long n;

		errno = 0;
		n = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || n < -20 || n > 19)
			return riot_usage("--nice: '%s' is not a nice value from -20 to 19",
					  optarg);
		o->nice = (int)n;
		return 0;
	}
	case OPT_ZSTD:
		if (riot_parse_u64(optarg, &v) || v < 1 || v > 19)
			return riot_usage("--zstd-level: 1 to 19");
		o->zstd_level = (int)v;
		return 0;
	case OPT_BLOCK: o->block = true; return 0;
	case OPT_BLOCK_DEV:
		if (o->nblock_devs == BLOCK_DEVS_MAX)
			return riot_usage("--block-dev: at most %d devices", BLOCK_DEVS_MAX);
		o->block_devs[o->nblock_devs++] = optarg;
		o->block = true;
		return 0;
	case OPT_ROTATE:
		if (riot_parse_size(optarg, &o->rotate_bytes) || !o->rotate_bytes)
			return riot_usage("--rotate: '%s' is not a size above 0 (bytes, or "
					  "with K, M or G)", optarg);
		return 0;
	case OPT_ROTATE_TIME:
		if (riot_parse_double(optarg, &o->rotate_secs) || o->rotate_secs <= 0)
			return riot_usage("--rotate-time: '%s' is not a positive number of "
					  "seconds", optarg);
		return 0;
	case OPT_KEEP:
		if (riot_parse_u64(optarg, &o->keep) || !o->keep)
			return riot_usage("--keep: '%s' is not a number of segments above 0",
					  optarg);
		return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': fputs(cmd_capture_help, stdout); return -1;
	default: return riot_usage("bad option");
	}
}

/* The rotation options together. 0 or RIOT_EXIT_USAGE. */
static int check_rotation(const struct capture_opts *o)
{
	bool rotating = o->rotate_bytes || o->rotate_secs > 0;
	char name[PATH_MAX];

	if (o->keep && !rotating)
		return riot_usage("--keep needs --rotate or --rotate-time");
	if (rotating && rotation_name(o->out, 1, name, sizeof(name)))
		return riot_usage("--rotate: -o must name NAME.riot (the segments are "
				  "NAME.000001.riot, ...), not '%s'", o->out);
	if (rotating && o->block)
		return riot_usage("--block stores one summary at the end of a log: not "
				  "with --rotate or --rotate-time");
	return 0;
}

/* Returns 0, RIOT_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct capture_opts *o,
		      struct opt_bufs *b)
{
	int c, rc, targets = 0;

	o->ring_bytes = (uint64_t)DEFAULT_RING_MIB << 20;
	o->nice = DEFAULT_NICE;
	o->all_ops = true;
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		enable_sys(o, s);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:p:ad:qh", long_opts, NULL)) != -1) {
		if (c == ':')
			return riot_usage("option '%s' requires an argument", argv[optind - 1]);
		if (c == '?')
			return riot_usage("bad option '%s'", argv[optind - 1]);
		rc = parse_one(o, c, b, &targets);
		if (rc)
			return rc;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return riot_usage("unexpected argument '%s' (a command "
					  "goes after --)", argv[optind]);
		o->cmd = argv + optind;
		o->mode = RIOT_TARGET_PIDS;
		targets++;
	}
	if (o->check)
		return targets || o->out ? riot_usage("--check takes no target and no -o") : 0;
	if (!o->out)
		return riot_usage("-o FILE is required");
	if (targets != 1)
		return riot_usage(targets ? "give one target only" :
				  "no target: give -- CMD, -p PID, --cgroup PATH or -a");
	return check_rotation(o);
}

static int check_pids(const struct capture_opts *o)
{
	for (unsigned i = 0; i < o->npids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			riot_err("no process %d", o->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

/* ---- the command's child ---- */

/* CMD's file, searched in PATH here so the trace does not start with the
 * failed execs of execvp's search; NULL: leave it to execvp. */
static char *find_command(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;
	struct stat st;

	if (strchr(name, '/') || !path || !(copy = strdup(path)))
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *file;

		if (asprintf(&file, "%s/%s", *dir ? dir : ".", name) < 0)
			break;
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(file, X_OK) == 0)
			found = file;
		else
			free(file);
	}
	free(copy);
	return found;
}

/* Forks CMD stopped before exec until release_child(): it must be in the
 * traced set before its first syscall of interest. */
static pid_t spawn_child(char **cmd, int *gate)
{
	char *file = find_command(cmd[0]);
	int fds[2];
	pid_t pid;
	char go;

	if (pipe2(fds, O_CLOEXEC)) {
		free(file);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		free(file);
		return err;
	}
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(127);	/* capture failed to start */
		if (file)
			execv(file, cmd);
		execvp(cmd[0], cmd);
		fprintf(stderr, "riot: capture: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[0]);
	free(file);
	*gate = fds[1];
	return pid;
}

/* go: exec CMD; !go: make it exit unrun. */
static void release_child(int *gate, bool go)
{
	if (*gate < 0)
		return;
	if (go && write(*gate, "g", 1) != 1)
		go = false;
	close(*gate);
	*gate = -1;
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return RIOT_EXIT_FAIL;
}

/* ---- the log ---- */

static void join_args(char *buf, size_t len, const char *first, int argc,
		      char **argv)
{
	size_t n = snprintf(buf, len, "%s", first);

	for (int i = 0; i < argc && n < len; i++)
		n += snprintf(buf + n, len - n, " %s", argv[i]);
}

static void describe(const struct capture_opts *o, char *target, size_t tlen,
		     char *opts, size_t olen)
{
	size_t n = 0;

	if (o->cmd) {
		int argc = 0;

		while (o->cmd[argc])
			argc++;
		join_args(target, tlen, "command:", argc, o->cmd);
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

static struct riot_writer *open_log(struct capture *c, const struct capture_opts *o,
				    int argc, char **argv, uint64_t start_t,
				    const struct probe_calib *pc, const char *fallbacks)
{
	static char cmdline[8192], target[4096], opts[2048];
	struct riot_log_header h = { .major = RIOT_FMT_MAJOR,
				     .minor = RIOT_FMT_MINOR };
	struct riot_writer_opts wo = { .zstd_level = o->zstd_level };
	static struct utsname u;	/* outlives the call: every segment copies the header */

	uname(&u);
	join_args(cmdline, sizeof(cmdline), "riot capture", argc - 1, argv + 1);
	describe(o, target, sizeof(target), opts, sizeof(opts));
	h.host = u.nodename;
	h.kernel = u.release;
	h.arch = u.machine;
	h.riot_version = RIOT_VERSION;
	h.cmdline = cmdline;
	h.options = opts;
	h.target = target;
	h.boot_to_wall_ns = (int64_t)(clock_ns(CLOCK_REALTIME) -
				      clock_ns(CLOCK_BOOTTIME));
	h.start_t = start_t;
	if (pc->calls) {
		h.probe_ns = pc->probe_ns;
		h.probe_calls = pc->calls;
		h.probe_untraced_ns = pc->untraced_ns;
		h.probe_recorded_ns = pc->recorded_ns;
	}
	h.fallbacks = fallbacks;
	if (!o->rotate_bytes && !(o->rotate_secs > 0)) {
		c->log_path = o->out;
		return riot_writer_open(o->out, &h, &wo);
	}
	if (!(c->rot = rotation_new(o, &h, &wo)))
		return NULL;
	c->log_path = rotation_path(c->rot);
	return rotation_first(c->rot, start_t);
}

/* The next segment; the new file's identity for finish_log(). */
static int rotate(struct capture *c)
{
	struct stat st;
	int err = rotation_next(c->rot, &c->w);

	if (!err && stat(c->log_path, &st) == 0) {
		c->log_dev = st.st_dev;
		c->log_ino = st.st_ino;
	}
	if (err && !c->err)
		c->err = err;
	return err;
}

static int log_rec(struct capture *c, const struct riot_rec *rec);

static int log_snap(void *ctx, const struct riot_rec *rec)
{
	return log_rec(ctx, rec);
}

static int write_start_state(struct capture *c, const struct capture_opts *o,
			     pid_t child, uint64_t t)
{
	struct snap_out out = { log_snap, c };
	int err = 0;

	if (o->mode == RIOT_TARGET_ALL)
		return snapshot_all(&out, getpid(), t);
	if (o->mode == RIOT_TARGET_CGROUP)
		return snapshot_cgroup(&out, o->cgroup, getpid(), t);
	for (unsigned i = 0; !err && i < o->npids; i++)
		err = snapshot_process(&out, o->pids[i], t);
	if (!err && child)
		err = snapshot_process(&out, child, t);
	return err;
}

static int write_rec(void *ctx, const struct riot_rec *rec)
{
	struct capture *c = ctx;
	int err;

	if (c->err)	/* the writer failed, or a segment could not start */
		return c->err;
	if (c->rot && rotation_full(c->rot, c->w) && (err = rotate(c)))
		return err;
	err = riot_writer_add(c->w, rec);
	if (!err && c->rot)
		err = rotation_note(c->rot, rec);
	if (err && !c->err)
		c->err = err;
	return err;
}

static int log_rec(struct capture *c, const struct riot_rec *rec)
{
	if (c->pf && !path_filter_keep(c->pf, rec, write_rec, c)) {
		/* Start-state fds left out were never counted as events. */
		if (rec->type == RIOT_REC_SYSCALL)
			c->filtered++;
		return 0;
	}
	return write_rec(c, rec);
}

static void exec_remember(struct capture *c, const struct riot_proc *p)
{
	struct exec_name *e;

	if (!p->path.s)
		return;
	if (!c->execs && !(c->execs = calloc(EXEC_SLOTS, sizeof(*c->execs))))
		return;	/* the syscall record then goes without its path */
	e = &c->execs[p->pid % EXEC_SLOTS];
	e->pid = p->pid;
	e->used = true;
	e->truncated = p->path.truncated;
	snprintf(e->path, sizeof(e->path), "%s", p->path.s);
}

static void exec_fill(struct capture *c, struct riot_syscall *sc)
{
	struct exec_name *e;

	if ((sc->sys != RIOT_SYS_execve && sc->sys != RIOT_SYS_execveat) || sc->ret != 0 ||
	    (sc->has & RIOT_HAS_PATH) || !c->execs)
		return;
	e = &c->execs[sc->pid % EXEC_SLOTS];
	if (!e->used || e->pid != sc->pid)
		return;
	sc->path.s = e->path;
	sc->path.truncated = e->truncated;
	sc->has |= RIOT_HAS_PATH;
	if (sc->sys == RIOT_SYS_execveat)	/* the name is absolute or /dev/fd/N */
		sc->has &= ~RIOT_HAS_DIRFD;
	e->used = false;
}

/* An event, in time order, to the log. */
static int log_event(void *ctx, const void *data, size_t size)
{
	struct capture *c = ctx;
	struct riot_rec rec;
	int rc = convert_event(data, size, &rec);

	if (rc < 0) {
		c->malformed++;
		return 0;
	}
	if (rec.type == RIOT_REC_SYSCALL)
		exec_fill(c, &rec.sc);
	else if (rec.type == RIOT_REC_PROC && rec.proc.kind == RIOT_PROC_EXEC)
		exec_remember(c, &rec.proc);
	return log_rec(c, &rec);
}

/* Events from the ring buffer, in the order CPUs handed them over. */
static int on_event(void *ctx, const void *data, size_t size)
{
	struct capture *c = ctx;
	int rc;

	if (!size) {
		c->malformed++;
		return 0;
	}
	rc = reorder_push(c->ro, data, size, event_time, event_size,
			  log_event, c);
	if (rc > 0)
		c->malformed++;
	if (rc < 0 && !c->err)
		c->err = rc;
	return rc < 0 ? rc : 0;
}

static int on_loss(void *ctx, unsigned cpu, uint64_t ring, uint64_t slot,
		   uint64_t t_last)
{
	struct capture *c = ctx;
	struct riot_rec rec = { .type = RIOT_REC_DROP };

	rec.drop.cpu = cpu;
	rec.drop.count = ring + slot;
	rec.drop.t_first = c->t_loss_poll;
	rec.drop.t_last = t_last > c->t_loss_poll ? t_last : c->t_loss_poll;
	c->ring_lost += ring;
	c->slot_lost += slot;
	return write_rec(c, &rec);
}

static int poll_losses(struct capture *c, struct tracer *t)
{
	uint64_t now = capture_now_boot();
	int err = tracer_losses(t, on_loss, c);

	c->t_loss_poll = now;
	return err;
}

/* ---- the loop ---- */

/* -a, -p and --cgroup record until stopped: riot says so, and on a
 * terminal keeps one line of what has been logged, rewritten every
 * second (with \r and spaces: no terminal controls). */
struct live {
	bool on;		/* stderr is a terminal */
	uint64_t t_ns, events;	/* at the previous line */
	int width;		/* of the previous line */
};

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

static void live_start(struct live *l, const struct capture *c, const struct capture_opts *o)
{
	char target[4096], opts[2048], dur[64] = "";

	if (o->cmd || o->quiet)
		return;
	describe(o, target, sizeof(target), opts, sizeof(opts));
	if (o->duration > 0)
		snprintf(dur, sizeof(dur), " for %g s", o->duration);
	fprintf(stderr, "riot capture: recording %s into %s%s; Ctrl-C stops\n",
		o->mode == RIOT_TARGET_ALL ? "every process" : target, o->out, dur);
	l->on = isatty(STDERR_FILENO);
	l->t_ns = clock_ns(CLOCK_MONOTONIC);
	l->events = logged_events(c);
}

static void live_show(struct live *l, const struct capture *c, uint64_t now)
{
	uint64_t events = logged_events(c);
	double secs = now > l->t_ns ? (double)(now - l->t_ns) / 1e9 : 0;
	char size[32];
	int n;

	if (!l->on)
		return;
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

static void live_end(struct live *l)
{
	if (l->on && l->width)
		fprintf(stderr, "\r%*s\r", l->width, "");
	l->on = false;
}

struct run {
	const struct capture_opts *o;
	struct tracer *t;
	pid_t child;
	int child_status;
	bool child_done;
	struct live live;
};

static bool should_stop(struct run *r, uint64_t start, uint64_t now,
			bool check_pids)
{
	if (stop_signals) {
		if (!r->child || stop_signals > 1)
			return true;
		if (forward_signal) {
			kill(r->child, forward_signal);
			forward_signal = 0;
		}
	}
	if (r->o->duration > 0 && now - start >= r->o->duration * 1e9)
		return true;
	if (r->child) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			return true;
		}
		return false;
	}
	if (check_pids && r->o->mode == RIOT_TARGET_PIDS)
		return !tracer_pids_alive(r->t);
	return false;
}

/* The drain's own thread at --nice (the command was forked before and
 * keeps its own): with the CPUs busy, riot then runs soon after the ring
 * fills rather than after everything else. Failing that, it records as
 * it would have and says so. */
static void drain_priority(const struct capture_opts *o)
{
	if (o->nice && setpriority(PRIO_PROCESS, 0, o->nice))
		fprintf(stderr, "riot capture: cannot set its nice value to %d (%s): "
			"a busy host may make it lose events\n", o->nice,
			strerror(errno));
}

static int drain_loop(struct capture *c, struct run *r)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), last_loss = start,
		 last_flush = start, last_kick = start, now;
	int n, err;

	live_start(&r->live, c, r->o);
	live_show(&r->live, c, start);
	for (;;) {
		uint64_t boot = capture_now_boot();

		n = tracer_poll(r->t, POLL_MS);
		if (n < 0)
			return c->err ? c->err : n;
		now = clock_ns(CLOCK_MONOTONIC);
		bool tick = now - last_loss >= LOSS_POLL_NS;
		if (tick || (now - last_kick >= KICK_MIN_NS &&
			     reorder_bytes(c->ro) >= KICK_BACKLOG)) {
			last_kick = now;
			tracer_kick(r->t);
		}
		if (tick) {
			last_loss = now;
			if ((err = poll_losses(c, r->t)))
				return err;
		}
		err = reorder_release(c->ro,
				      tracer_progress(r->t, boot - REORDER_NS),
				      log_event, c);
		if (err)
			return err;
		if (c->rot && (rotate_signals || rotation_timed_out(c->rot, capture_now_boot()))) {
			rotate_signals = 0;
			if ((err = rotate(c)))
				return err;
		}
		if (now - last_flush >= FLUSH_NS) {
			last_flush = now;
			if ((err = riot_writer_flush(c->w)))
				return err;
			live_show(&r->live, c, now);
		}
		if (should_stop(r, start, now, tick))
			return 0;
	}
}

static int finish_drain(struct capture *c, struct run *r)
{
	int n = tracer_stop(r->t);

	if (n < 0)
		return c->err ? c->err : n;
	n = reorder_release(c->ro, UINT64_MAX, log_event, c);
	if (!n)
		n = poll_losses(c, r->t);
	c->unfollowed = tracer_unfollowed(r->t);
	c->kfiltered = tracer_filtered(r->t);
	return n;
}

/* What the log holds, counted as `riot info` counts it. */
struct log_totals {
	uint64_t syscalls, procs;
	uint64_t ns;		/* from the start to the latest exit */
};

static void print_summary(const struct capture *c, const char *out,
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
	if (c->rot)
		fprintf(stderr, "  segments   %llu written, the last %s\n",
			(unsigned long long)rotation_totals(c->rot)->segments + 1, out);
}

static int start_child(struct capture_opts *o, pid_t *child, int *gate)
{
	if (!o->cmd)
		return 0;
	*child = spawn_child(o->cmd, gate);
	if (*child < 0) {
		riot_err("cannot start %s: %s", o->cmd[0], strerror(-*child));
		return -1;
	}
	return 0;
}

static void reap_child(pid_t child, int *gate)
{
	release_child(gate, false);
	waitpid(child, NULL, 0);
}

/* Closes the log after the capture ended with err, and says how it went;
 * stopped names the command riot stopped because of err ("" if none).
 * Returns 0 or -1 (error reported). */
static int finish_log(struct capture *c, const struct capture_opts *o,
		      int err, uint64_t t0, const char *stopped)
{
	struct log_totals lt;
	uint64_t bytes, t_last;
	struct stat st;
	int serr;

	const struct rotation_totals *rt = c->rot ? rotation_totals(c->rot) : NULL;

	if (err) {
		/* The writer keeps the log readable up to its last block. */
		if (c->w)
			riot_writer_close(c->w);
		riot_err("writing %s: %s (the log holds what was written before)%s",
			 c->log_path, strerror(-err), stopped);
		return -1;
	}
	t_last = riot_writer_t_last(c->w);
	lt.syscalls = riot_writer_count(c->w, RIOT_REC_SYSCALL) + (rt ? rt->syscalls : 0);
	lt.procs = riot_writer_count(c->w, RIOT_REC_PROC) + (rt ? rt->procs : 0);
	lt.ns = t_last > t0 ? t_last - t0 : 0;
	err = riot_writer_close(c->w);
	if (err) {
		riot_err("finishing %s: %s", c->log_path, strerror(-err));
		return -1;
	}
	/* The data went to a file nobody can reach any more: say so. */
	serr = stat(c->log_path, &st) != 0 ? errno : 0;
	if (serr || st.st_dev != c->log_dev || st.st_ino != c->log_ino) {
		riot_err("%s was removed or replaced during the capture (%s): the log is lost",
			 c->log_path, serr == ENOENT ? "its directory or the file is gone" :
			 serr ? strerror(serr) : "another file is there now");
		return -1;
	}
	bytes = st.st_size + (rt ? rt->bytes : 0);
	if (!o->quiet)
		print_summary(c, c->log_path, &lt, bytes);
	if (!o->quiet && c->block.recorded)
		run_block_print(stderr, &c->block.res, RUN_BYTES_UNKNOWN, NULL);
	return 0;
}

/* --block: ends the recording after the last event and stores it in the
 * log's end section. 0 or -errno (the writer's error codes). */
static int block_to_log(struct capture *c, const struct capture_opts *o)
{
	uint8_t *buf;
	size_t len;
	int rc;

	block_view_end(&c->block);
	if (!c->block.recorded)
		return -ENOMEM;
	rc = run_block_encode(&c->block.res, &buf, &len);
	if (rc)
		return rc;
	rc = riot_writer_end_section(c->w, RIOT_END_DEVICES, buf, len);
	free(buf);
	return rc;
}

/* Ends the command riot started, when the capture failed under it: TERM,
 * then KILL after 2 s. Writes what was done to note ("" when the command
 * had already ended). */
static void stop_child(struct run *r, char *note, size_t len)
{
	note[0] = 0;
	if (!r->child || r->child_done)
		return;
	kill(r->child, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			break;
		}
		usleep(10000);
	}
	if (!r->child_done) {
		kill(r->child, SIGKILL);
		if (waitpid(r->child, &r->child_status, 0) == r->child)
			r->child_done = true;
	}
	snprintf(note, len, "; stopped %s (pid %d) that riot started", r->o->cmd[0],
		 (int)r->child);
}

/* The command's status, once it has exited. */
static int child_exit(struct run *r)
{
	if (!r->child_done && waitpid(r->child, &r->child_status, 0) == r->child)
		r->child_done = true;
	return r->child_done ? exit_status(r->child_status) : RIOT_EXIT_FAIL;
}

static int capture_run(struct capture_opts *o, int argc, char **argv)
{
	struct capture c = { .block = { .fd = -1 } };
	struct run r = { .o = o };
	struct probe_calib pc = { 0 };
	char why[512], stopped[PATH_MAX + 64] = "", first[PATH_MAX];
	const char *out_name = o->out;
	int gate = -1, err, rc = RIOT_EXIT_FAIL;
	uint64_t t0;
	struct stat st;

	if (tracer_check(why, sizeof(why))) {
		riot_err("%s", why);
		return RIOT_EXIT_FAIL;
	}
	/* before anything is attached or started */
	if ((o->rotate_bytes || o->rotate_secs > 0) &&
	    rotation_name(o->out, 1, first, sizeof(first)) == 0)
		out_name = first;
	if ((err = riot_check_output(out_name)) < 0) {
		riot_err("cannot create %s: %s", out_name, strerror(-err));
		return RIOT_EXIT_FAIL;
	}
	if (check_pids(o) || start_child(o, &r.child, &gate))
		return RIOT_EXIT_FAIL;
	c.ro = reorder_new(REORDER_MAX_BYTES);
	if (!c.ro || (o->path_prefix && !(c.pf = path_filter_new(o->path_prefix)))) {
		riot_err("out of memory");
		goto out;
	}
	r.t = tracer_start(o, r.child, on_event, &c, &pc, why, sizeof(why));
	if (!r.t) {
		riot_err("%s", why);
		goto out;
	}
	/* A slow start is the kernel's verifier (a busy host, a kernel whose
	 * verifier explores more): said, so it is not taken for a hang. */
	if (tracer_load(r.t)->load_s > 1)
		fprintf(stderr, "riot capture: loading the BPF programs took %.1f s\n",
			tracer_load(r.t)->load_s);
	t0 = capture_now_boot();
	c.t_loss_poll = t0;
	c.w = open_log(&c, o, argc, argv, t0, &pc, tracer_load(r.t)->fallbacks);
	if (!c.w) {
		riot_err("cannot create %s: %s", c.log_path ? c.log_path : o->out,
			 strerror(errno));
		goto out;
	}
	if (stat(c.log_path, &st) == 0) {
		c.log_dev = st.st_dev;
		c.log_ino = st.st_ino;
	}
	if (o->block && block_view_begin(&c.block, o->path_prefix ? o->path_prefix : ".",
					 o->block_devs, o->nblock_devs, true, why, sizeof(why)) < 0) {
		riot_err("--block: %s", why);
		riot_writer_abort(c.w);
		unlink(o->out);
		goto out;
	}
	set_signals(c.rot != NULL);
	err = write_start_state(&c, o, r.child, t0);
	/* The start state goes to disk at once: a log that shows it proves
	 * the tracer is attached, which scripts starting work wait for. */
	if (!err)
		err = riot_writer_flush(c.w);
	if (!err) {
		release_child(&gate, true);
		drain_priority(o);
		err = drain_loop(&c, &r);
		live_end(&r.live);
	}
	if (!err)
		err = finish_drain(&c, &r);
	if (!err && o->block)
		err = block_to_log(&c, o);
	tracer_destroy(r.t);
	r.t = NULL;
	if (err)
		stop_child(&r, stopped, sizeof(stopped));
	if (finish_log(&c, o, err, t0, stopped))
		goto out;
	rc = r.child ? child_exit(&r) : RIOT_EXIT_OK;
	r.child = 0;
out:
	tracer_destroy(r.t);
	if (r.child && gate >= 0)
		reap_child(r.child, &gate);
	block_view_free(&c.block);
	rotation_free(c.rot);
	path_filter_free(c.pf);
	free(c.execs);
	reorder_free(c.ro);
	return rc;
}

/* --check: load the programs, say whether capture works here and with
 * which fallbacks, unload. */
static int check_kernel(void)
{
	struct capture_load cl;
	struct utsname u;
	char why[512], list[sizeof(cl.fallbacks)], *name, *save = NULL;
	int err = capture_check_load(&cl, why, sizeof(why));

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (err) {
		printf("capture on kernel %s (%s): will not work\n", u.release, u.machine);
		riot_err("%s", why);
		return RIOT_EXIT_FAIL;
	}
	printf("capture on kernel %s (%s): works, %u of %u programs loaded\n",
	       u.release, u.machine, cl.loaded, cl.total);
	if (!cl.fallbacks[0])
		printf("fallbacks: none\n");
	else
		printf("fallbacks:\n");
	memcpy(list, cl.fallbacks, sizeof(list));
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
		printf("  %-18s %s\n", name, capture_fallback_effect(name) ?
		       capture_fallback_effect(name) : "");
	return RIOT_EXIT_OK;
}

int cmd_capture(int argc, char **argv)
{
	static struct capture_opts o;
	static struct opt_bufs bufs;
	int rc;

	memset(&o, 0, sizeof(o));
	rc = parse_args(argc, argv, &o, &bufs);
	if (rc)
		return rc < 0 ? RIOT_EXIT_OK : rc;
	if (o.check)
		return check_kernel();
	return capture_run(&o, argc, argv);
}
