/* replay/replay.h: the replay folder's commands, for riot.c's table. */
#ifndef RIOT_REPLAY_REPLAY_H
#define RIOT_REPLAY_REPLAY_H

#include <stdio.h>

/* `riot init LOG --root DIR`: creates the tree the workload expected. */
int cmd_init(int argc, char **argv);
extern const char cmd_init_help[];

/* `riot replay LOG --root DIR`: replays the log's file I/O beneath DIR. */
int cmd_replay(int argc, char **argv);
extern const char cmd_replay_help[];
/* The engines and what each measures, after cmd_replay_help. */
void cmd_replay_help_more(FILE *out);

#endif
