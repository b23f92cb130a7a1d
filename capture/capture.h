/* capture/capture.h: `riot capture`, recording file I/O with eBPF into a
 * .riot log (formats/log.h). */
#ifndef RIOT_CAPTURE_CAPTURE_H
#define RIOT_CAPTURE_CAPTURE_H

/* argv[0] is "capture". Returns the exit status: 0, 1 (runtime error),
 * 2 (usage), or with `-- CMD` the command's own status. */
int cmd_capture(int argc, char **argv);
/* Full text of `riot capture --help`. */
extern const char cmd_capture_help[];

#endif
