/* capture/session.c: one capture from start to end: the programs, the
 * start state, the drain loop from the ring buffer to the log (and to a
 * viewer's hooks), stop conditions, closing the log. */
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
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_int.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "model/model.h"
#include "report/report.h"

/* The drain waits POLL_IDLE_MS between looks at the ring: the BPF side
 * wakes it early once a sixteenth of the ring has filled (wakeup_bytes),
 * and the command's exit does through a pidfd. A wake-up is a switch of
 * riot's thread in and out, which on a virtual machine costs tens of
 * microseconds: waking every POLL_MS while events trickle in cost a
 * 20,000-call/s program's capture about 30 % of riot's CPU. A viewer (riot top)
 * is also woken by its terminal's input and draws on its own clock; one
 * without an input to wait on ticks every POLL_MS, and without a pidfd a
 * command's exit is looked for as often. */
#define POLL_MS 10
#define POLL_IDLE_MS 100
/* A viewer's tick: when its input is readable, else at most every
 * TICK_NS (a busy drain ends its wait hundreds of times a second; each
 * tick costs the viewer a look at its input). */
#define TICK_NS (POLL_MS * 1000000ull)
#define LOSS_POLL_NS 100000000ull	/* drop records every 100 ms */
#define FLUSH_NS 1000000000ull		/* a killed capture loses <= 1 s */
/* An event is logged once every CPU has handed over all it timed before
 * it (tracer_progress()); a CPU riot cannot visit is taken to have done
 * so after this delay. */
#define REORDER_NS 300000000ull
#define REORDER_MAX_BYTES (256ull << 20)
/* A CPU's batch is handed over when it fills, or at the CPU's first event
 * after a kick (a new flush generation); meanwhile what other CPUs handed
 * over waits to be ordered. Waiting 100 ms at a million events a second
 * holds 10-30 MB, which has left the cache by the time it is logged: kick
 * as soon as that much is waiting, at most this often. */
#define KICK_BACKLOG (1u << 20)
#define KICK_MIN_NS 10000000ull

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

static struct riot_writer *open_log(struct capture *c, const struct capture_opts *o,
				    int argc, char **argv, uint64_t start_t,
				    const struct probe_calib *pc, const char *fallbacks)
{
	static char cmdline[8192], target[4096], opts[2048];
	struct riot_log_header h = { .major = RIOT_FMT_MAJOR,
				     .minor = RIOT_FMT_MINOR };
	/* the writer's blocks of 256 KiB: 1 MiB ones made tar's log 3 %
	 * smaller but its writing 30-40 ns a record slower (a block's
	 * columns past the caches) */
	struct riot_writer_opts wo = { .zstd_level = o->zstd_level };
	static struct utsname u;	/* outlives the call: every segment copies the header */

	uname(&u);
	capture_join_args(cmdline, sizeof(cmdline), "riot capture", argc - 1, argv + 1);
	capture_describe(o, target, sizeof(target), opts, sizeof(opts));
	h.host = u.nodename;
	h.kernel = u.release;
	h.arch = u.machine;
	h.riot_version = RIOT_VERSION;
	h.cmdline = cmdline;
	h.options = opts;
	h.target = target;
	h.boot_to_wall_ns = (int64_t)(riot_now_ns(CLOCK_REALTIME) -
				      riot_now_ns(CLOCK_BOOTTIME));
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
	err = c->w ? riot_writer_add(c->w, rec) : 0;
	if (!err && c->rot)
		err = rotation_note(c->rot, rec);
	if (!err && c->hooks && c->hooks->rec)
		err = c->hooks->rec(c->hooks->ctx, rec);
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
static int on_event(void *ctx, const void *data, size_t size, bool lent)
{
	struct capture *c = ctx;
	int rc;

	if (!size) {
		c->malformed++;
		return 0;
	}
	rc = (lent ? reorder_lend : reorder_push)(c->ro, data, size, event_time,
						  event_size, log_event, c);
	if (rc > 0)
		c->malformed++;
	if (rc < 0 && !c->err)
		c->err = rc;
	return rc < 0 ? rc : 0;
}

/* The ring's room goes back to the programs: what waits is copied. */
static int on_keep(void *ctx)
{
	struct capture *c = ctx;
	int rc = reorder_keep(c->ro);

	if (rc && !c->err)
		c->err = rc;
	return rc;
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
	uint64_t now = riot_now_ns(CLOCK_BOOTTIME);
	int err = tracer_losses(t, on_loss, c);

	c->t_loss_poll = now;
	return err;
}

/* ---- the loop ---- */

struct run {
	const struct capture_opts *o;
	struct tracer *t;
	pid_t child;
	int child_status;
	bool child_done;
	bool viewed_stop;	/* a viewer's tick ended the capture */
	bool target_gone;	/* CMD or every -p process exited */
	struct live live;
};

/* What a viewer's hooks are handed. */
struct capture_watch {
	struct capture *c;
	struct run *r;
	bool running;
};

void capture_watch_counts(const struct capture_watch *w, struct capture_counts *out)
{
	const struct capture *c = w->c;

	out->drops = c->ring_lost + c->slot_lost;
	out->log_bytes = c->w ? riot_writer_bytes(c->w) +
		(c->rot ? rotation_totals(c->rot)->bytes : 0) : 0;
	out->log_path = c->w ? c->log_path : NULL;
	out->running = w->running;
	out->target_gone = w->r->target_gone;
	out->child_status = w->r->child_done ? child_exit_status(w->r->child_status) : 0;
	out->signals = (unsigned)stop_signals;
	out->child = w->r->child_done ? 0 : w->r->child;
}

int capture_watch_set_ops(struct capture_watch *w, const uint64_t *sys_on)
{
	uint64_t off[(RIOT_SYS_COUNT + 63) / 64];

	for (unsigned i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		off[i] = ~sys_on[i];
	return w->r->t ? tracer_set_off(w->r->t, off) : -ESRCH;
}

bool capture_watch_loaded(const struct capture_watch *w, unsigned sys)
{
	return sys < RIOT_SYS_COUNT && (w->r->o->sys_on[sys / 64] >> (sys % 64) & 1);
}

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
			r->target_gone = true;
			return true;
		}
		return false;
	}
	if (check_pids && r->o->mode == RIOT_TARGET_PIDS && !tracer_pids_alive(r->t)) {
		r->target_gone = true;
		return true;
	}
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

/* riot's own CPU so far (every thread of riot; the command's is its
 * own), ns. */
static uint64_t own_cpu_ns(void)
{
	return riot_now_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* The longest wait of the drain, given what can end it early (wake[0]:
 * the command's exit, wake[1]: the viewer's input): a viewer without an
 * input to wait on ticks every POLL_MS, and a command whose exit cannot
 * wake riot is looked for as often. */
static int wait_max_ms(const struct capture *c, const struct run *r, const int *wake)
{
	return (c->hooks && wake[1] < 0) || (r->child && wake[0] < 0) ? POLL_MS : POLL_IDLE_MS;
}

/* The next wait: max_ms, never past --duration's end. */
static int next_wait_ms(int max_ms, const struct run *r, uint64_t start, uint64_t now)
{
	int ms = max_ms;

	if (r->o->duration > 0) {
		double left = r->o->duration * 1e3 - (double)(now - start) / 1e6;

		if (left < ms)
			ms = left > 1 ? (int)left : 1;
	}
	return ms;
}

/* wake_fd: readable once the command has exited, or -1. */
static int drain(struct capture *c, struct run *r, int wake_fd)
{
	uint64_t start = riot_now_ns(CLOCK_MONOTONIC), last_loss = start,
		 last_flush = start, last_kick = start, last_tick = 0, now;
	unsigned ready;
	int wake[TRACER_WAKE_MAX] = { wake_fd, c->hooks ? c->hooks->input_fd : -1 };
	int n, err, max_ms = wait_max_ms(c, r, wake), wait_ms = max_ms;

	struct capture_watch watch = { c, r, true };

	if (!c->hooks) {
		capture_live_start(&r->live, c, r->o);
		capture_live_show(&r->live, c, start);
	}
	for (;;) {
		uint64_t boot = riot_now_ns(CLOCK_BOOTTIME);

		n = tracer_poll(r->t, wait_ms, wake, TRACER_WAKE_MAX, &ready);
		if (n < 0)
			return c->err ? c->err : n;
		now = riot_now_ns(CLOCK_MONOTONIC);
		max_ms = wait_max_ms(c, r, wake);
		wait_ms = next_wait_ms(max_ms, r, start, now);
		bool tick = now - last_loss >= LOSS_POLL_NS;
		/* A kick hands over what sits in batches, and the progress
		 * of CPUs riot cannot tell idle, which what waits to be
		 * ordered needs; with neither, it is not needed. */
		if ((tick && (reorder_bytes(c->ro) || tracer_batched(r->t))) ||
		    (now - last_kick >= KICK_MIN_NS &&
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
		if (!err)
			err = on_keep(c);
		if (err)
			return err;
		tracer_release(r->t);
		if (c->rot && (rotate_signals || rotation_timed_out(c->rot, riot_now_ns(CLOCK_BOOTTIME)))) {
			rotate_signals = 0;
			if ((err = rotate(c)))
				return err;
		}
		if (now - last_flush >= FLUSH_NS) {
			last_flush = now;
			if (c->w && (err = riot_writer_flush(c->w)))
				return err;
			if (!c->hooks)
				capture_live_show(&r->live, c, now);
		}
		/* ready bit 1: wake[1], the viewer's input */
		if (c->hooks && c->hooks->tick &&
		    ((ready & 1u << 1) || now - last_tick >= TICK_NS)) {
			last_tick = now;
			if ((err = c->hooks->tick(c->hooks->ctx, &watch))) {
				if (err < 0)
					return err;
				r->viewed_stop = true;
				return 0;
			}
		}
		if (should_stop(r, start, now, tick))
			return 0;
	}
}

static int drain_loop(struct capture *c, struct run *r)
{
	/* the command's exit ends a wait at once (Linux 5.3) */
	int fd = r->child ? (int)syscall(SYS_pidfd_open, r->child, 0) : -1;
	int err = drain(c, r, fd);

	if (fd >= 0)
		close(fd);
	return err;
}

static int finish_drain(struct capture *c, struct run *r)
{
	uint64_t cpu = own_cpu_ns();
	int n;

	tracer_detach(r->t);
	c->cpu_detach_ns = own_cpu_ns() - cpu;
	n = tracer_stop(r->t);

	if (n < 0)
		return c->err ? c->err : n;
	n = reorder_release(c->ro, UINT64_MAX, log_event, c);
	if (!n)
		n = poll_losses(c, r->t);
	c->unfollowed = tracer_unfollowed(r->t);
	c->kfiltered = tracer_filtered(r->t);
	return n;
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

	if (err && !c->w) {
		riot_err("capture: %s%s", strerror(-err), stopped);
		return -1;
	}
	if (err) {
		/* The writer keeps the log readable up to its last block. */
		riot_writer_close(c->w);
		riot_err("writing %s: %s (the log holds what was written before)%s",
			 c->log_path, strerror(-err), stopped);
		return -1;
	}
	if (!c->w)
		return 0;
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
		capture_print_summary(c, c->log_path, &lt, bytes);
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
	return r->child_done ? child_exit_status(r->child_status) : RIOT_EXIT_FAIL;
}

int capture_session(struct capture_opts *o, int argc, char **argv, const struct capture_hooks *h)
{
	struct capture c = { .block = { .fd = -1 }, .hooks = h };
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
	if (out_name && (err = riot_check_output(out_name)) < 0) {
		riot_err("cannot create %s: %s", out_name, strerror(-err));
		return RIOT_EXIT_FAIL;
	}
	if (capture_check_pids(o) || child_start(o, h != NULL, &r.child, &gate))
		return RIOT_EXIT_FAIL;
	c.ro = reorder_new(REORDER_MAX_BYTES);
	if (!c.ro || (o->path_prefix && !(c.pf = path_filter_new(o->path_prefix)))) {
		riot_err("out of memory");
		goto out;
	}
	r.t = tracer_start(o, r.child, on_event, on_keep, &c, &pc, why, sizeof(why));
	if (!r.t) {
		riot_err("%s", why);
		goto out;
	}
	/* A slow start is the kernel's verifier (a busy host, a kernel whose
	 * verifier explores more): said, so it is not taken for a hang. */
	if (tracer_load(r.t)->load_s > 1)
		fprintf(stderr, "riot capture: loading the BPF programs took %.1f s\n",
			tracer_load(r.t)->load_s);
	t0 = riot_now_ns(CLOCK_BOOTTIME);
	c.t_loss_poll = t0;
	c.w = o->out ? open_log(&c, o, argc, argv, t0, &pc, tracer_load(r.t)->fallbacks) : NULL;
	if (o->out && !c.w) {
		riot_err("cannot create %s: %s", c.log_path ? c.log_path : o->out,
			 strerror(errno));
		goto out;
	}
	if (c.w && stat(c.log_path, &st) == 0) {
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
	if (!err && c.w)
		err = riot_writer_flush(c.w);
	if (!err) {
		child_release(&gate, true);
		drain_priority(o);
		c.cpu_start_ns = own_cpu_ns();
		err = drain_loop(&c, &r);
		capture_live_end(&r.live);
	}
	if (r.viewed_stop)	/* the viewer quit: the command goes too */
		stop_child(&r, stopped, sizeof(stopped));
	if (!err)
		err = finish_drain(&c, &r);
	c.cpu_end_ns = own_cpu_ns();
	if (!err && o->block)
		err = block_to_log(&c, o);
	if (h && h->end) {	/* the terminal is the viewer's until now */
		struct capture_watch watch = { &c, &r, false };

		h->end(h->ctx, &watch);
	}
	tracer_destroy(r.t);
	r.t = NULL;
	if (err)
		stop_child(&r, stopped, sizeof(stopped));
	if (finish_log(&c, o, err, t0, stopped))
		goto out;
	rc = r.child && !r.viewed_stop ? child_exit(&r) : RIOT_EXIT_OK;
	r.child = 0;
out:
	tracer_destroy(r.t);
	if (r.child && gate >= 0)
		child_reap(r.child, &gate);
	block_view_free(&c.block);
	rotation_free(c.rot);
	path_filter_free(c.pf);
	free(c.execs);
	reorder_free(c.ro);
	return rc;
}
