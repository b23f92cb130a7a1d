/* capture/block.c: see block.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/libbpf.h>

#include "bpf/block.h"
#include "block.skel.h"
#include "capture/block.h"
#include "lib/clock.h"

/* how often the queue depth is sampled, and how many points a series
 * keeps before pairs merge into points twice as wide */
#define DEPTH_SAMPLE_NS 10000000ull
#define DEPTH_POINTS_MAX 1024
/* dm over dm over ...: how deep members are followed */
#define MEMBER_DEPTH_MAX 4

/* The first line of a sysfs file, without its newline; -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static bool has_dev(const struct run_device *devs, unsigned n, uint64_t dev)
{
	for (unsigned i = 0; i < n; i++)
		if (devs[i].dev == dev)
			return true;
	return false;
}

static int add_dev(uint64_t dev, const char *member_of, unsigned depth,
		   struct run_device *devs, unsigned *n, char *err, size_t errlen);

/* A device-mapper or md device: its members, or 0 when it has none. */
static int add_members(const char *sys, const char *name, unsigned depth,
		       struct run_device *devs, unsigned *n, char *err, size_t errlen)
{
	char path[PATH_MAX + 300], line[64];
	struct dirent *de;
	unsigned found = 0;
	int rc = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/slaves", sys);
	d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		unsigned ma, mi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/slaves/%s/dev", sys, de->d_name);
		if (read_line(path, line, sizeof(line)) < 0 || sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		found++;
		rc = add_dev(makedev(ma, mi), name, depth + 1, devs, n, err, errlen);
	}
	closedir(d);
	return rc ? rc : (int)found;
}

static int add_dev(uint64_t dev, const char *member_of, unsigned depth,
		   struct run_device *devs, unsigned *n, char *err, size_t errlen)
{
	char sys[PATH_MAX], real[PATH_MAX], path[PATH_MAX + 32];
	struct run_device *d;
	const char *name;
	int rc;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (major(dev) == 0 || !realpath(sys, real)) {
		snprintf(err, errlen, "device %u:%u is no block device (tmpfs, overlay or "
			 "btrfs have none to follow; name one with --block-dev)",
			 major(dev), minor(dev));
		return -ENODEV;
	}
	name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (depth < MEMBER_DEPTH_MAX) {
		rc = add_members(real, name, depth, devs, n, err, errlen);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	if (has_dev(devs, *n, dev))
		return 0;
	if (*n >= BLOCK_DEVS_MAX) {
		snprintf(err, errlen, "more than %d block devices to follow", BLOCK_DEVS_MAX);
		return -E2BIG;
	}
	d = &devs[(*n)++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%.31s", name);
	snprintf(path, sizeof(path), "%s/partition", real);
	if (strncmp(name, "loop", 4) == 0) {
		char backing[240] = "";	/* fits the note with the words around it */

		snprintf(d->kind, sizeof(d->kind), "loop");
		snprintf(path, sizeof(path), "%s/loop/backing_file", real);
		read_line(path, backing, sizeof(backing));
		snprintf(d->note, sizeof(d->note), "loop device%s%s: counted at the loop "
			 "device, not the disk below", backing[0] ? " backed by " : "", backing);
	} else {
		snprintf(d->kind, sizeof(d->kind), access(path, F_OK) == 0 ? "partition" : "disk");
	}
	if (member_of) {
		size_t l = strlen(d->note);

		snprintf(d->note + l, sizeof(d->note) - l, "%smember of %s", l ? "; " : "",
			 member_of);
	}
	return 0;
}

int block_devs_of_dev(uint64_t dev, struct run_device *devs, unsigned *n,
		      char *err, size_t errlen)
{
	return add_dev(dev, NULL, 0, devs, n, err, errlen);
}

int block_devs_of_path(const char *path, struct run_device *devs, unsigned *n,
		       char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	rc = block_devs_of_dev(st.st_dev, devs, n, err, errlen);
	if (rc == -ENODEV) {
		size_t l = strlen(path);

		/* say whose filesystem it is */
		if (l + 2 < errlen) {
			memmove(err + l + 2, err, errlen - l - 2);
			memcpy(err, path, l);
			memcpy(err + l, ": ", 2);
			err[errlen - 1] = '\0';
		}
	}
	return rc;
}

int block_dev_named(const char *spec, struct run_device *devs, unsigned *n,
		    char *err, size_t errlen)
{
	char path[PATH_MAX], line[64];
	unsigned ma, mi;
	struct stat st;
	char tail;

	if (sscanf(spec, "%u:%u%c", &ma, &mi, &tail) == 2)
		return block_devs_of_dev(makedev(ma, mi), devs, n, err, errlen);
	if (strchr(spec, '/')) {
		if (stat(spec, &st) < 0 || !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "--block-dev %s: not a block device", spec);
			return -ENODEV;
		}
		return block_devs_of_dev(st.st_rdev, devs, n, err, errlen);
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", spec);
	if (read_line(path, line, sizeof(line)) < 0 || sscanf(line, "%u:%u", &ma, &mi) != 2) {
		snprintf(err, errlen, "--block-dev %s: no such block device", spec);
		return -ENODEV;
	}
	return block_devs_of_dev(makedev(ma, mi), devs, n, err, errlen);
}

/* ---- the recorder ---- */

struct block_rec {
	struct block_bpf *skel;
	struct run_device dev[BLOCK_DEVS_MAX];
	unsigned ndev;
	uint64_t start_ns;
	pthread_t sampler;
	bool sampling;
	volatile int stop;
	/* per device: samples of the point being filled */
	double acc[BLOCK_DEVS_MAX];
	uint32_t acc_max[BLOCK_DEVS_MAX];
	unsigned acc_n;
	uint64_t step_ns, point_t;
	unsigned per_point;		/* samples a point holds */
	int oom;
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Halves a series: pairs of points become one twice as wide. */
static void merge_pairs(struct run_device *d)
{
	unsigned j = 0;

	for (unsigned i = 0; i < d->ndepth; i += 2, j++) {
		struct run_depth_point p = d->depth[i];

		if (i + 1 < d->ndepth) {
			p.depth = (p.depth + d->depth[i + 1].depth) / 2;
			if (d->depth[i + 1].depth_max > p.depth_max)
				p.depth_max = d->depth[i + 1].depth_max;
		}
		d->depth[j] = p;
	}
	d->ndepth = j;
}

static void end_point(struct block_rec *r)
{
	if (!r->acc_n)
		return;
	for (unsigned i = 0; i < r->ndev; i++) {
		struct run_device *d = &r->dev[i];

		if (!d->depth && !(d->depth = calloc(DEPTH_POINTS_MAX, sizeof(*d->depth)))) {
			r->oom = 1;
			continue;
		}
		d->depth[d->ndepth++] = (struct run_depth_point){
			.t_ns = r->point_t, .depth = r->acc[i] / r->acc_n,
			.depth_max = r->acc_max[i] };
		r->acc[i] = 0;
		r->acc_max[i] = 0;
	}
	r->acc_n = 0;
	r->point_t += r->step_ns;
	if (r->ndev && r->dev[0].ndepth == DEPTH_POINTS_MAX) {
		for (unsigned i = 0; i < r->ndev; i++)
			merge_pairs(&r->dev[i]);
		r->step_ns *= 2;
		r->per_point *= 2;
	}
}

static void sample(struct block_rec *r)
{
	for (unsigned i = 0; i < r->ndev; i++) {
		struct block_dev_counts *c = &r->skel->bss->counts[i];
		int64_t now = __atomic_load_n(&c->inflight, __ATOMIC_RELAXED);
		uint64_t cur = now > 0 ? (uint64_t)now : 0;
		/* the most in flight since the last sample, reset to now's */
		uint64_t max = __atomic_exchange_n(&c->depth_max, cur, __ATOMIC_RELAXED);

		if (cur > max)
			max = cur;
		r->acc[i] += (double)cur;
		if (max > r->acc_max[i])
			r->acc_max[i] = (uint32_t)max;
	}
	if (++r->acc_n == r->per_point)
		end_point(r);
}

static void *sampler_main(void *arg)
{
	struct block_rec *r = arg;
	uint64_t next = r->start_ns;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts;

		next += DEPTH_SAMPLE_NS;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		sample(r);
	}
	return NULL;
}

struct block_rec *block_rec_start(const struct run_device *devs, unsigned n,
				  char *err, size_t errlen)
{
	libbpf_print_fn_t old;
	struct block_rec *r;
	int rc = 0;

	if (n == 0 || n > BLOCK_DEVS_MAX || n > BLOCK_MAX_DEVS) {
		snprintf(err, errlen, "block: 1 to %d devices can be followed", BLOCK_MAX_DEVS);
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(r->dev, devs, n * sizeof(*devs));
	r->ndev = n;
	for (unsigned i = 0; i < n; i++) {
		r->dev[i].depth = NULL;
		r->dev[i].ndepth = 0;
	}
	old = libbpf_set_print(silent);
	r->skel = block_bpf__open();
	if (!r->skel) {
		rc = -errno;
		goto out;
	}
	r->skel->rodata->ndevs = n;
	for (unsigned i = 0; i < n; i++)
		r->skel->rodata->devs[i] = (major(devs[i].dev) << 20) | minor(devs[i].dev);
	if ((rc = block_bpf__load(r->skel)) != 0 || (rc = block_bpf__attach(r->skel)) != 0)
		goto out;
	r->start_ns = riot_now_ns(CLOCK_MONOTONIC);
	r->step_ns = DEPTH_SAMPLE_NS;
	r->per_point = 1;
	if (pthread_create(&r->sampler, NULL, sampler_main, r) != 0) {
		rc = -EAGAIN;
		goto out;
	}
	r->sampling = true;
out:
	libbpf_set_print(old);
	if (rc) {
		snprintf(err, errlen, "block tracepoints: %s%s", strerror(rc < 0 ? -rc : rc),
			 rc == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "");
		block_rec_free(r);
		errno = rc < 0 ? -rc : rc;
		return NULL;
	}
	return r;
}

static void fill_hist(struct hist *h, const __u64 *b, uint64_t sum, uint64_t max)
{
	hist_init(h);
	for (unsigned i = 0; i < BLOCK_HIST_BUCKETS && i < HIST_BUCKETS; i++) {
		if (!b[i])
			continue;
		h->b[i] = b[i];
		h->count += b[i];
		if (h->min == UINT64_MAX)
			h->min = hist_bucket_low(i);
	}
	h->sum = sum;
	h->max = max;
	if (!h->count)
		h->min = 0;
}

int block_rec_stop(struct block_rec *r, struct run_block *out)
{
	uint64_t end;

	memset(out, 0, sizeof(*out));
	block_bpf__detach(r->skel);
	end = riot_now_ns(CLOCK_MONOTONIC);
	if (r->sampling) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		pthread_join(r->sampler, NULL);
		r->sampling = false;
		end_point(r);
	}
	out->window_ns = end - r->start_ns;
	out->dev = calloc(r->ndev, sizeof(*out->dev));
	if (!out->dev || r->oom)
		return -ENOMEM;
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct block_dev_counts *c = &r->skel->bss->counts[i];
		struct run_device *d = &out->dev[i];

		*d = r->dev[i];
		r->dev[i].depth = NULL;		/* handed over */
		d->depth_step_ns = r->step_ns;
		for (unsigned k = 0; k < RUN_DEV_OPS; k++) {
			d->reqs[k] = c->reqs[k];
			d->bytes[k] = c->bytes[k];
		}
		for (unsigned k = 0; k < 2; k++)
			fill_hist(&d->lat[k], r->skel->bss->lat_hist[i][k], c->lat_sum[k],
				  c->lat_max[k]);
		d->lat_sum_all = c->lat_sum_all;
		d->depth_peak = c->depth_peak;
		d->untimed = c->untimed;
	}
	out->ndev = r->ndev;
	return 0;
}

void block_rec_free(struct block_rec *r)
{
	if (!r)
		return;
	if (r->sampling) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		pthread_join(r->sampler, NULL);
	}
	for (unsigned i = 0; i < r->ndev; i++)
		free(r->dev[i].depth);
	block_bpf__destroy(r->skel);
	free(r);
}

/* ---- who else wrote in the window ---- */

struct proc_write {
	uint32_t pid;
	uint64_t start;			/* /proc/PID/stat starttime: pid reuse */
	uint64_t wrote;			/* /proc/PID/io write_bytes */
};

/* One process's start time and write_bytes: 0, -ENOENT (it is gone: not
 * counted), -EACCES (not readable: the scan is not known). */
static int proc_write_of(uint32_t pid, struct proc_write *w)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd, rc = -ENOENT;

	w->pid = pid;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	/* after the comm's closing parenthesis: state is field 3, starttime 22 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu", &v) != 1)
		return -ENOENT;
	w->start = v;
	snprintf(path, sizeof(path), "/proc/%u/io", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0 && (errno == EACCES || errno == EPERM))
		rc = -EACCES;
	close(fd);
	if (n <= 0)
		return rc;
	buf[n] = '\0';
	p = strstr(buf, "\nwrite_bytes: ");
	if (!p || sscanf(p + 14, "%llu", &v) != 1)
		return -ENOENT;
	w->wrote = v;
	return 0;
}

static int by_pid(const void *x, const void *y)
{
	const struct proc_write *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* Whether this process sees every process of the host: it is in the
 * first pid namespace (/proc/self/status lists one NSpid). */
static bool sees_all_processes(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	bool all = false;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "NSpid:", 6) == 0)
			all = !strchr(line + 6 + strspn(line + 6, " \t"), '\t') &&
			      !strchr(line + 6 + strspn(line + 6, " \t"), ' ');
	if (f)
		fclose(f);
	return all;
}

/* Every process but this one: *out malloc'ed, sorted by pid. 0, -EACCES
 * (one was not readable, or some are out of sight: another pid
 * namespace) or -errno. */
static int proc_writes(struct proc_write **out, unsigned *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned cap = 0;
	uint32_t self = (uint32_t)getpid();
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	if (!sees_all_processes())
		rc = -EACCES;
	while ((e = readdir(d)) && rc != -ENOMEM) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		struct proc_write w;
		int r;

		if (*end || !pid || pid == self)
			continue;
		r = proc_write_of((uint32_t)pid, &w);
		if (r == -EACCES && !rc)
			rc = r;
		if (r)
			continue;
		if (*n == cap) {
			struct proc_write *m = realloc(*out, (cap ? cap * 2 : 256) * sizeof(*m));

			if (!m) {
				rc = -ENOMEM;
				break;
			}
			*out = m;
			cap = cap ? cap * 2 : 256;
		}
		(*out)[(*n)++] = w;
	}
	closedir(d);
	if (*out)
		qsort(*out, *n, sizeof(**out), by_pid);
	return rc;
}

/* The other writers of the window: the processes of now whose write_bytes
 * grew since v->before (or that were born since). */
static void other_writers(struct block_view *v)
{
	struct proc_write *now;
	unsigned n, j = 0;
	int rc = proc_writes(&now, &n);

	if (rc || !v->writers_known) {
		free(now);
		v->writers_known = false;
		return;
	}
	v->other_writers = v->other_bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t was = 0;

		while (j < v->nbefore && v->before[j].pid < now[i].pid)
			j++;
		if (j < v->nbefore && v->before[j].pid == now[i].pid &&
		    v->before[j].start == now[i].start)
			was = v->before[j].wrote;
		if (now[i].wrote > was) {
			v->other_writers++;
			v->other_bytes += now[i].wrote - was;
		}
	}
	free(now);
}

/* ---- a recording with its window ---- */

int block_view_begin(struct block_view *v, const char *path, const char *const *named,
		     unsigned nnamed, bool flush_first, char *err, size_t errlen)
{
	struct run_device devs[BLOCK_DEVS_MAX];
	unsigned n = 0;
	int rc = 0;

	*v = (struct block_view){ .fd = -1 };
	for (unsigned i = 0; i < nnamed && !rc; i++)
		rc = block_dev_named(named[i], devs, &n, err, errlen);
	if (!nnamed)
		rc = block_devs_of_path(path, devs, &n, err, errlen);
	if (rc)
		return rc;
	if (path) {
		v->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (v->fd >= 0 && flush_first)
			syncfs(v->fd);
	}
	v->writers_known = proc_writes(&v->before, &v->nbefore) == 0;
	v->rec = block_rec_start(devs, n, err, errlen);
	return v->rec ? 0 : -errno;
}

void block_view_end(struct block_view *v)
{
	uint64_t t0, t1;
	bool synced = false;

	if (!v->rec)
		return;
	t0 = riot_now_ns(CLOCK_MONOTONIC);
	if (v->fd >= 0)
		synced = syncfs(v->fd) == 0;
	t1 = riot_now_ns(CLOCK_MONOTONIC);
	other_writers(v);
	if (block_rec_stop(v->rec, &v->res) == 0) {
		v->res.synced = synced;
		v->res.flush_ns = synced ? t1 - t0 : 0;
		v->recorded = true;
	} else {
		run_block_free(&v->res);
	}
	block_rec_free(v->rec);
	v->rec = NULL;
}

void block_view_free(struct block_view *v)
{
	block_rec_free(v->rec);
	v->rec = NULL;
	run_block_free(&v->res);
	v->recorded = false;
	free(v->before);
	v->before = NULL;
	v->nbefore = 0;
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
}
