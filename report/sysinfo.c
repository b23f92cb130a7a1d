/* report/sysinfo.c: facts about the machine and filesystems a run used. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "report/report_int.h"

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, len, "%s", colon);
		break;
	}
	fclose(f);
}

void host_facts_get(struct host_facts *h)
{
	struct utsname u;
	struct sysinfo si;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->arch, sizeof(h->arch), "%s", u.machine);
	}
	cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cpu_count = n > 0 ? (unsigned)n : 0;
	if (sysinfo(&si) == 0)
		h->memory_bytes = (uint64_t)si.totalram * si.mem_unit;
}

/* ---- /proc/self/mountinfo ---- */

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && isdigit((unsigned char)s[2]) &&
		    isdigit((unsigned char)s[3])) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

struct mount_line {
	unsigned major, minor;
	char *mount_point, *opts, *fs_type, *source, *super_opts;
};

/* Splits one mountinfo line in place. 0 or -EINVAL. */
static int mount_parse(char *line, struct mount_line *m)
{
	char *f[16], *save = NULL, *tok;
	int n = 0, dash = -1;

	line[strcspn(line, "\n")] = 0;
	for (tok = strtok_r(line, " ", &save); tok && n < 16; tok = strtok_r(NULL, " ", &save)) {
		if (strcmp(tok, "-") == 0 && dash < 0)
			dash = n;
		f[n++] = tok;
	}
	if (n < 6 || dash < 6 || dash + 3 > n ||
	    sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	m->mount_point = f[4];
	m->opts = f[5];
	m->fs_type = f[dash + 1];
	m->source = f[dash + 2];
	m->super_opts = dash + 3 < n ? f[dash + 3] : "";
	unescape(m->mount_point);
	unescape(m->source);
	return 0;
}

/* Copies a mount into fs, strings in buf: options are the mount's and then
 * the superblock's that add something ("rw,relatime,errors=remount-ro"). */
static int mount_fill(const struct mount_line *m, struct run_fs *fs, char *buf, size_t len)
{
	char opts[1024], *save = NULL, *tok, super[1024];
	size_t used = 0;
	int n;

	snprintf(opts, sizeof(opts), "%s", m->opts);
	snprintf(super, sizeof(super), "%s", m->super_opts);
	for (tok = strtok_r(super, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "rw") == 0 || strcmp(tok, "ro") == 0)
			continue;
		if (strlen(opts) + strlen(tok) + 2 < sizeof(opts))
			strcat(strcat(opts, ","), tok);
	}
	n = snprintf(buf, len, "%s%c%s%c%s%c%s", m->fs_type, 0, m->source, 0,
		     m->mount_point, 0, opts);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	fs->dev = makedev(m->major, m->minor);
	fs->fs_type = buf;
	used = strlen(buf) + 1;
	fs->device = buf + used;
	used += strlen(buf + used) + 1;
	fs->mount_point = buf + used;
	used += strlen(buf + used) + 1;
	fs->mount_options = buf + used;
	return 0;
}

/* Whether mount point mp contains path (whole components). */
static size_t mount_covers(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != 0))
		return 0;
	return n;
}

/* The mount of dev (when path is NULL) or the one holding path: the
 * longest covering mount point, the last listed winning a tie (it is
 * mounted over the others). */
static int mount_find(uint64_t dev, const char *path, struct run_fs *fs, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], best[4096];
	size_t best_len = 0;
	struct mount_line m;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char copy[4096];
		size_t cover;

		memcpy(copy, line, sizeof(copy));
		if (mount_parse(copy, &m) < 0)
			continue;
		if (path)
			cover = mount_covers(m.mount_point, path);
		else
			cover = makedev(m.major, m.minor) == dev ? 1 : 0;
		if (cover && cover >= best_len) {
			best_len = cover;
			memcpy(best, line, sizeof(best));
			if (!path)
				break;	/* the first mount of a device is its root */
		}
	}
	fclose(f);
	if (!best_len)
		return -ENOENT;
	mount_parse(best, &m);
	return mount_fill(&m, fs, buf, len);
}

int run_fs_of_dev(uint64_t dev, struct run_fs *fs, char *buf, size_t buflen)
{
	memset(fs, 0, sizeof(*fs));
	return mount_find(dev, NULL, fs, buf, buflen);
}

int run_fs_of_path(const char *path, struct run_fs *fs, char *buf, size_t buflen)
{
	char real[PATH_MAX];

	memset(fs, 0, sizeof(*fs));
	if (!realpath(path, real))
		return -errno;
	return mount_find(0, real, fs, buf, buflen);
}
