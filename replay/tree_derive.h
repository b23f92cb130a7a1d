/* replay/tree_derive.h: private to replay/tree_*.c. The initial tree derived
 * from a log by the rules in replay/init.h, as sorted lists. */
#ifndef RIOT_REPLAY_TREE_DERIVE_H
#define RIOT_REPLAY_TREE_DERIVE_H

#include "replay/init.h"

struct tree_table;

struct init_tree {
	/* directories, then symlinks, then files; each group sorted by
	 * path (strcmp), so a directory comes after its parent */
	struct init_entry *ents;
	size_t n, ndirs, nsymlinks, nfiles;
	/* the top-most paths the workload expected absent (created by it or
	 * failing with ENOENT first): a re-run removes what is there */
	const char **absent;
	size_t nabsent;
	uint64_t bytes;
	uint64_t skipped[INIT_SKIP_COUNT];
	uint64_t max_open;	/* the most file objects open at once */
	struct tree_table *table;	/* owns every string above */
};

/* Streams the log once and fills t. 0 or -errno with a reason in err. */
int init_tree_build(const struct riot_logs *logs, struct init_tree *t, char *err, size_t errlen);
void init_tree_free(struct init_tree *t);
/* The pass of init_tree_build() that only follows the files open (the
 * model alone): the most open at once in *max_open. 0 or -errno with a
 * reason in err. */
int init_tree_max_open(const struct riot_logs *logs, uint64_t *max_open, char *err,
		       size_t errlen);

/* A file's fill seed: a hash of its captured path mixed with seed. */
uint64_t init_path_seed(const char *path, uint64_t seed);

#endif
