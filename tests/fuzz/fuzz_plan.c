/* libFuzzer target: log bytes through the model, the init plan and the
 * replay plan, as `riot replay --dry-run` takes them.
 *
 * Structure-aware: an input that starts with the log magic is a log (its
 * checksums recomputed, so mutations reach the records); any other input
 * is a program of records, a few bytes each, that the log writer turns into
 * a valid log, so every mutation is a different workload for the resolver
 * and the planners rather than a checksum failure: syscalls of every id,
 * a few processes, threads and fds, paths drawn from a small set of
 * hostile shapes (.., //, symlink-like names, long, control bytes) or
 * taken from the input, forks, execs, exits, the start state, drops. */
#include "formats/log.h"
#include "replay/init.h"
#include "replay/plan.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/fuzz/fuzz_dry.h"
#include "tests/fuzz/fuzz_log.h"

/* ---- the record program ---- */

struct prog {
	const uint8_t *p, *end;
	char text[2][600];
};

static uint8_t byte(struct prog *g)
{
	return g->p < g->end ? *g->p++ : 0;
}

static uint64_t num(struct prog *g)
{
	uint8_t b = byte(g);

	switch (b >> 6) {
	case 0: return b & 0x3f;
	case 1: return (uint64_t)(b & 0x3f) << 12 | byte(g) << 4;
	case 2: return (uint64_t)1 << (b & 0x3f);
	default: return UINT64_MAX - (b & 0x3f);
	}
}

static const char *const shapes[] = {
	"/w/a", "/w/b", "/w/d/f", "/w/d", "a", "../../etc/passwd", "/w/./x//y/",
	"/w/l", "/", "/proc/self/root/w/a", "/w/..", "d/../../..", ".", "/w/\x1b[2J",
	"/w/\xff", "/dev/null", "/w/p", "",
};

static const char *path(struct prog *g, unsigned k)
{
	uint8_t b = byte(g);
	size_t n, i;

	if (b < 200)
		return shapes[b % (sizeof(shapes) / sizeof(shapes[0]))];
	/* text from the input, or a long repeat */
	n = b >= 250 ? 100 + 40 * (b - 250) : byte(g) % 64;
	for (i = 0; i < n && i + 1 < sizeof(g->text[k]); i++) {
		uint8_t c = b >= 250 ? (uint8_t)"ab/"[i % 3] : byte(g);

		g->text[k][i] = (char)(c ? c : '/');
	}
	g->text[k][i] = 0;
	return g->text[k];
}

static void next_rec(struct prog *g, struct riot_rec *r, uint64_t *t)
{
	uint8_t kind = byte(g);
	uint32_t pid = 100 + byte(g) % 4, tid = pid + (byte(g) % 3) * 1000;

	memset(r, 0, sizeof(*r));
	*t += num(g);
	switch (kind % 8) {
	case 0:
		r->type = RIOT_REC_SNAP_PROC;
		r->sproc = (struct riot_snap_proc){ .pid = pid, .ppid = 1, .t = *t };
		r->sproc.cwd.s = path(g, 0);
		return;
	case 1:
		r->type = RIOT_REC_SNAP_FD;
		r->sfd = (struct riot_snap_fd){ .pid = pid, .fd = byte(g) % 8, .t = *t,
						.pos = num(g), .size = num(g),
						.ftype = byte(g) & 1 ? 0100000 : 040000 };
		r->sfd.path.s = path(g, 0);
		return;
	case 2:
		r->type = RIOT_REC_PROC;
		r->proc = (struct riot_proc){ .kind = 1 + byte(g) % 3, .pid = pid, .tid = tid,
					      .t = *t, .child_pid = 100 + byte(g) % 6,
					      .clone_flags = num(g) };
		r->proc.child_tid = r->proc.child_pid + (byte(g) % 2) * 1000;
		r->proc.path.s = r->proc.kind == RIOT_PROC_EXEC ? path(g, 0) : NULL;
		r->proc.comm.s = r->proc.kind == RIOT_PROC_EXEC ? "x" : NULL;
		return;
	case 3:
		r->type = RIOT_REC_DROP;
		r->drop = (struct riot_drop){ .count = num(g), .t_first = *t, .t_last = *t };
		return;
	default:
		break;
	}
	r->type = RIOT_REC_SYSCALL;
	struct riot_syscall *sc = &r->sc;

	sc->sys = (uint16_t)((byte(g) << 8 | byte(g)) % RIOT_SYS_COUNT);
	sc->pid = pid;
	sc->tid = tid;
	sc->t = *t;
	sc->dur = num(g);
	sc->ret = byte(g) & 1 ? -(int64_t)(byte(g) % 40) : (int64_t)num(g);
	sc->has = (uint32_t)(byte(g) | byte(g) << 8 | byte(g) << 16) & ((1u << 21) - 1);
	sc->fd = (int32_t)(byte(g) % 10) - 1;
	sc->fd2 = (int32_t)(byte(g) % 10) - 1;
	sc->dirfd = byte(g) & 1 ? -100 : (int32_t)(byte(g) % 10);
	sc->dirfd2 = -100;
	if (sc->has & RIOT_HAS_PATH)
		sc->path.s = path(g, 0);
	if (sc->has & RIOT_HAS_PATH2)
		sc->path2.s = path(g, 1);
	sc->off = num(g);
	sc->off2 = num(g);
	sc->count = num(g);
	sc->flags = num(g);
	sc->mode = (uint32_t)num(g);
	sc->size = num(g);
	sc->ftype = byte(g) & 1 ? 0100000 : byte(g) & 1 ? 040000 : 0120000;
	sc->created = byte(g) & 1;
	*t += sc->dur;
}

/* Writes the program in data as a log at path; 0 when written. */
static int write_program(const char *path, const uint8_t *data, size_t size)
{
	struct riot_log_header h = { .host = "fuzz", .start_t = 1000 };
	struct riot_writer_opts o = { .block_bytes = 512 };
	struct riot_writer *w = riot_writer_open(path, &h, &o);
	struct prog g = { data, data + size };
	struct riot_rec r;
	uint64_t t = 1000;
	int rc = 0;

	if (!w)
		return -1;
	for (unsigned n = 0; g.p < g.end && n < 2000 && !rc; n++) {
		next_rec(&g, &r, &t);
		rc = riot_writer_add(w, &r);
	}
	return riot_writer_close(w) || rc ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("fuzz_plan", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (size >= 16 && memcmp(data, "RIOTLOG", 8) == 0) {
		uint8_t *copy = malloc(size);

		if (!copy)
			return 0;
		memcpy(copy, data, size);
		fix_checksums(copy, size);
		if (ftruncate(fd, 0) || pwrite(fd, copy, size, 0) != (ssize_t)size) {
			free(copy);
			return 0;
		}
		free(copy);
	} else if (write_program(path, data, size)) {
		return 0;
	}
	dry_run(path);
	return 0;
}
