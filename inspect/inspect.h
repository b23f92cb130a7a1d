/* inspect/inspect.h: the commands that look at a log or at riot itself:
 * `riot info`, `riot dump`, `riot version`. They read logs through
 * formats/ and resolve them through model/, like every other reader. */
#ifndef RIOT_INSPECT_H
#define RIOT_INSPECT_H

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
/* What `riot version` says of capture on the running kernel. */
struct version_capture {
	int works;		/* 1 yes, 0 no, -EPERM: cannot tell unprivileged */
	unsigned loaded, total;	/* programs loaded, programs riot has */
	char fallbacks[256];	/* comma-separated names, "" none */
	char why[512];		/* when it does not work: why */
};
/* probe loads capture's programs and fills vc: riot.c hands it over from
 * capture/, a layer beside this one. */
int cmd_version(int argc, char **argv, void (*probe)(struct version_capture *vc));

extern const char cmd_info_help[];
extern const char cmd_dump_help[];
extern const char cmd_version_help[];

#endif
