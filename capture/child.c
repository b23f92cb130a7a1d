/* capture/child.c: the command `-- CMD` starts, held before its exec until
 * the programs trace it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_int.h"
#include "lib/cli.h"

int capture_check_pids(const struct capture_opts *o)
{
	for (unsigned i = 0; i < o->npids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			riot_err("no process %d", o->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

/* CMD's file, searched in PATH here so the trace does not start with the
 * failed execs of execvp's search; NULL: leave it to execvp. */
static char *find_command(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;
	struct stat st;

	if (strchr(name, '/') || !path || !(copy = strdup(path)))
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *file;

		if (asprintf(&file, "%s/%s", *dir ? dir : ".", name) < 0)
			break;
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(file, X_OK) == 0)
			found = file;
		else
			free(file);
	}
	free(copy);
	return found;
}

/* A command under riot top: its output would write over the view. */
static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* Forks CMD stopped before exec until release_child(): it must be in the
 * traced set before its first syscall of interest. */
static pid_t spawn_child(char **cmd, bool detached, int *gate)
{
	char *file = find_command(cmd[0]);
	int fds[2];
	pid_t pid;
	char go;

	if (pipe2(fds, O_CLOEXEC)) {
		free(file);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		free(file);
		return err;
	}
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(127);	/* capture failed to start */
		if (detached)
			detach_stdio();
		if (file)
			execv(file, cmd);
		execvp(cmd[0], cmd);
		fprintf(stderr, "riot: capture: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[0]);
	free(file);
	*gate = fds[1];
	return pid;
}

/* go: exec CMD; !go: make it exit unrun. */
void child_release(int *gate, bool go)
{
	if (*gate < 0)
		return;
	if (go && write(*gate, "g", 1) != 1)
		go = false;
	close(*gate);
	*gate = -1;
}

int child_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return RIOT_EXIT_FAIL;
}

int child_start(struct capture_opts *o, bool detached, pid_t *child, int *gate)
{
	if (!o->cmd)
		return 0;
	*child = spawn_child(o->cmd, detached, gate);
	if (*child < 0) {
		riot_err("cannot start %s: %s", o->cmd[0], strerror(-*child));
		return -1;
	}
	return 0;
}

void child_reap(pid_t child, int *gate)
{
	child_release(gate, false);
	waitpid(child, NULL, 0);
}
