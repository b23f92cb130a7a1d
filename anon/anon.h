/* anon/anon.h: `riot anonymize`: a log rewritten so that it can leave the
 * host without the names it holds.
 *
 * Every path component becomes a keyed hash of itself (HMAC-SHA256 under
 * the key, lib/sha256.h), cut to ANON_TOKEN_LEN characters of base32
 * ([a-z2-7]), so the same component gives the same name under one key
 * wherever it appears, and the tree's shape and the sharing between files
 * survive. '/', '.' and '..' stay as they are; so do the components whose
 * absolute position is kept (below). Numbers (sizes, offsets, times,
 * results, fds, flags, modes, ids) are not touched.
 *
 * A component is kept in the clear when its absolute position (the lexical
 * path up to and including it, after '.' and '..', from the base a
 * relative path starts at) is
 *   - a kept prefix (--keep), lies beneath one, or is an ancestor of one
 *     (so "/usr" keeps "usr" at the top of every path);
 *   - /proc, /sys or /dev (replay treats what lies beneath them apart), or
 *     beneath /proc a name that says which fd a path names: digits, "self",
 *     "thread-self", "task", "fd".
 * A relative path whose base is unknown has every component hashed.
 *
 * Positions are where a path leads, through the symlinks the log shows
 * (anon_add_link(): a readlink's result, a symlink's target) and '..'
 * taken from where a link led, as the kernel walks it: with /usr/share/docs
 * -> /home/alice/private, "/usr/share/docs/x" names x at
 * /home/alice/private/x, hashed under --keep /usr, and "docs/../y" y at
 * /home/alice/y. A name is so judged by the directory it lies in, not by
 * the way a path reached it: every path to one file gives it one name,
 * and the copy's tree has the original's shape. Past LINK_HOPS (40)
 * links in one path, the rest of it is hashed.
 *
 * Functions return 0 or -errno unless they say otherwise; where they take
 * err, a one-line reason is written there and nothing is printed.
 */
#ifndef RIOT_ANON_H
#define RIOT_ANON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/log.h"

#define ANON_TOKEN_LEN 16	/* base32 characters of a hashed component:
				 * 80 bits of the HMAC */
#define ANON_COMM_LEN 15	/* of a process name (a kernel comm's most) */
#define ANON_EXT_MAX 10		/* --keep-ext: longest extension kept */
#define ANON_KEY_MAX (1u << 20)	/* bytes of a key file read */

int cmd_anonymize(int argc, char **argv);
extern const char cmd_anonymize_help[];

struct anon_opts {
	const void *key;	/* the HMAC key, key_len > 0 bytes */
	size_t key_len;
	bool keep_ext;		/* "a.txt" -> "<token>.txt": an extension of
				 * 1..ANON_EXT_MAX ASCII letters and digits
				 * after the last '.' of a component that
				 * does not start with it */
	const char *const *keep;	/* absolute prefixes kept in the clear */
	unsigned nkeep;
};

/* ---- names ---- */

struct anon;

/* Whether prefix can be kept: absolute, and not "/" once normalised. 0 or
 * -EINVAL with the reason in err. */
int anon_check_keep(const char *prefix, char *err, size_t errlen);
/* NULL + errno on error (EINVAL: a --keep prefix anon_check_keep()
 * refuses, with the reason in err; ENOMEM). */
struct anon *anon_new(const struct anon_opts *o, char *err, size_t errlen);
void anon_free(struct anon *a);

enum {
	ANON_PATH_FD = 1u << 0,	/* a path the kernel gave for an fd: a last
				 * component's " (deleted)" stays */
};

/* A symlink at path (absolute, normalised: the resolver's) leading to
 * target (as recorded, relative to path's directory). The first one given
 * for a path counts: a log's links are all known before its paths are
 * rewritten (anon_log() reads it twice). 0 or -ENOMEM. */
int anon_add_link(struct anon *a, const char *path, const char *target);
/* Rewrites path s, as recorded, into out (cap >= 2 bytes, NUL-terminated):
 * separators, '.' and '..' as they are, each other component hashed or
 * kept (see above). base: the absolute directory a relative s starts from
 * (its cwd or dirfd), NULL when unknown; ignored for an absolute s.
 * Components that do not fit are left out (whole) and *cut is set.
 * Returns the length written. */
size_t anon_path(struct anon *a, const char *s, const char *base, unsigned flags,
		 char *out, size_t cap, bool *cut);
/* An xattr name (or a memfd name): "system." and "security." names, which
 * the kernel interprets, as they are; "user.X" and "trusted.X" keep their
 * namespace and X becomes as many characters of its hash (listxattr
 * returns the names' sizes); anything else is hashed whole, keeping its
 * length. */
size_t anon_xattr_name(struct anon *a, const char *name, char *out, size_t cap);
/* Whether a set value of xattr name stays (the kernel's names: system.,
 * security.); other values are dropped, and replay writes fill bytes of
 * the recorded size in their place. */
bool anon_xattr_value_kept(const char *name);
/* A process name: ANON_COMM_LEN characters of its hash ("" stays ""). */
size_t anon_comm(struct anon *a, const char *comm, char *out, size_t cap);

/* Components rewritten so far. */
struct anon_counts {
	uint64_t hashed;	/* components replaced by their hash */
	uint64_t clear;		/* components kept in the clear */
};
const struct anon_counts *anon_counts(const struct anon *a);

/* ---- logs ---- */

struct anon_stats {
	uint64_t records;	/* records written */
	uint64_t strings;	/* strings rewritten (paths, names, comms) */
	struct anon_counts comps;
	uint64_t xattr_values;	/* xattr values dropped */
	uint64_t device_notes;	/* device notes dropped (they name files) */
	uint64_t unknown;	/* records of types this riot does not know,
				 * left out */
	uint64_t cut;		/* strings cut to the log's limit */
	uint64_t long_paths;	/* paths of 4096 bytes or more once
				 * rewritten (shorter before) */
	bool complete;		/* the input had its end record; if not,
				 * neither has the output */
};

/* Streams log in (one log, or the segments of one capture read as one)
 * into a new log out (truncated), in bounded memory apart
 * from the resolver's (model/: it grows with the distinct paths, as for
 * every reader), so logs of any length pass. The header keeps the
 * kernel, architecture and clock; the host name becomes "anonymized", the
 * command line "riot anonymize" with the options that shaped the names,
 * the riot version this one's; the target and capture options are
 * dropped. On error out is removed. */
int anon_log(const struct riot_logs *in, const char *out, const struct anon_opts *o,
	     struct anon_stats *st, char *err, size_t errlen);

#endif
