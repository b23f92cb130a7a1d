/* convert/import_strace_lex.h: the strace text lexer, private to the importer
 * (convert/import_strace*.c) and its unit test.
 *
 * Everything works on byte slices of the line being imported; nothing is
 * copied and nothing allocates. Malformed text makes a function return
 * -EINVAL, never read outside its slice.
 */
#ifndef RIOT_CONVERT_IMPORT_STRACE_LEX_H
#define RIOT_CONVERT_IMPORT_STRACE_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sv {
	const char *p;
	size_t n;
};

enum strace_kind {
	STRACE_LINE_CALL,	/* name(args) = ret ... */
	STRACE_LINE_UNFINISHED,	/* name(args <unfinished ...> */
	STRACE_LINE_RESUMED,	/* <... name resumed>rest */
	STRACE_LINE_SIGNAL,	/* --- SIG... --- */
	STRACE_LINE_EXIT,	/* +++ exited with N +++, +++ killed by SIG +++ */
	STRACE_LINE_MESSAGE,	/* strace's own notes */
	STRACE_LINE_EMPTY,
	STRACE_LINE_OTHER,
};

/* A line split into its prefix and body. */
struct strace_line {
	enum strace_kind kind;
	bool has_tid, has_t;
	uint32_t tid;		/* "[pid N]" or "N " prefix */
	uint64_t t;		/* -ttt timestamp, ns */
	struct sv name;		/* CALL, UNFINISHED, RESUMED: syscall name */
	struct sv rest;		/* CALL: after "name("; UNFINISHED: the args
				 * before " <unfinished ...>"; RESUMED: after
				 * "resumed>" */
	int32_t status;		/* EXIT: status as wait(2) reports it */
};

int strace_split_line(const char *s, size_t n, struct strace_line *out);

/* The part of a finished call after "name(": "args) = ret [ERR (..)] <d>". */
struct strace_result {
	struct sv args;		/* between the parentheses */
	bool no_result;		/* "= ?" */
	bool restarted;		/* ERESTART*: interrupted, to be restarted */
	int64_t ret;		/* -errno on failure */
	struct sv ret_note;	/* the ret's fd annotation, if any */
	bool has_dur;
	uint64_t dur;		/* -T, ns */
};

int strace_split_result(struct sv s, struct strace_result *out);

/* Next top-level argument of an argument list (commas inside quotes,
 * brackets, braces, parentheses, annotations and comments do not split).
 * 1 with *arg set (trimmed), 0 at the end. */
int strace_next_arg(struct sv *list, struct sv *arg);

/* An integer argument: decimal, 0x hex, 0 octal, negative, AT_FDCWD,
 * ~0U; an fd annotation "3</path>" is returned in *note (may be NULL). */
int strace_int(struct sv s, int64_t *v, struct sv *note);
/* Symbolic flags "O_RDONLY|O_CLOEXEC|0x80000" or a number. Unknown names
 * add nothing and make it return -ENOENT (*v holds the known part). */
int strace_flags(struct sv s, uint64_t *v);
/* A quoted C string into out (NUL-terminated, cut at outlen - 1 bytes:
 * *trunc). A trailing "..." (strace cut it) also sets *trunc. */
int strace_string(struct sv s, char *out, size_t outlen, bool *trunc);
/* "[N]" or "[N => M]": N. */
int strace_offp(struct sv s, uint64_t *v);
/* The value of "key=" at the top level of a "{...}" struct (or of an
 * argument list of named values, like clone's). */
bool strace_field(struct sv s, const char *key, struct sv *val);
/* An fd annotation's main text: "/path" of "/path<char 1:3>", without a
 * " (deleted)" suffix; *ftype gets S_IFCHR/S_IFBLK from a device note. */
int strace_note_path(struct sv note, char *out, size_t outlen, bool *trunc,
		     uint32_t *ftype);

/* errno number of "ENOENT", or 0. */
int strace_errno(struct sv name);

#endif
