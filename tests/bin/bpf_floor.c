/* bpf_floor: attaches empty BPF programs to the tracepoints riot capture
 * uses (bpf/floor.bpf.c), runs a command, detaches: what the command pays
 * there is the floor of any tracer built on those hooks.
 *
 * usage: bpf_floor -- CMD [ARGS...]   exit status: CMD's, 1 on error
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.skel.h"

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	int status = 0, rc = 1;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: bpf_floor -- CMD [ARGS...]\n");
		return 2;
	}
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bpf_floor: cannot load: %s\n", strerror(errno));
		return 1;
	}
	if (floor_bpf__attach(skel)) {
		fprintf(stderr, "bpf_floor: cannot attach: %s\n", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		goto out;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	floor_bpf__destroy(skel);
	return rc;
}
