/* top/picker.c: riot top without a target: the processes of the host,
 * those doing the most file I/O first, to pick one from (top_int.h). The
 * I/O is what /proc/PID/io counts (read and write calls, bytes), taken
 * twice a second apart: no BPF runs until a process is picked. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "lib/clock.h"
#include "top/top_int.h"

#define PICK_MAX 4096
#define SAMPLE_NS 1000000000ull

struct proc {
	pid_t pid;
	char comm[16];
	char cmdline[160];
	uint64_t calls, bytes;	/* syscr + syscw, rchar + wchar, as last read */
	uint64_t d_calls, d_bytes;	/* their growth over the last interval */
	bool seen;
};

struct picker {
	struct proc *p;
	unsigned n;
	char query[64];
	int sel, first;
	uint64_t t_sample;
};

static int read_small(const char *path, char *buf, size_t len)
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
	return (int)n;
}

static struct proc *find(struct picker *pk, pid_t pid)
{
	for (unsigned i = 0; i < pk->n; i++)
		if (pk->p[i].pid == pid)
			return &pk->p[i];
	return NULL;
}

/* Reads every process's counters; a new one starts with no growth. */
static void sample(struct picker *pk)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();
	unsigned keep = 0;

	for (unsigned i = 0; i < pk->n; i++)
		pk->p[i].seen = false;
	while (d && (de = readdir(d))) {
		char path[64], buf[1024], *s;
		uint64_t rc = 0, wc = 0, rb = 0, wb = 0;
		pid_t pid;
		struct proc *p;
		int n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/io", pid);
		if (read_small(path, buf, sizeof(buf)) < 0)
			continue;	/* gone, or a kernel thread we may not read */
		if ((s = strstr(buf, "syscr: ")))
			rc = strtoull(s + 7, NULL, 10);
		if ((s = strstr(buf, "syscw: ")))
			wc = strtoull(s + 7, NULL, 10);
		if ((s = strstr(buf, "rchar: ")))
			rb = strtoull(s + 7, NULL, 10);
		if ((s = strstr(buf, "wchar: ")))
			wb = strtoull(s + 7, NULL, 10);
		p = find(pk, pid);
		if (!p) {
			if (pk->n == PICK_MAX)
				continue;
			p = &pk->p[pk->n++];
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			snprintf(path, sizeof(path), "/proc/%d/comm", pid);
			if ((n = read_small(path, p->comm, sizeof(p->comm))) > 0 &&
			    p->comm[n - 1] == '\n')
				p->comm[n - 1] = 0;
			snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
			n = read_small(path, p->cmdline, sizeof(p->cmdline));
			for (int i = 0; i < n - 1; i++)
				if (!p->cmdline[i])
					p->cmdline[i] = ' ';
		} else {
			p->d_calls = rc + wc - p->calls;
			p->d_bytes = rb + wb - p->bytes;
		}
		p->calls = rc + wc;
		p->bytes = rb + wb;
		p->seen = true;
	}
	if (d)
		closedir(d);
	for (unsigned i = 0; i < pk->n; i++)	/* the exited ones go */
		if (pk->p[i].seen)
			pk->p[keep++] = pk->p[i];
	pk->n = keep;
}

static int by_io(const void *x, const void *y)
{
	const struct proc *a = x, *b = y;

	if (a->d_calls != b->d_calls)
		return a->d_calls > b->d_calls ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->pid - b->pid;
}

static bool matches(const struct proc *p, const char *q)
{
	char pid[16];

	if (!q[0])
		return true;
	snprintf(pid, sizeof(pid), "%d", p->pid);
	return strstr(pid, q) || strstr(p->comm, q) || strstr(p->cmdline, q);
}

static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

static int draw(struct picker *pk)
{
	int y = 3, shown = 0, hit = 0;

	erase();
	attron(A_BOLD);
	mvaddnstr(0, 0, "riot top: pick a process to watch (type to search, Enter "
		  "watches, Esc quits)", COLS);
	attroff(A_BOLD);
	mvprintw(1, 0, "search: %.*s_", COLS - 10, pk->query);
	attron(A_BOLD);
	mvprintw(2, 0, "%7s %-15s %9s %9s  %s", "PID", "COMM", "CALLS/S", "BYTES/S", "COMMAND");
	attroff(A_BOLD);
	for (unsigned i = 0; i < pk->n; i++) {
		const struct proc *p = &pk->p[i];
		char line[512];

		if (!matches(p, pk->query))
			continue;
		if (hit++ < pk->first)
			continue;
		if (y >= LINES - 1)
			continue;
		snprintf(line, sizeof(line), "%7d %-15s %9llu %9llu  %s", p->pid, p->comm,
			 (unsigned long long)p->d_calls, (unsigned long long)p->d_bytes,
			 p->cmdline[0] ? p->cmdline : p->comm);
		clean(line);
		if (pk->first + shown == pk->sel)
			attron(A_REVERSE);
		mvaddnstr(y, 0, line, COLS);
		if (pk->first + shown == pk->sel)
			attroff(A_REVERSE);
		y++;
		shown++;
	}
	if (!hit)
		mvaddnstr(y, 0, "(no process matches)", COLS);
	refresh();
	return hit;
}

/* The pid of the sel-th process shown. */
static pid_t selected(const struct picker *pk)
{
	int k = 0;

	for (unsigned i = 0; i < pk->n; i++)
		if (matches(&pk->p[i], pk->query) && k++ == pk->sel)
			return pk->p[i].pid;
	return 0;
}

int top_pick(pid_t *out, volatile int *stop)
{
	struct picker pk = { 0 };
	int rc = 1, hits = 0;

	pk.p = calloc(PICK_MAX, sizeof(*pk.p));
	if (!pk.p)
		return -ENOMEM;
	sample(&pk);
	pk.t_sample = riot_now_ns(CLOCK_MONOTONIC);
	for (;;) {
		uint64_t now = riot_now_ns(CLOCK_MONOTONIC);
		size_t ql = strlen(pk.query);
		int k, page = LINES - 4 > 1 ? LINES - 4 : 1;

		if (*stop)
			break;
		if (now - pk.t_sample >= SAMPLE_NS) {
			sample(&pk);
			pk.t_sample = now;
		}
		qsort(pk.p, pk.n, sizeof(*pk.p), by_io);
		if (pk.sel >= hits && hits)
			pk.sel = hits - 1;
		if (pk.sel < pk.first)
			pk.first = pk.sel;
		if (pk.sel >= pk.first + LINES - 4)
			pk.first = pk.sel - (LINES - 5);
		hits = draw(&pk);
		timeout(250);
		k = getch();
		if (k == ERR || k == KEY_RESIZE)
			continue;
		if (k == 27) {
			rc = 1;
			break;
		}
		if (k == '\r' || k == '\n' || k == KEY_ENTER) {
			if ((*out = selected(&pk))) {
				rc = 0;
				break;
			}
		} else if (k == KEY_UP && pk.sel > 0) {
			pk.sel--;
		} else if (k == KEY_DOWN) {
			pk.sel++;
		} else if (k == KEY_PPAGE) {
			pk.sel = pk.sel > page ? pk.sel - page : 0;
		} else if (k == KEY_NPAGE) {
			pk.sel += page;
		} else if ((k == KEY_BACKSPACE || k == 127 || k == 8) && ql) {
			pk.query[ql - 1] = 0;
			pk.sel = pk.first = 0;
		} else if (k >= 0x20 && k < 0x7f && ql + 1 < sizeof(pk.query)) {
			pk.query[ql] = (char)k;
			pk.query[ql + 1] = 0;
			pk.sel = pk.first = 0;
		}
	}
	free(pk.p);
	return rc;
}
