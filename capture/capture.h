/* capture/capture.h: `riot capture`, recording file I/O with eBPF into a
 * .riot log (formats/log.h). */
#ifndef RIOT_CAPTURE_CAPTURE_H
#define RIOT_CAPTURE_CAPTURE_H

/* argv[0] is "capture". Returns the exit status: 0, 1 (runtime error),
 * 2 (usage), or with `-- CMD` the command's own status. */
int cmd_capture(int argc, char **argv);
/* Full text of `riot capture --help`. */
extern const char cmd_capture_help[];

/* What loading capture's BPF programs on the running kernel gives. */
struct capture_load {
	unsigned loaded, total;	/* programs loaded, programs riot has */
	double load_s;		/* wall seconds the kernel took to load them */
	char fallbacks[256];	/* comma-separated fallback names, "" none */
};

/* Loads the real programs (every syscall on, as a capture with no --ops)
 * and unloads them: 0 with cl filled when capture will work here; else
 * -errno with one line in why saying why not (a missing privilege or
 * feature, or the verifier's verdict on a refused program, with the
 * kernel's release). cl->fallbacks is filled in both cases. */
int capture_check_load(struct capture_load *cl, char *why, size_t len);
/* What a fallback name (struct capture_load, the log's header) means, in
 * a line; NULL for a name this riot does not know. */
const char *capture_fallback_effect(const char *name);

#endif
