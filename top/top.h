/* top/top.h: `riot top`, file I/O watched live on the terminal. */
#ifndef RIOT_TOP_TOP_H
#define RIOT_TOP_TOP_H

/* argv[0] is "top". Returns the exit status: 0, 1 (runtime error), 2
 * (usage). */
int cmd_top(int argc, char **argv);
/* Full text of `riot top --help`. */
extern const char cmd_top_help[];

#endif
