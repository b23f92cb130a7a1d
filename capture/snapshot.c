/* capture/snapshot.c: the start state of traced processes, from /proc:
 * each process's cwd, comm and parent, and every fd it holds open with its
 * path, flags, position and the facts of its file, so I/O on files opened
 * before the capture began can be resolved and replayed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture_int.h"

/* readlink() into buf (PATH_MAX + 1 bytes); NULL when unreadable. */
static const char *read_link(const char *link, char *buf, bool *trunc)
{
	ssize_t n = readlink(link, buf, PATH_MAX);

	if (n < 0)
		return NULL;
	*trunc = n == PATH_MAX;
	buf[n] = 0;
	return buf;
}

/* The first line of a small /proc file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ppid from /proc/PID/stat: the field after the state, after the last ')'
 * (comm may hold spaces and parentheses). */
static uint32_t read_ppid(pid_t pid)
{
	char path[64], buf[1024];
	unsigned ppid = 0;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_line(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1)
		return 0;
	return ppid;
}

static void read_fdinfo(pid_t pid, int fd, struct riot_snap_fd *f)
{
	char path[64], line[256];
	unsigned long long v;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	in = fopen(path, "re");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "pos: %llu", &v) == 1)
			f->pos = v;
		else if (sscanf(line, "flags: %llo", &v) == 1)
			f->flags = (uint32_t)v;
	}
	fclose(in);
}

static int snapshot_fd(struct snap_out *out, pid_t pid, int fd, uint64_t t,
		       char *buf)
{
	struct riot_rec rec = { .type = RIOT_REC_SNAP_FD };
	struct riot_snap_fd *f = &rec.sfd;
	char link[64];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", pid, fd);
	f->path.s = read_link(link, buf, &f->path.truncated);
	if (!f->path.s)
		return 0;	/* closed meanwhile */
	f->pid = pid;
	f->fd = fd;
	f->t = t;
	/* stat() follows the magic link to the open file itself, deleted
	 * or not. */
	if (stat(link, &st) == 0) {
		f->size = st.st_size;
		f->ino = st.st_ino;
		f->dev = st.st_dev;
		f->ftype = st.st_mode & S_IFMT;
		f->perm = st.st_mode & 07777;
		f->has_perm = true;
	}
	read_fdinfo(pid, fd, f);
	return out->fn(out->ctx, &rec);
}

static int snapshot_fds(struct snap_out *out, pid_t pid, uint64_t t,
			char *buf)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* exited meanwhile, or a kernel thread */
	while (!err && (de = readdir(dir))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end)
			continue;
		err = snapshot_fd(out, pid, (int)fd, t, buf);
	}
	closedir(dir);
	return err;
}

int snapshot_process(struct snap_out *out, pid_t pid, uint64_t t)
{
	struct riot_rec rec = { .type = RIOT_REC_SNAP_PROC };
	char path[64], comm[64];
	char *buf = malloc(PATH_MAX + 1);
	int err;

	if (!buf)
		return -ENOMEM;
	rec.sproc.pid = pid;
	rec.sproc.ppid = read_ppid(pid);
	rec.sproc.t = t;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_line(path, comm, sizeof(comm)) == 0)
		rec.sproc.comm.s = comm;
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	rec.sproc.cwd.s = read_link(path, buf, &rec.sproc.cwd.truncated);
	if (!rec.sproc.comm.s && !rec.sproc.cwd.s) {
		free(buf);
		return 0;	/* gone */
	}
	err = out->fn(out->ctx, &rec);
	if (!err)
		err = snapshot_fds(out, pid, t, buf);
	free(buf);
	return err;
}

void snapshot_ids(pid_t pid, uint32_t *ppid, char *comm, size_t len)
{
	char path[64];

	*ppid = read_ppid(pid);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_line(path, comm, len))
		comm[0] = 0;
}

int snapshot_all(struct snap_out *out, pid_t self, uint64_t t)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end ||
		    pid == self)
			continue;
		err = snapshot_process(out, (pid_t)pid, t);
	}
	closedir(dir);
	return err;
}

/* cgroup.procs of dir, then of each child cgroup, to a bounded depth;
 * self left out. */
static int snapshot_cgroup_at(struct snap_out *out, const char *dir, pid_t self,
			      uint64_t t, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned pid;
	FILE *in;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	in = fopen(path, "re");
	if (!in)
		return 0;
	while (!err && fscanf(in, "%u", &pid) == 1)
		if ((pid_t)pid != self)
			err = snapshot_process(out, (pid_t)pid, t);
	fclose(in);
	if (err || depth >= 32 || !(d = opendir(dir)))
		return err;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		err = snapshot_cgroup_at(out, path, self, t, depth + 1);
	}
	closedir(d);
	return err;
}

int snapshot_cgroup(struct snap_out *out, const char *dir, pid_t self, uint64_t t)
{
	return snapshot_cgroup_at(out, dir, self, t, 0);
}
