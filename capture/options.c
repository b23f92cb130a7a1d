/* capture/options.c: the options of `riot capture` and `riot top`: target,
 * filters, the log. */
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

#define DEFAULT_RING_MIB 16
/* zstd's fastest level: the drain's compressor is a tenth to a fifth of
 * riot's CPU per event at level 3, for logs 1-3 % smaller (benchmarks/
 * README.md, "Capture: riot's own CPU") */
#define DEFAULT_ZSTD_LEVEL 1
/* riot's priority while it drains: on a busy host the ring buffer fills
 * while riot waits for a CPU, and what does not fit is lost. */
#define DEFAULT_NICE -10

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

static const struct option capture_long[] = {
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

/* riot top: a capture's target, filters and log; not what only a log
 * written to the end needs (--rotate, --block, --check). */
static const struct option top_long[] = {
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
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_one(struct capture_opts *o, int c, struct capture_opt_bufs *b,
		     int *targets, const char *help)
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
	case 'h': fputs(help, stdout); return -1;
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

/* riot top: a log to browse, or one target at most (none: the picker). */
static int check_top(struct capture_opts *o, int targets)
{
	if (o->in && (targets || o->out || o->comm || o->path_prefix || !o->all_ops))
		return riot_usage("riot top FILE browses a log: no target, -o or filter with it");
	if (targets > 1)
		return riot_usage("give one target only");
	if (!targets && !o->in)	/* the picker fills pids */
		o->mode = RIOT_TARGET_PIDS;
	return 0;
}

int capture_parse_args(int argc, char **argv, struct capture_opts *o, struct capture_opt_bufs *b,
		       enum capture_cmd cmd, const char *help)
{
	int c, rc, targets = 0;

	o->ring_bytes = (uint64_t)DEFAULT_RING_MIB << 20;
	o->nice = DEFAULT_NICE;
	o->zstd_level = DEFAULT_ZSTD_LEVEL;
	o->all_ops = true;
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		enable_sys(o, s);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:p:ad:qh",
				cmd == CAPTURE_CMD_TOP ? top_long : capture_long, NULL)) != -1) {
		if (c == ':')
			return riot_usage("option '%s' requires an argument", argv[optind - 1]);
		if (c == '?')
			return riot_usage("bad option '%s'", argv[optind - 1]);
		rc = parse_one(o, c, b, &targets, help);
		if (rc)
			return rc;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			if (cmd != CAPTURE_CMD_TOP || optind + 1 < argc)
				return riot_usage("unexpected argument '%s' (a command "
						  "goes after --)", argv[optind]);
			o->in = argv[optind];
		} else {
			o->cmd = argv + optind;
			o->mode = RIOT_TARGET_PIDS;
			targets++;
		}
	}
	if (cmd == CAPTURE_CMD_TOP)
		return check_top(o, targets);
	if (o->check)
		return targets || o->out ? riot_usage("--check takes no target and no -o") : 0;
	if (!o->out)
		return riot_usage("-o FILE is required");
	if (targets != 1)
		return riot_usage(targets ? "give one target only" :
				  "no target: give -- CMD, -p PID, --cgroup PATH or -a");
	return check_rotation(o);
}
