/* capture/tracer.c: the BPF side's lifecycle: check what the kernel offers,
 * open the skeleton, set its read-only configuration, load, attach, drain
 * the ring buffer, read the loss counters, detach. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/libbpf.h>

#include "riot.skel.h"
#include "capture/capture.h"
#include "capture/capture_int.h"
#include "lib/clock.h"

struct tracer {
	struct riot_bpf *skel;
	tracer_event_fn fn;
	tracer_keep_fn keep;
	void *ctx;
	int cgroup_fd;
	int ncpus;
	struct riot_loss *seen;		/* per CPU, as last reported */
	struct riot_loss *now;
	void *batch;			/* one CPU's batch, read at the end */
	size_t batch_size;
	uint64_t *upto;			/* per CPU: its progress, as handed over */
	uint8_t *idle;			/* per CPU: found idle (idle_sample()) */
	cpu_set_t reach;		/* CPUs tracer_kick() visits */
	const uint8_t *batches;		/* the batches map, mapped (NULL: not) */
	/* The ring buffer, read by riot (ring_read()): its consumer position
	 * (riot's to write), its producer position and its data, mapped twice
	 * in a row so that a record that wraps around reads straight. */
	unsigned long *cons_pos;
	const unsigned long *prod_pos;
	const uint8_t *ring_data;
	size_t ring_size;		/* a power of two */
	size_t ring_map_len;		/* of the producer's page and the data */
	unsigned long cons;		/* read up to here */
	unsigned long released;		/* handed back up to here */
	size_t lend_max;		/* read bytes lent before handing back */
	unsigned long prod_at;		/* the producer's, at idle_sample() */
	int epoll_fd;			/* ready when the programs wake riot */
	size_t batches_len, batch_stride;
	bool detached;
	struct capture_load load;	/* what loading found */
};

/* A CPU's batch as bpf/riot.bpf.c lays it out (struct batch). */
struct batch_view {
	uint64_t busy, gen, direct, upto;
	uint32_t len, count;
	uint8_t buf[];
};

/* libbpf's last complaint, kept to explain a failed load in one line, and
 * the verifier's reason when it refused a program. */
static char libbpf_last[256];
static char refused_prog[64], refused_why[256];
static bool libbpf_verbose;

/* Whether a line of the verifier's log is its trace rather than its
 * verdict: instructions ("284: (71) r1 = ..."), source lines ("; ..." and
 * "3377: c = p[i];"), branch points ("from 12 to 40: ..."), totals. */
static bool verifier_trace_line(const char *l, size_t n)
{
	static const char *const skip[] = { "processed ", "verification time",
		"stack depth", "-- ", "; ", "from ", "mark_precise", "last_idx",
		"func#", "Validating", "Func#", "propagating", "libbpf: " };
	size_t d = 0;

	if (!n)
		return true;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (n >= strlen(skip[i]) && !strncmp(l, skip[i], strlen(skip[i])))
			return true;
	while (d < n && l[d] >= '0' && l[d] <= '9')
		d++;
	return d && d < n && l[d] == ':';
}

void verifier_verdict(const char *msg, char *prog, size_t plen, char *why, size_t wlen)
{
	const char *name = strstr(msg, "prog '"), *b, *e, *l, *nl;
	size_t n;

	prog[0] = why[0] = 0;
	b = strstr(msg, "-- BEGIN PROG LOAD LOG --");
	e = b ? strstr(b, "-- END PROG LOAD LOG --") : NULL;
	if (!b || !e)
		return;
	if (name && name < b) {
		name += 6;
		n = strcspn(name, "'");
		snprintf(prog, plen, "%.*s", (int)n, name);
	}
	for (l = strchr(b, '\n'); l && l < e; l = nl) {
		l++;
		nl = memchr(l, '\n', e - l);
		n = (nl ? nl : e) - l;
		if (!verifier_trace_line(l, n))
			snprintf(why, wlen, "%.*s", (int)n, l);
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char line[sizeof(libbpf_last)];
	size_t n;

	if (libbpf_verbose)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	if (strstr(fmt, "BEGIN PROG LOAD LOG")) {
		char *msg = NULL;

		if (vasprintf(&msg, fmt, ap) >= 0)
			verifier_verdict(msg, refused_prog, sizeof(refused_prog),
					 refused_why, sizeof(refused_why));
		free(msg);
		return 0;
	}
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = 0;
	if (n)
		memcpy(libbpf_last, line, n + 1);
	return 0;
}

/* Before a load: nothing of an earlier one's complaints is kept. */
static void load_reset(void)
{
	libbpf_last[0] = refused_prog[0] = refused_why[0] = 0;
}

/* Why a load failed, in one line: the verifier's verdict where it refused
 * a program, else libbpf's last word; with the kernel's release. */
static void load_failure(char *why, size_t len, int err)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (refused_why[0])
		snprintf(why, len, "cannot load the BPF programs on kernel %s: "
			 "the verifier refused %s: %s (RIOT_BPF_DEBUG=1 prints "
			 "its log)", u.release, refused_prog[0] ? refused_prog : "a program",
			 refused_why);
	else
		snprintf(why, len, "cannot load the BPF programs on kernel %s: %s%s%s",
			 u.release, strerror(-err), libbpf_last[0] ? " — " : "",
			 libbpf_last);
}

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

static int check_caps(char *why, size_t len)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d)) {
		snprintf(why, len, "cannot read capabilities: %s", strerror(errno));
		return -errno;
	}
	if (has_cap(d, CAP_SYS_ADMIN))
		return 0;
	if (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON))
		return 0;
	snprintf(why, len, "needs root, or CAP_BPF and CAP_PERFMON (missing%s%s)",
		 has_cap(d, CAP_BPF) ? "" : " CAP_BPF",
		 has_cap(d, CAP_PERFMON) ? "" : " CAP_PERFMON");
	return -EPERM;
}

int tracer_check(char *why, size_t len)
{
	int err = check_caps(why, len);

	if (err)
		return err;
	if (access(VMLINUX_BTF, R_OK)) {
		snprintf(why, len, "kernel BTF missing: /sys/kernel/btf/vmlinux "
			 "(needs CONFIG_DEBUG_INFO_BTF)");
		return -ENOTSUP;
	}
	/* Probed, not inferred from a version: backports differ. */
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		snprintf(why, len, "kernel lacks the BPF ring buffer (Linux 5.8+)");
		return -ENOTSUP;
	}
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) != 1) {
		snprintf(why, len, "kernel lacks BPF task local storage (Linux 5.12+)");
		return -ENOTSUP;
	}
	return 0;
}

static void set_rodata(struct riot_bpf *skel, const struct capture_opts *o)
{
	skel->rodata->self_tgid = getpid();
	skel->rodata->target_mode = o->mode;
	if (o->comm)
		strncpy((char *)skel->rodata->comm_filter, o->comm,
			RIOT_COMM_LEN - 1);
	memcpy((void *)skel->rodata->sys_on, o->sys_on, sizeof(o->sys_on));
	/* Waking the reader per record would cost the traced thread more
	 * than recording; it polls on a timer and is woken only when the
	 * ring fills up. */
	skel->rodata->wakeup_bytes = o->ring_bytes / 16;
	/* --path: the kernel drops what surely lies outside; "/" holds
	 * everything, a longer prefix is left to userspace. */
	if (o->path_prefix) {
		size_t n = strlen(o->path_prefix);

		if (n > 1 && n < RIOT_KPATH_MAX) {
			memcpy((void *)skel->rodata->path_prefix, o->path_prefix, n);
			skel->rodata->path_prefix_len = n;
		}
	}
}

static int add_pid(struct tracer *t, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	return bpf_map__update_elem(t->skel->maps.traced, &key, sizeof(key),
				    &one, sizeof(one), BPF_ANY) ? -errno : 0;
}

static int set_targets(struct tracer *t, const struct capture_opts *o,
		       pid_t child, char *why, size_t len)
{
	__u32 zero = 0;
	int err;

	if (o->mode == RIOT_TARGET_CGROUP) {
		t->cgroup_fd = open(o->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->cgroup_fd < 0) {
			err = -errno;
			snprintf(why, len, "cgroup %s: %s", o->cgroup, strerror(errno));
			return err;
		}
		if (bpf_map__update_elem(t->skel->maps.cgroups, &zero, sizeof(zero),
					 &t->cgroup_fd, sizeof(t->cgroup_fd),
					 BPF_ANY)) {
			err = -errno;
			snprintf(why, len, "cgroup %s: not a cgroup v2 directory (%s)",
				 o->cgroup, strerror(errno));
			return err;
		}
	}
	if (o->mode != RIOT_TARGET_PIDS)
		return 0;
	for (unsigned i = 0; i < o->npids; i++) {
		err = add_pid(t, o->pids[i]);
		if (err) {
			snprintf(why, len, "cannot trace pid %d: %s", o->pids[i],
				 strerror(-err));
			return err;
		}
	}
	if (child && (err = add_pid(t, child))) {
		snprintf(why, len, "cannot trace the command: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* A record of the ring: a CPU's batch, or one event written on its own;
 * lent: it stays where it is until tracer_release(). */
static int on_record(struct tracer *t, const void *data, size_t size, bool lent)
{
	const struct riot_ev_batch *b = data;
	int err = 0;

	if (size >= sizeof(*b) && b->type == RIOT_EV_BATCH) {
		if (b->len > size - RIOT_BATCH_HDR)
			return t->fn(t->ctx, data, 0, false);
		if (b->len)
			err = t->fn(t->ctx, (const uint8_t *)data + RIOT_BATCH_HDR,
				    b->len, lent);
		/* After the events: the progress covers them. */
		if (b->cpu < (uint32_t)t->ncpus && b->upto > t->upto[b->cpu])
			t->upto[b->cpu] = b->upto;
		return err;
	}
	return t->fn(t->ctx, data, size, lent);
}

/* What capture does where the kernel lacks something its programs use:
 * each fallback's name (stored in the log, shown by `riot info`) and its
 * effect. Every one is chosen by probing the kernel's BTF at load time,
 * never by its version. */
static const struct capture_fallback {
	const char *name, *effect;
} fallbacks[] = {
	{ "no-fault-address", "page faults of file mappings are not tied to their "
	  "address (page_fault_user/_kernel: x86 only): no mmap:read or mmap:write" },
	{ "no-mmap-fault", "pages faulted in through file mappings are not recorded "
	  "(mm_filemap_fault, Linux 6.11)" },
	{ "no-fault-around", "pages mapped by fault-around are not recorded "
	  "(mm_filemap_map_pages, Linux 6.11)" },
	{ "no-mmap-write", "writes through shared file mappings are not recorded "
	  "(writeback_dirty_folio, Linux 5.18)" },
	{ "no-io-uring", "io_uring requests are not recorded, only io_uring_enter "
	  "(the kernel lacks io_uring or its tracepoints)" },
	{ "probe-read-files", "file facts are read with probe reads "
	  "(bpf_rdonly_cast, Linux 6.2): a little more time per open" },
	{ "no-find-vma", "mmap, madvise and mremap are recorded without their file, "
	  "anonymous memory included (bpf_find_vma, Linux 5.17)" },
};

const char *capture_fallback_effect(const char *name)
{
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (!strcmp(fallbacks[i].name, name))
			return fallbacks[i].effect;
	return NULL;
}

static void add_fallback(struct capture_load *cl, const char *name)
{
	size_t n = strlen(cl->fallbacks);

	snprintf(cl->fallbacks + n, sizeof(cl->fallbacks) - n, "%s%s",
		 n ? "," : "", name);
}

/* What capture asks of the kernel's BTF: the raw tracepoints of the
 * optional programs (btf_trace_NAME typedefs: their arguments, the
 * context pointer first), a kfunc and a helper (a value of enum
 * bpf_func_id). */
enum {
	Q_FAULT_USER, Q_FAULT_KERNEL, Q_FILEMAP_FAULT, Q_MAP_PAGES, Q_DIRTY_FOLIO,
	Q_URING_CREATE, Q_URING_REQ, Q_URING_SQE, Q_URING_COMPLETE,
	Q_RDONLY_CAST, Q_FIND_VMA, Q_COUNT
};

#define TP_QUERY(tp) { "btf_trace_" tp, BTF_KIND_TYPEDEF, NULL, 0 }
static const struct kbtf_query btf_questions[Q_COUNT] = {
	[Q_FAULT_USER] = TP_QUERY("page_fault_user"),
	[Q_FAULT_KERNEL] = TP_QUERY("page_fault_kernel"),
	[Q_FILEMAP_FAULT] = TP_QUERY("mm_filemap_fault"),
	[Q_MAP_PAGES] = TP_QUERY("mm_filemap_map_pages"),
	[Q_DIRTY_FOLIO] = TP_QUERY("writeback_dirty_folio"),
	[Q_URING_CREATE] = TP_QUERY("io_uring_create"),
	[Q_URING_REQ] = TP_QUERY("io_uring_submit_req"),
	[Q_URING_SQE] = TP_QUERY("io_uring_submit_sqe"),
	[Q_URING_COMPLETE] = TP_QUERY("io_uring_complete"),
	[Q_RDONLY_CAST] = { "bpf_rdonly_cast", BTF_KIND_FUNC, NULL, 0 },
	[Q_FIND_VMA] = { "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_find_vma", 0 },
};
#undef TP_QUERY

/* io_uring requests: one program for the ring's creation, one of two for
 * the submission (io_uring_submit_req, or io_uring_submit_sqe before it)
 * and one of two for the completion (the CQE, or its fields before it),
 * each chosen by what the kernel's BTF says of its tracepoint. Without
 * them (or io_uring) no requests are recorded rather than no capture. */
static void probe_uring(struct riot_bpf *skel, const struct kbtf_query *q,
			struct capture_load *cl)
{
	int create = q[Q_URING_CREATE].found == 6;
	int req = q[Q_URING_REQ].found == 2;
	int sqe = !req && q[Q_URING_SQE].found == 3;
	int done = q[Q_URING_COMPLETE].found;
	int ok = create && (req || sqe) && (done == 4 || done == 8);

	bpf_program__set_autoload(skel->progs.uring_create, ok);
	bpf_program__set_autoload(skel->progs.uring_submit, ok && req);
	bpf_program__set_autoload(skel->progs.uring_submit_sqe, ok && sqe);
	bpf_program__set_autoload(skel->progs.uring_complete, ok && done == 4);
	bpf_program__set_autoload(skel->progs.uring_complete_res, ok && done == 8);
	if (!ok)
		add_fallback(cl, "no-io-uring");
}

/* The programs of mmap capture hang on tracepoints younger than the rest
 * (mm_filemap_fault and mm_filemap_map_pages came with Linux 6.11,
 * writeback_dirty_folio with 5.18; page_fault_* are x86's), io_uring's
 * on tracepoints whose form changed (probe_uring()): each group is loaded only
 * where the kernel's BTF has all its tracepoints, so an older kernel
 * captures without those records rather than not at all. The helpers and
 * kfuncs the programs take where they exist are probed too; cl says what
 * is missing. */
static void probe_optional(struct riot_bpf *skel, struct capture_load *cl)
{
	const struct {
		struct bpf_program *prog;
		unsigned q;
		const char *fallback;
	} opt[] = {
		{ skel->progs.mmap_fault_user, Q_FAULT_USER, "no-fault-address" },
		{ skel->progs.mmap_fault_kernel, Q_FAULT_KERNEL, "no-fault-address" },
		{ skel->progs.mmap_filemap_fault, Q_FILEMAP_FAULT, "no-mmap-fault" },
		{ skel->progs.mmap_map_pages, Q_MAP_PAGES, "no-fault-around" },
		{ skel->progs.mmap_dirty_folio, Q_DIRTY_FOLIO, "no-mmap-write" },
	};
	struct kbtf_query q[Q_COUNT];
	struct bpf_program *prog;

	memset(cl, 0, sizeof(*cl));
	memcpy(q, btf_questions, sizeof(q));
	/* unreadable BTF: every answer is "absent", and the load says why */
	kbtf_scan(VMLINUX_BTF, q, Q_COUNT);
	for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		bool ok = q[opt[i].q].found >= 0;

		bpf_program__set_autoload(opt[i].prog, ok);
		if (!ok && !strstr(cl->fallbacks, opt[i].fallback))
			add_fallback(cl, opt[i].fallback);
	}
	probe_uring(skel, q, cl);
	if (!q[Q_RDONLY_CAST].found)
		add_fallback(cl, "probe-read-files");
	if (!q[Q_FIND_VMA].found)
		add_fallback(cl, "no-find-vma");
	bpf_object__for_each_program(prog, skel->obj) {
		cl->total++;
		cl->loaded += bpf_program__autoload(prog);
	}
}

static bool ops_on(const struct capture_opts *o, unsigned first, unsigned last)
{
	for (unsigned s = first; s <= last && s < RIOT_SYS_COUNT; s++)
		if (o->sys_on[s / 64] >> (s % 64) & 1)
			return true;
	return false;
}

/* Programs whose records --ops leaves out are not loaded: the verifier's
 * work is most of capture's start-up. (They stay counted in cl->loaded as
 * the kernel allows them: --check and version load every one.) */
static void skip_unwanted(struct riot_bpf *skel, const struct capture_opts *o)
{
	bool rd = ops_on(o, RIOT_SYS_mmap_read, RIOT_SYS_mmap_read);
	bool wr = ops_on(o, RIOT_SYS_mmap_write, RIOT_SYS_mmap_write);
	struct bpf_program *uring[] = { skel->progs.uring_create,
		skel->progs.uring_submit, skel->progs.uring_submit_sqe,
		skel->progs.uring_complete, skel->progs.uring_complete_res };

	if (!rd && !wr) {
		bpf_program__set_autoload(skel->progs.mmap_fault_user, false);
		bpf_program__set_autoload(skel->progs.mmap_fault_kernel, false);
	}
	if (!rd) {
		bpf_program__set_autoload(skel->progs.mmap_filemap_fault, false);
		bpf_program__set_autoload(skel->progs.mmap_map_pages, false);
	}
	if (!wr)
		bpf_program__set_autoload(skel->progs.mmap_dirty_folio, false);
	if (!ops_on(o, RIOT_SYS_uring_read, RIOT_SYS_uring_other))
		for (size_t i = 0; i < sizeof(uring) / sizeof(uring[0]); i++)
			bpf_program__set_autoload(uring[i], false);
}

/* Loading, libbpf reads the kernel's BTF (5-6 MB) into fresh memory and
 * copies it into more: a page fault each 4 KiB, about 3,000, which on a
 * virtual machine cost more than reading it (perf: 13 % of start-up).
 * For the while, large blocks come from the heap, a region of
 * which is advised for huge pages: a fault each 2 MiB where the kernel
 * has them (transparent huge pages "madvise" or "always"), as before where
 * not. The two thresholds get their first values back after, but glibc's
 * mmap threshold no longer slides up as large blocks are freed (any
 * mallopt of it ends that); the memory goes back with the BTF. */
#define LOAD_HEAP (32u << 20)
static void load_heap_begin(void)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t lo, hi;
	void *p;

	mallopt(M_MMAP_THRESHOLD, LOAD_HEAP);
	mallopt(M_TOP_PAD, LOAD_HEAP);
	p = malloc(huge);	/* grows the heap by LOAD_HEAP past it */
	if (!p)
		return;
	lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	hi = (uintptr_t)sbrk(0) & ~(huge - 1);
	if ((uintptr_t)p < hi && lo < hi)	/* p from the heap, not a mapping */
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(p);
}

static void load_heap_end(void)
{
	mallopt(M_MMAP_THRESHOLD, 128u << 10);	/* glibc's defaults */
	mallopt(M_TOP_PAD, 128u << 10);
	malloc_trim(0);
}

/* Configures skel for o, picks its programs and fallbacks for this kernel
 * into cl, loads it; on failure says why in one line. */
static int load_skel(struct riot_bpf *skel, const struct capture_opts *o, int ncpus,
		     struct capture_load *cl, char *why, size_t len)
{
	int err;

	load_reset();
	set_rodata(skel, o);
	probe_optional(skel, cl);
	skip_unwanted(skel, o);
	err = bpf_map__set_max_entries(skel->maps.events, o->ring_bytes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.batches, ncpus);
	/* An LRU map is made whole at creation, each entry put in lists:
	 * about 5 ms of start-up for 65,536. Without a --path the kernel
	 * filters on, the map of files outside it is never used. */
	if (!err && !skel->rodata->path_prefix_len)
		err = bpf_map__set_max_entries(skel->maps.outside, 1);
	/* nor, without io_uring's completions, its registered files' */
	if (!err && !bpf_program__autoload(skel->progs.uring_complete) &&
	    !bpf_program__autoload(skel->progs.uring_complete_res))
		err = bpf_map__set_max_entries(skel->maps.async_fixed, 1);
	if (!err) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		load_heap_begin();
		err = riot_bpf__load(skel);
		load_heap_end();
		clock_gettime(CLOCK_MONOTONIC, &b);
		cl->load_s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	}
	if (err)
		load_failure(why, len, err);
	return err;
}

/* The calibration calls through the attached programs, on this thread
 * traced for the while (calib.c). */
static void calib_measure(struct tracer *t, struct probe_calib *pc)
{
	static uint32_t durs[RIOT_CALIB_CALLS];

	tracer_calib_begin(t);
	calib_calls(true);
	tracer_calib_end(t, durs, RIOT_CALIB_CALLS);
	tracer_calib_begin(t);
	calib_calls(false);
	calib_traced(pc, durs, tracer_calib_end(t, durs, RIOT_CALIB_CALLS));
}

/* The batches map, read-only, so tracer_batched() reads each CPU's count
 * without a syscall; without it (a kernel that cannot map arrays) capture
 * takes every batch to hold events. */
static void map_batches(struct tracer *t)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t stride = (bpf_map__value_size(t->skel->maps.batches) + 7) & ~(size_t)7;
	size_t len = stride * (size_t)t->ncpus;
	void *p;

	if (page <= 0)
		return;
	len = (len + (size_t)page - 1) & ~((size_t)page - 1);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(t->skel->maps.batches), 0);
	if (p == MAP_FAILED)
		return;
	t->batches = p;
	t->batches_len = len;
	t->batch_stride = stride;
}

static const struct batch_view *batch_at(const struct tracer *t, int cpu)
{
	return (const void *)(t->batches + (size_t)cpu * t->batch_stride);
}

/* The ring buffer as the kernel lays it out for its reader: the
 * consumer's page at offset 0 (the reader writes it), then the producer's
 * page and the data, mapped twice. */
static int map_ring(struct tracer *t, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = bpf_map__fd(t->skel->maps.events);
	void *c, *p;

	if (page <= 0)
		return -EINVAL;
	c = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	t->ring_map_len = (size_t)page + 2 * size;
	p = mmap(NULL, t->ring_map_len, PROT_READ, MAP_SHARED, fd, page);
	if (p == MAP_FAILED) {
		int err = -errno;

		munmap(c, (size_t)page);
		return err;
	}
	t->cons_pos = c;
	t->prod_pos = p;
	/* Polled through epoll, as libbpf does: epoll reports the ring
	 * ready when the programs wake it (as it fills), whereas the map's
	 * own poll says ready whenever a record waits, which would end
	 * every wait at once on a busy host. */
	struct epoll_event ev = { .events = EPOLLIN };
	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epoll_fd < 0 || epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	t->ring_data = (const uint8_t *)p + page;
	t->ring_size = size;
	t->cons = t->released = __atomic_load_n(t->cons_pos, __ATOMIC_ACQUIRE);
	/* The programs wake riot once a sixteenth of the ring waits
	 * (set_rodata()); what riot holds lent counts as waiting, so a
	 * quarter lets a wake-up's worth be logged in place with room to
	 * spare, and leaves the programs three quarters in a backlog. */
	t->lend_max = size / 4;
	return 0;
}

void tracer_release(struct tracer *t)
{
	if (t->released != t->cons) {
		__atomic_store_n(t->cons_pos, t->cons, __ATOMIC_RELEASE);
		t->released = t->cons;
	}
}

/* Hands every record written to on_record, in the ring's order, up to one
 * still being written; lent, so most of them are logged from where they
 * are. What was read is handed back to the programs by tracer_release(),
 * and here, once it is more than lend_max bytes, after keep() copied what
 * was not logged yet: a backlog leaves the programs the room they need.
 * Returns the records read, or the callbacks' -errno. */
static int ring_read(struct tracer *t)
{
	unsigned long prod = __atomic_load_n(t->prod_pos, __ATOMIC_ACQUIRE);
	int n = 0, err;

	for (;;) {
		if (t->cons >= prod) {
			prod = __atomic_load_n(t->prod_pos, __ATOMIC_ACQUIRE);
			if (t->cons >= prod)
				break;
		}
		const uint32_t *hdr = (const void *)(t->ring_data + (t->cons & (t->ring_size - 1)));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		size_t size = len & ~BPF_RINGBUF_DISCARD_BIT;

		t->cons += (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			n++;
			if ((err = on_record(t, (const uint8_t *)hdr + BPF_RINGBUF_HDR_SZ, size, true)))
				return err;
		}
		if (t->cons - t->released >= t->lend_max) {
			if ((err = t->keep(t->ctx)))
				return err;
			tracer_release(t);
		}
	}
	return n;
}

bool tracer_batched(const struct tracer *t)
{
	if (!t->batches)
		return true;
	for (int cpu = 0; cpu < t->ncpus; cpu++)
		if (__atomic_load_n(&batch_at(t, cpu)->count, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* Whether riot can tell a CPU's progress from its batch as mapped, without
 * visiting it. The programs take an event's time after they hold the
 * batch (busy) or count the event in direct, and let go of both once the
 * event is in the batch or the ring (bpf/riot.bpf.c, batch_flush()). So a
 * batch found empty, held by no program and with no record in flight, at
 * a time taken before it was looked at, means that every event of that CPU
 * timed before then is in the ring already, as long as what the CPU stored
 * is seen in the order it stored it. x86's memory order guarantees that;
 * elsewhere the programs' plain stores do not, and riot visits. */
#if defined(__x86_64__) || defined(__i386__)
#define IDLE_SAMPLE 1
#else
#define IDLE_SAMPLE 0
#endif

/* Whether riot can tell idle CPUs from their batches here. */
static bool idle_readable(const struct tracer *t)
{
	return IDLE_SAMPLE && t->batches;
}

static bool batch_idle(const struct batch_view *b)
{
	return !__atomic_load_n(&b->busy, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&b->direct, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
}

/* Marks the CPUs whose batch is idle (batch_idle()) and returns the boot
 * time taken before looking, or 0 when riot cannot tell. The ring is to
 * be read after: what those CPUs timed before it is in the ring below the
 * producer's position, read last. */
static uint64_t idle_sample(struct tracer *t)
{
	uint64_t at;

	if (!idle_readable(t))
		return 0;
	at = riot_now_ns(CLOCK_BOOTTIME);
#if IDLE_SAMPLE
	/* the batches are read after the clock: no load runs ahead of it */
	__asm__ __volatile__("lfence" ::: "memory");
#endif
	for (int cpu = 0; cpu < t->ncpus; cpu++)
		t->idle[cpu] = batch_idle(batch_at(t, cpu));
	t->prod_at = __atomic_load_n(t->prod_pos, __ATOMIC_ACQUIRE);
	return at;
}

/* After the ring was read: the idle CPUs' progress is `at`, once every
 * record reserved before idle_sample() looked has been read (the reader
 * stops early at a record still being written). */
static void idle_progress(struct tracer *t, uint64_t at)
{
	if (!at || t->cons < t->prod_at)
		return;
	for (int cpu = 0; cpu < t->ncpus; cpu++)
		if (t->idle[cpu] && t->upto[cpu] < at)
			t->upto[cpu] = at;
}

struct tracer *tracer_start(const struct capture_opts *o, pid_t child,
			    tracer_event_fn fn, tracer_keep_fn keep, void *ctx,
			    struct probe_calib *pc, char *why, size_t len)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err = -ENOMEM;

	libbpf_verbose = getenv("RIOT_BPF_DEBUG") != NULL;
	libbpf_set_print(libbpf_print);
	if (!t) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	t->cgroup_fd = -1;
	t->epoll_fd = -1;
	t->fn = fn;
	t->keep = keep;
	t->ctx = ctx;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		snprintf(why, len, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	t->seen = calloc(t->ncpus, sizeof(*t->seen));
	t->now = calloc(t->ncpus, sizeof(*t->now));
	t->upto = calloc(t->ncpus, sizeof(*t->upto));
	t->idle = calloc(t->ncpus, sizeof(*t->idle));
	if (!t->seen || !t->now || !t->upto || !t->idle) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	t->skel = riot_bpf__open();
	if (!t->skel) {
		err = -errno;
		snprintf(why, len, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	t->batch_size = bpf_map__value_size(t->skel->maps.batches);
	t->batch = malloc(t->batch_size);
	if (!t->batch) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	err = load_skel(t->skel, o, t->ncpus, &t->load, why, len);
	if (err)
		goto fail;
	err = set_targets(t, o, child, why, len);
	if (err)
		goto fail;
	map_batches(t);
	err = map_ring(t, bpf_map__max_entries(t->skel->maps.events));
	if (err) {
		snprintf(why, len, "cannot map the ring buffer: %s", strerror(-err));
		goto fail;
	}
	/* the calls untraced and traced a moment apart: the machine's load
	 * the same for both */
	calib_untraced(pc);
	err = riot_bpf__attach(t->skel);
	if (err) {
		snprintf(why, len, "cannot attach to the tracepoints: %s%s%s",
			 strerror(-err), libbpf_last[0] ? " — " : "", libbpf_last);
		goto fail;
	}
	calib_measure(t, pc);
	return t;
fail:
	tracer_destroy(t);
	errno = -err;
	return NULL;
}

const struct capture_load *tracer_load(const struct tracer *t)
{
	return &t->load;
}

int capture_check_load(struct capture_load *cl, char *why, size_t len)
{
	struct capture_opts o = { .mode = RIOT_TARGET_PIDS, .ring_bytes = 1 << 20 };
	struct riot_bpf *skel;
	int err, ncpus;

	memset(cl, 0, sizeof(*cl));
	err = tracer_check(why, len);
	if (err)
		return err;
	libbpf_verbose = getenv("RIOT_BPF_DEBUG") != NULL;
	libbpf_set_print(libbpf_print);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		snprintf(why, len, "cannot count CPUs");
		return ncpus ? ncpus : -EINVAL;
	}
	memset(o.sys_on, 0xff, sizeof(o.sys_on));
	skel = riot_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, len, "cannot open the BPF object: %s", strerror(errno));
		return err;
	}
	err = load_skel(skel, &o, ncpus, cl, why, len);
	riot_bpf__destroy(skel);
	return err;
}

int tracer_poll(struct tracer *t, int timeout_ms, int *wake_fds, unsigned nwake,
		unsigned *ready)
{
	struct pollfd p[1 + TRACER_WAKE_MAX] = {
		{ .fd = t->epoll_fd, .events = POLLIN },
	};

	if (nwake > TRACER_WAKE_MAX)
		nwake = TRACER_WAKE_MAX;
	for (unsigned i = 0; i < nwake; i++)
		p[1 + i] = (struct pollfd){ .fd = wake_fds[i], .events = POLLIN };
	/* No wakeup is sent for most records: take what is there once the
	 * wait ends, whatever ended it. */
	if (poll(p, 1 + nwake, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	/* a wake fd that can only ever be ready again would make every
	 * wait end at once */
	*ready = 0;
	for (unsigned i = 0; i < nwake; i++) {
		if (p[1 + i].revents & (POLLERR | POLLHUP | POLLNVAL))
			wake_fds[i] = -1;
		else if (p[1 + i].revents & POLLIN)
			*ready |= 1u << i;
	}
	uint64_t at = idle_sample(t);
	int n = ring_read(t);

	if (n >= 0)
		idle_progress(t, at);
	return n;
}

void tracer_calib_begin(struct tracer *t)
{
	t->skel->bss->calib_n = 0;
	__atomic_store_n(&t->skel->bss->calib_tid, (uint32_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
}

unsigned tracer_calib_end(struct tracer *t, uint32_t *durs, unsigned max)
{
	unsigned n;

	__atomic_store_n(&t->skel->bss->calib_tid, 0, __ATOMIC_SEQ_CST);
	n = t->skel->bss->calib_n;
	if (n > max)
		n = max;
	memcpy(durs, t->skel->bss->calib_dur, n * sizeof(*durs));
	return n;
}

/* Whether a kick must visit cpu: the batches cannot be read, or riot
 * cannot tell an idle CPU's progress from them (IDLE_SAMPLE), or the
 * CPU's batch is not idle and has not been handed over since the kick
 * before (generation gen): its events would wait for the next event
 * there, which may never come. A CPU that runs traced events hands its
 * batch over at the first one after the kick by itself. */
static bool must_visit(const struct tracer *t, int cpu, uint64_t gen)
{
	const struct batch_view *b;

	if (!idle_readable(t))
		return true;
	b = batch_at(t, cpu);
	return !batch_idle(b) && __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != gen;
}

void tracer_kick(struct tracer *t)
{
	uint64_t gen = __atomic_load_n(&t->skel->bss->flush_gen, __ATOMIC_ACQUIRE);
	cpu_set_t all, one, visit;
	bool moved = false;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		__atomic_add_fetch(&t->skel->bss->flush_gen, 1, __ATOMIC_RELEASE);
		CPU_ZERO(&t->reach);
		return;
	}
	t->reach = all;
	CPU_ZERO(&visit);
	for (int cpu = 0; cpu < t->ncpus && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &all) && must_visit(t, cpu, gen))
			CPU_SET(cpu, &visit);
	__atomic_add_fetch(&t->skel->bss->flush_gen, 1, __ATOMIC_RELEASE);
	/* A syscall of riot on each CPU visited makes that CPU hand over
	 * its batch and its progress: a move of riot's thread there and
	 * back, each a switch on both CPUs, the dearest thing a drain does. */
	for (int cpu = 0; cpu < t->ncpus && cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &visit))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			syscall(SYS_getppid);
		moved = true;
	}
	if (moved)
		sched_setaffinity(0, sizeof(all), &all);
}

uint64_t tracer_progress(const struct tracer *t, uint64_t fallback)
{
	uint64_t w = UINT64_MAX;

	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		uint64_t p = t->upto[cpu];

		/* A CPU riot cannot visit hands over its progress only with
		 * its own events; meanwhile the fixed delay stands in. */
		if ((cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &t->reach)) &&
		    p < fallback)
			p = fallback;
		if (p < w)
			w = p;
	}
	return w;
}

/* What the batches still hold once no program runs. */
static int drain_batches(struct tracer *t)
{
	const struct batch_view *b = t->batch;
	int err;

	for (__u32 cpu = 0; cpu < (__u32)t->ncpus; cpu++) {
		if (bpf_map__lookup_elem(t->skel->maps.batches, &cpu, sizeof(cpu),
					 t->batch, t->batch_size, 0))
			return -errno;
		if (b->len <= RIOT_BATCH_HDR || b->len > RIOT_BATCH_BYTES)
			continue;
		err = t->fn(t->ctx, b->buf + RIOT_BATCH_HDR,
			    b->len - RIOT_BATCH_HDR, false);
		if (err)
			return err;
	}
	return 0;
}

void tracer_detach(struct tracer *t)
{
	if (!t->detached) {
		riot_bpf__detach(t->skel);
		t->detached = true;
	}
}

int tracer_stop(struct tracer *t)
{
	int n;

	tracer_detach(t);
	do
		n = ring_read(t);
	while (n > 0);
	return n < 0 ? n : drain_batches(t);
}

uint64_t tracer_unfollowed(struct tracer *t)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < t->ncpus; cpu++)
		n += t->now[cpu].unfollowed;
	return n;
}

uint64_t tracer_filtered(struct tracer *t)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < t->ncpus; cpu++)
		n += t->now[cpu].filtered;
	return n;
}

int tracer_losses(struct tracer *t, tracer_loss_fn fn, void *ctx)
{
	__u32 zero = 0;
	int err;

	if (bpf_map__lookup_elem(t->skel->maps.losses, &zero, sizeof(zero),
				 t->now, sizeof(*t->now) * t->ncpus, 0))
		return -errno;
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		uint64_t ring = t->now[cpu].ring - t->seen[cpu].ring;
		uint64_t slot = t->now[cpu].slot - t->seen[cpu].slot;

		if (!ring && !slot)
			continue;
		err = fn(ctx, cpu, ring, slot, t->now[cpu].t_last);
		if (err)
			return err;
		t->seen[cpu] = t->now[cpu];
	}
	return 0;
}

bool tracer_pids_alive(struct tracer *t)
{
	const struct bpf_map *m = t->skel->maps.traced;
	__u32 key, next;
	bool alive = false, first = true;

	/* The kernel forgets a process when its last task exits; one that
	 * died before it was added is forgotten here. */
	while (bpf_map__get_next_key(m, first ? NULL : &key, &next,
				     sizeof(next)) == 0) {
		first = false;
		key = next;
		if (kill((pid_t)key, 0) && errno == ESRCH)
			bpf_map__delete_elem(m, &key, sizeof(key), 0);
		else
			alive = true;
	}
	return alive;
}

int tracer_set_off(struct tracer *t, const uint64_t *off)
{
	if (!t->skel || !t->skel->bss)
		return -ESRCH;
	/* the BPF side's words cover RIOT_SYS_SLOTS; off, RIOT_SYS_COUNT */
	for (unsigned i = 0; i < sizeof(t->skel->bss->sys_off) / sizeof(t->skel->bss->sys_off[0]); i++)
		__atomic_store_n(&t->skel->bss->sys_off[i],
				 i < (RIOT_SYS_COUNT + 63) / 64 ? off[i] : 0, __ATOMIC_RELAXED);
	return 0;
}

void tracer_destroy(struct tracer *t)
{
	if (!t)
		return;
	if (t->batches)
		munmap((void *)t->batches, t->batches_len);
	if (t->cons_pos) {
		munmap(t->cons_pos, (size_t)sysconf(_SC_PAGESIZE));
		munmap((void *)t->prod_pos, t->ring_map_len);
	}
	riot_bpf__destroy(t->skel);
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	if (t->epoll_fd >= 0)
		close(t->epoll_fd);
	free(t->seen);
	free(t->now);
	free(t->upto);
	free(t->idle);
	free(t->batch);
	free(t);
}
