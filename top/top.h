/* top/top.h: `riot top`, file I/O watched live on the terminal. */
#ifndef RIOT_TOP_TOP_H
#define RIOT_TOP_TOP_H

/* argv[0] is "top". Returns the exit status: 0, 1 (runtime error), 2
 * (usage). */
int cmd_top(int argc, char **argv);
/* Full text of `riot top --help`. */
extern const char cmd_top_help[];

/* A view fed by another command (riot replay --top), not by a capture:
 * the same tabs over the operations it hands in. One thread opens, feeds,
 * steps and closes it. */
struct top_fed;
struct top_fed_op {
	uint64_t t_ns;		/* when it was issued, ns on any clock */
	uint64_t dur_ns;	/* issue to completion */
	int64_t ret;		/* its result, -errno */
	int64_t gap_ns;		/* what the latency tab shows beside the
				 * durations (replay: the issue delay); < 0:
				 * none */
	uint32_t pid, tid;
	uint16_t sys;		/* RIOT_SYS_* */
	const char *path;	/* "" for none */
};
/* title: the status line's; gap_name: what gap_ns is ("issue delay").
 * NULL with why filled when the terminal cannot be set up. */
struct top_fed *top_fed_open(const char *title, const char *gap_name, char *why, size_t len);
/* A process's name, for the tables; a child named as its parent. */
void top_fed_name(struct top_fed *f, uint32_t pid, const char *comm);
void top_fed_fork(struct top_fed *f, uint32_t parent, uint32_t child);
/* One operation. 0 or -ENOMEM. */
int top_fed_add(struct top_fed *f, const struct top_fed_op *op);
/* Takes keys for up to timeout_ms and draws when due; now_ns: the clock
 * of t_ns. 1 once the user quit (q), else 0. */
int top_fed_step(struct top_fed *f, uint64_t now_ns, uint64_t lost, int timeout_ms);
/* The run ended (note: why, shown until q). Returns once q is pressed,
 * or *stop is set (a signal). */
void top_fed_end(struct top_fed *f, const char *note, const volatile int *stop);
/* Puts the terminal back. NULL: nothing. */
void top_fed_close(struct top_fed *f);

#endif
