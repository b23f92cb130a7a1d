/* capture/capture_int.h: what the files of capture/ share; nothing outside
 * capture/ includes it. */
#ifndef RIOT_CAPTURE_INT_H
#define RIOT_CAPTURE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/events.h"
#include "capture/capture.h"
#include "formats/log.h"

/* ---- child.c: -- CMD ---- */

/* -p's processes exist: 0, or -ESRCH (said). */
int capture_check_pids(const struct capture_opts *o);
/* With -- CMD, forks it into *child, held before its exec until
 * child_release() (*gate the pipe that holds it); detached: its standard
 * streams are /dev/null. 0, or -1 (said). Without -- CMD: 0, *child
 * left. */
int child_start(struct capture_opts *o, bool detached, pid_t *child, int *gate);
/* go: exec CMD; !go: make it exit unrun. */
void child_release(int *gate, bool go);
/* Makes a held command exit unrun and waits for it. */
void child_reap(pid_t child, int *gate);
/* A wait status as riot's exit status: the code, or 128 + the signal. */
int child_exit_status(int status);

/* ---- session.c: one capture ---- */

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
	const struct capture_hooks *hooks;	/* a viewer (riot top), or NULL */
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
	/* riot's own CPU (user+sys of its threads, not the command's), ns:
	 * when recording began (start-up: loading the programs, the start
	 * state), when it ended, and what detaching the programs took then
	 * (a syscall on every CPU per tracepoint: not recording's) */
	uint64_t cpu_start_ns, cpu_end_ns, cpu_detach_ns;
};

/* -a, -p and --cgroup record until stopped: riot says so, and on a
 * terminal keeps one line of what has been logged, rewritten every
 * second (with \r and spaces: no terminal controls). */
struct live {
	bool on;		/* stderr is a terminal */
	uint64_t t_ns, events;	/* at the previous line */
	int width;		/* of the previous line */
};

/* What the log holds, counted as `riot info` counts it. */
struct log_totals {
	uint64_t syscalls, procs;
	uint64_t ns;		/* from the start to the latest exit */
};


/* ---- summary.c: what capture says ---- */

void capture_join_args(char *buf, size_t len, const char *first, int argc, char **argv);
/* The log header's target and options text of o. */
void capture_describe(const struct capture_opts *o, char *target, size_t tlen, char *opts,
		      size_t olen);
/* -a, -p, --cgroup: says what is recorded, and on a terminal keeps a line
 * of counts, shown again by each capture_live_show(). */
void capture_live_start(struct live *l, const struct capture *c, const struct capture_opts *o);
void capture_live_show(struct live *l, const struct capture *c, uint64_t now);
void capture_live_end(struct live *l);
/* The summary on stderr once the log is closed (bytes: its size). */
void capture_print_summary(const struct capture *c, const char *out, const struct log_totals *lt,
			   uint64_t bytes);

/* ---- kbtf.c: what the kernel's BTF has ---- */

/* One question: the first type called name of BTF kind `kind`. found:
 * for a typedef (a raw tracepoint's btf_trace_NAME), the parameters of
 * the prototype it points to, -1 if none; for an enum with a member
 * named, 1 if it has that member; else 1 if the type is there; 0 or -1
 * when absent. */
struct kbtf_query {
	const char *name;
	unsigned kind;
	const char *member;
	int found;
};

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* Answers the n questions from the BTF file at path (the kernel's:
 * /sys/kernel/btf/vmlinux), read once in a small window: 0, or -errno
 * for a file that cannot be read or is no BTF (every answer "absent"). */
int kbtf_scan(const char *path, struct kbtf_query *q, unsigned n);

/* ---- tracer.c: the BPF side's lifecycle ---- */

struct tracer;
/* data: one event, or a CPU's batch of events, each at an 8-byte
 * boundary (bpf/events.h). lent: the bytes stay valid, where they are,
 * until the keep callback or tracer_release() (a record of the ring);
 * else only during the call. */
typedef int (*tracer_event_fn)(void *ctx, const void *data, size_t size, bool lent);
/* Copies whatever lent bytes the receiver still holds: the ring's room is
 * about to be handed back. 0 or -errno. */
typedef int (*tracer_keep_fn)(void *ctx);

/* Checks privileges and kernel features; on failure writes one line saying
 * what is missing into why and returns -errno. */
int tracer_check(char *why, size_t len);
struct probe_calib;
/* Opens, configures, loads and attaches, and measures the probe time into
 * pc (calib.c) as it attaches. child: a process to trace from the start
 * (-- CMD), or 0. NULL + errno, with why filled. */
struct tracer *tracer_start(const struct capture_opts *o, pid_t child,
			    tracer_event_fn fn, tracer_keep_fn keep, void *ctx,
			    struct probe_calib *pc, char *why, size_t len);
/* From libbpf's message with a refused program's log ("prog 'NAME': --
 * BEGIN PROG LOAD LOG --\n...-- END PROG LOAD LOG --"): the program, and
 * the log's last line that is the verifier's verdict rather than its
 * trace of instructions, source lines and totals. "" where absent. */
void verifier_verdict(const char *msg, char *prog, size_t plen, char *why, size_t wlen);
/* What loading found: programs loaded, fallbacks taken. */
const struct capture_load *tracer_load(const struct tracer *t);
/* Waits up to timeout_ms for records, or for one of the nwake wake_fds (at
 * most TRACER_WAKE_MAX; those < 0 are left out) to be readable, or for a
 * signal, then hands each record there is to fn; a wake fd that reports
 * an error or a hang-up is set to -1 there, and bit i of *ready is set
 * when wake_fds[i] was readable. Returns how many records,
 * or -errno (the callback's error included). A
 * malformed record is handed over with size 0. A CPU whose batch it finds
 * idle has progressed to the time it looked (where riot can tell: x86). */
#define TRACER_WAKE_MAX 2
int tracer_poll(struct tracer *t, int timeout_ms, int *wake_fds, unsigned nwake,
		unsigned *ready);
/* Hands the room of the records read back to the programs: the receiver
 * holds none of their bytes lent any more. */
void tracer_release(struct tracer *t);
/* Whether some CPU's batch holds events a kick would hand over (true
 * when capture cannot tell). */
bool tracer_batched(const struct tracer *t);
/* Starts a new flush generation, so a CPU that runs traced events hands
 * its batch over at the next one, and visits each CPU whose batch has held
 * events since the kick before: no event waits in a batch longer than
 * twice the interval between two kicks. Where riot cannot read the
 * batches (or tell an idle CPU's progress from them), visits every CPU. */
void tracer_kick(struct tracer *t);
/* Every event timed before the returned boot time has been handed to the
 * event callback: the least progress over the CPUs (0 until each visited
 * CPU has reported once). CPUs tracer_kick() cannot visit count as having
 * progressed to fallback at least. */
uint64_t tracer_progress(const struct tracer *t, uint64_t fallback);
/* Stops recording new events: the programs leave their tracepoints. */
void tracer_detach(struct tracer *t);
/* Detaches (if not yet), then hands out every record still queued. */
int tracer_stop(struct tracer *t);
/* New losses per CPU since the last call; calls fn for each CPU with some. */
typedef int (*tracer_loss_fn)(void *ctx, unsigned cpu, uint64_t ring,
			      uint64_t slot, uint64_t t_last);
int tracer_losses(struct tracer *t, tracer_loss_fn fn, void *ctx);
/* Processes not followed (traced set full), as of tracer_losses(). */
uint64_t tracer_unfollowed(struct tracer *t);
/* Syscalls --path dropped in the kernel, as of tracer_losses(). */
uint64_t tracer_filtered(struct tracer *t);
/* Switches the syscalls of off's bits off (the rest back on) while the
 * programs run. 0 or -errno. */
int tracer_set_off(struct tracer *t, const uint64_t *off);
/* False once every traced process (-p, and their children) has exited. */
bool tracer_pids_alive(struct tracer *t);
void tracer_destroy(struct tracer *t);
/* Probe-time calibration (calib.c): from begin to end, the calling
 * thread's calls go through the programs as a traced task's do, their
 * durations kept apart (bpf/riot.bpf.c, calib_tid). end copies up to max
 * of them into durs and returns how many. */
void tracer_calib_begin(struct tracer *t);
unsigned tracer_calib_end(struct tracer *t, uint32_t *durs, unsigned max);

/* ---- calib.c: the probe time of a recorded duration ---- */

struct probe_calib {
	unsigned calls;		/* 0: not measured */
	uint64_t untraced_ns, recorded_ns, probe_ns;
};

/* Just before the programs are attached: the calls timed from user
 * space (tracer_start()). */
void calib_untraced(struct probe_calib *pc);
/* The calls, while the programs time them (tracer.c): warm, the calls
 * made and dropped first; else RIOT_CALIB_CALLS of them. */
void calib_calls(bool warm);
/* Just after: the recorded durations of those calls (n of them), and the
 * difference. Leaves pc->calls 0 when the programs recorded fewer than
 * half of them (none: newfstatat is not among the captured calls, --ops). */
void calib_traced(struct probe_calib *pc, uint32_t *durs, unsigned n);

/* ---- convert.c: ring records into log records ---- */

/* Fills rec from one ring-buffer record, read in place: data at an 8-byte
 * boundary, as the ring buffer and the reorder buffer hand records over;
 * strings point into data. Returns 1 when rec holds a record, 0 for
 * nothing to log, -EINVAL when the record is malformed. */
int convert_event(const void *data, size_t size, struct riot_rec *rec);

/* capture/uring.c: io_uring requests. Fixes up a converted request
 * record (convert_event calls it). */
void uring_convert(struct riot_syscall *sc);
/* Bytes of the event at data (no more than avail), 0 when its header says
 * more than avail or is malformed; its contents (the arguments against
 * the syscall's row) are checked by convert_event(). */
size_t event_size(const void *data, size_t avail);
/* When the event took effect: a syscall's exit, a process event's time. */
uint64_t event_time(const void *data, size_t size);

/* ---- snapshot.c: start state from /proc ---- */

/* Where start-state records go (the --path filter, then the log). */
struct snap_out {
	int (*fn)(void *ctx, const struct riot_rec *rec);
	void *ctx;
};

/* A SNAP_PROC record and SNAP_FD records for every fd of pid. A process
 * that vanished meanwhile is skipped (returns 0). */
int snapshot_process(struct snap_out *out, pid_t pid, uint64_t t);
/* A live process's parent and comm from /proc (0 and "" when gone). */
void snapshot_ids(pid_t pid, uint32_t *ppid, char *comm, size_t len);
/* Every process of the host but self. */
int snapshot_all(struct snap_out *out, pid_t self, uint64_t t);
/* Every process in the cgroup v2 directory and below it but self. */
int snapshot_cgroup(struct snap_out *out, const char *dir, pid_t self, uint64_t t);

/* ---- filter.c: --path ---- */

struct path_filter;
struct path_filter *path_filter_new(const char *prefix);
/* Writes a record the filter adds to the log; 0 or -errno. */
typedef int (*path_filter_emit_fn)(void *ctx, const struct riot_rec *rec);
/* True when rec is to be logged. Feeds every record, logged or not, to
 * its own model (model/model.h), whose fd tables and cwds it decides
 * from. Before a
 * kept call it may hand emit the records a reader needs to resolve it
 * (the directory an fd outside the prefix names, as a SNAP_FD). */
bool path_filter_keep(struct path_filter *f, const struct riot_rec *rec,
		      path_filter_emit_fn emit, void *ctx);
/* 0, or the error (model_strerror()) after which the filter could follow
 * no state and so keeps every record. */
int path_filter_error(const struct path_filter *f);
void path_filter_free(struct path_filter *f);

/* ---- reorder.c: events back in time order ---- */

struct reorder;
typedef int (*reorder_fn)(void *ctx, const void *data, size_t size);
typedef uint64_t (*reorder_key_fn)(const void *data, size_t size);
typedef size_t (*reorder_size_fn)(const void *data, size_t avail);
struct reorder *reorder_new(size_t max_bytes);
/* Holds a copy of len bytes of events (each at an 8-byte boundary, sized
 * by size_of, ordered by key_of); beyond max_bytes hands the earliest to
 * fn. Returns 0, 1 when a tail of data was malformed and left out, or
 * -errno. */
int reorder_push(struct reorder *r, const void *data, size_t len,
		 reorder_key_fn key_of, reorder_size_fn size_of,
		 reorder_fn fn, void *ctx);
/* The same, the bytes lent, not copied: they stay where they are until
 * the events leave or reorder_keep() copies them. */
int reorder_lend(struct reorder *r, const void *data, size_t len,
		 reorder_key_fn key_of, reorder_size_fn size_of,
		 reorder_fn fn, void *ctx);
/* Copies the bytes of every lent batch whose events have not all left:
 * after it, the lender may reuse its memory. 0 or -ENOMEM. */
int reorder_keep(struct reorder *r);
/* Hands to fn, in key order, every event with key < until. */
int reorder_release(struct reorder *r, uint64_t until, reorder_fn fn,
		    void *ctx);
/* Bytes of events held. */
size_t reorder_bytes(const struct reorder *r);
void reorder_free(struct reorder *r);

/* ---- rotate.c: a capture written as a series of segments ---- */

/* With --rotate or --rotate-time the log is FILE.000001.riot,
 * FILE.000002.riot, ... (formats/FORMAT.md, "Segments"). Every record
 * written goes through rotation_note(), which keeps a model of what the
 * log holds so far; a new segment starts with the state that model shows
 * (SNAP_PROC and SNAP_FD records), then is fed by the same records. */
struct rotation;

/* The name of segment index of out ("app.riot" -> "app.000003.riot")
 * into buf; -EINVAL when out is not NAME.riot. */
int rotation_name(const char *out, uint64_t index, char *buf, size_t len);
/* h: the header every segment copies (its strings must outlive the
 * rotation). NULL + errno. */
struct rotation *rotation_new(const struct capture_opts *o, const struct riot_log_header *h,
			      const struct riot_writer_opts *wo);
/* Opens segment 1 (its start state is written by the caller, through
 * rotation_note). NULL + errno. */
struct riot_writer *rotation_first(struct rotation *rt, uint64_t t);
/* The path of the segment being written. */
const char *rotation_path(const struct rotation *rt);
/* After rec was added to w: the model follows it. 0 or -errno. */
int rotation_note(struct rotation *rt, const struct riot_rec *rec);
/* Whether w has reached --rotate's size. */
bool rotation_full(const struct rotation *rt, const struct riot_writer *w);
/* Whether --rotate-time has passed since the segment began (now: boot ns). */
bool rotation_timed_out(const struct rotation *rt, uint64_t now);
/* Closes *w (its end record written), opens the next segment with the
 * state so far, removes the segment --keep segments back. *w is the new
 * writer, or NULL when none could be opened (the old one is closed
 * either way). 0 or -errno. */
int rotation_next(struct rotation *rt, struct riot_writer **w);
/* What the closed segments held, for the summary. */
struct rotation_totals {
	uint64_t segments, syscalls, procs, bytes;
};
const struct rotation_totals *rotation_totals(const struct rotation *rt);
void rotation_free(struct rotation *rt);


#endif
