/* inspect/inspect.h: the commands that look at a log or at riot itself:
 * `riot info`, `riot dump`, `riot version`. They read logs through
 * formats/ and resolve them through model/, like every other reader. */
#ifndef RIOT_INSPECT_H
#define RIOT_INSPECT_H

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_version(int argc, char **argv);

extern const char cmd_info_help[];
extern const char cmd_dump_help[];
extern const char cmd_version_help[];

#endif
