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
"      --zstd-level N  compression level of the log blocks, 1 to 19 (default 1,\n"
"                      the least CPU; 3 makes logs 1-3 % smaller for about\n"
"                      15 % more of riot's CPU per event)\n"
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
	static struct capture_opt_bufs bufs;
	int rc;

	memset(&o, 0, sizeof(o));
	rc = capture_parse_args(argc, argv, &o, &bufs, CAPTURE_CMD_CAPTURE, cmd_capture_help);
	if (rc)
		return rc < 0 ? RIOT_EXIT_OK : rc;
	if (o.check)
		return check_kernel();
	return capture_session(&o, argc, argv, NULL);
}

