/* bpf_floor: attaches the floor programs of bpf/floor.bpf.c to the
 * tracepoints riot capture uses, runs a command, detaches: what the command
 * pays there is the floor of any tracer built on those hooks.
 *
 * usage: bpf_floor [--clock] -- CMD [ARGS...]
 *   default  empty programs: the hooks alone
 *   --clock  the clock read at entry and at exit, the entry time kept per
 *            task: the floor of any tracer that records entry times and
 *            durations
 * exit status: CMD's, 1 on error
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.skel.h"

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	int status = 0, rc = 1, arg = 1;
	bool clock = false;
	pid_t pid;

	if (arg < argc && strcmp(argv[arg], "--clock") == 0) {
		clock = true;
		arg++;
	}
	if (arg + 1 >= argc || strcmp(argv[arg], "--") != 0) {
		fprintf(stderr, "usage: bpf_floor [--clock] -- CMD [ARGS...]\n");
		return 2;
	}
	arg++;
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "bpf_floor: cannot open: %s\n", strerror(errno));
		return 1;
	}
	bpf_program__set_autoload(skel->progs.floor_enter, !clock);
	bpf_program__set_autoload(skel->progs.floor_exit, !clock);
	bpf_program__set_autoload(skel->progs.clock_enter, clock);
	bpf_program__set_autoload(skel->progs.clock_exit, clock);
	if (floor_bpf__load(skel)) {
		fprintf(stderr, "bpf_floor: cannot load: %s\n", strerror(errno));
		goto out;
	}
	if (floor_bpf__attach(skel)) {
		fprintf(stderr, "bpf_floor: cannot attach: %s\n", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[arg], argv + arg);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		goto out;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	floor_bpf__destroy(skel);
	return rc;
}
