/* top/term.c: the terminal riot top draws on (top_int.h): ncurses set up
 * and put back, with a terminal description of its own for a host whose
 * terminfo does not know $TERM. */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "terminfo_fallback.h"
#include "top/top_int.h"

#define FALLBACK_TERM "xterm-256color"

static char fallback_dir[64];

/* Writes the embedded xterm-256color entry into a new directory laid out
 * as terminfo is (DIR/x/xterm-256color): 0 or -errno. */
static int write_fallback(void)
{
	char sub[96], file[128];
	int fd, err = 0;

	snprintf(fallback_dir, sizeof(fallback_dir), "%s/riot-terminfo-XXXXXX",
		 getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' &&
		 strlen(getenv("TMPDIR")) < 32 ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(fallback_dir))
		return -errno;
	snprintf(sub, sizeof(sub), "%s/x", fallback_dir);
	snprintf(file, sizeof(file), "%s/%s", sub, FALLBACK_TERM);
	if (mkdir(sub, 0700))
		return -errno;
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, terminfo_fallback, sizeof(terminfo_fallback)) !=
	    (ssize_t)sizeof(terminfo_fallback))
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

static void remove_fallback(void)
{
	char path[128];

	if (!fallback_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/x/%s", fallback_dir, FALLBACK_TERM);
	unlink(path);
	snprintf(path, sizeof(path), "%s/x", fallback_dir);
	rmdir(path);
	rmdir(fallback_dir);
	fallback_dir[0] = 0;
}

int top_term_open(struct top_term *t, char *why, size_t len)
{
	const char *term = getenv("TERM");
	int err = 0;

	memset(t, 0, sizeof(*t));
	setlocale(LC_ALL, "");
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* A terminal this host's terminfo does not describe (or none named)
	 * gets the embedded one: every terminal riot meets speaks xterm's
	 * cursor movement and colours. */
	if (term && term[0] && setupterm(term, STDOUT_FILENO, &err) == OK) {
		del_curterm(cur_term);	/* newterm() makes its own */
	} else {
		int rc = write_fallback();

		if (rc) {
			snprintf(why, len, "no terminal description for TERM=%s, and the built-in "
				 "one cannot be written: %s", term ? term : "", strerror(-rc));
			remove_fallback();
			return rc;
		}
		setenv("TERMINFO", fallback_dir, 1);
		term = FALLBACK_TERM;
		t->fallback = true;
	}
	t->screen = newterm(term, stdout, stdin);
	remove_fallback();	/* read by now */
	if (!t->screen) {
		snprintf(why, len, "cannot set up the terminal (TERM=%s)", term);
		return -ENOTTY;
	}
	set_term(t->screen);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	t->colour = has_colors() && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
	if (t->colour) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_CYAN, -1);	/* headings */
		init_pair(2, COLOR_GREEN, -1);	/* bars */
		init_pair(3, COLOR_RED, -1);	/* errors */
		init_pair(4, COLOR_YELLOW, -1);	/* search matches */
		init_pair(5, COLOR_BLACK, COLOR_CYAN);	/* flame frames */
		init_pair(6, COLOR_BLACK, COLOR_YELLOW);
	}
	t->open = true;
	return 0;
}

void top_term_close(struct top_term *t)
{
	if (!t->open)
		return;
	curs_set(1);
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
	t->open = false;
	fflush(stdout);
}
