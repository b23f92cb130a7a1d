/* bpf_load: what loading each of riot capture's BPF programs costs: for
 * every program of the skeleton, opens the object, loads that program
 * alone (the maps with it) and times the load, REPEAT times; then the
 * maps alone (no program), which is every load's share that is not the
 * verifier's. A program the kernel lacks the hooks for fails to load and
 * is shown as such.
 *
 * usage: bpf_load [REPEAT]   REPEAT default 3
 * Output: one line per program, "NAME cpu-ms MS wall-ms MS insns N" (the
 * median of REPEAT loads; cpu: this process's user+sys, where the
 * verifier's work is counted; insns: the program's translated size),
 * "maps cpu-ms ..." for the maps alone, then "all cpu-ms ..." for every
 * program that loaded alone, at once, as capture's default set loads.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "riot.skel.h"

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Loads the program named want alone ("" for none, NULL for all) into
 * cpu/wall; returns its translated instructions, or -1 if it failed. */
static char logbuf[1 << 16];
/* Per program, in the object's order: whether it loaded alone ("all"
 * loads those). */
static bool loads[64];

static long load_one(const char *want, double *cpu, double *wall)
{
	struct riot_bpf *skel = riot_bpf__open();
	struct bpf_program *p;
	double c0, w0;
	long insns = 0;

	if (!skel)
		return -1;
	unsigned i = 0;

	bpf_object__for_each_program(p, skel->obj) {
		bool all = !want && i < 64 && loads[i];

		i++;
		bpf_program__set_autoload(p, all || (want && !strcmp(bpf_program__name(p), want)));
		bpf_program__set_log_buf(p, logbuf, sizeof(logbuf));
		bpf_program__set_log_level(p, 4);
	}
	bpf_map__set_max_entries(skel->maps.events, 1 << 20);
	bpf_map__set_max_entries(skel->maps.batches, libbpf_num_possible_cpus());
	c0 = cpu_ms();
	w0 = wall_ms();
	if (riot_bpf__load(skel)) {
		riot_bpf__destroy(skel);
		return -1;
	}
	*cpu = cpu_ms() - c0;
	*wall = wall_ms() - w0;
	bpf_object__for_each_program(p, skel->obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			insns += info.verified_insns;
	}
	if (want && *want && getenv("BPF_LOAD_LOG"))
		fputs(logbuf, stdout);
	riot_bpf__destroy(skel);
	return insns;
}

static bool row(const char *label, const char *want, int repeat)
{
	double cpu[64], wall[64];
	long insns = -1;

	for (int i = 0; i < repeat; i++)
		if ((insns = load_one(want, &cpu[i], &wall[i])) < 0)
			break;
	if (insns < 0) {
		printf("%s failed\n", label);
		return false;
	}
	qsort(cpu, repeat, sizeof(double), cmp);
	qsort(wall, repeat, sizeof(double), cmp);
	printf("%s cpu-ms %.1f wall-ms %.1f insns %ld\n", label, cpu[repeat / 2],
	       wall[repeat / 2], insns);
	return true;
}

int main(int argc, char **argv)
{
	int repeat = argc > 1 ? atoi(argv[1]) : 3;
	struct riot_bpf *skel;
	struct bpf_program *p;

	if (repeat < 1 || repeat > 64) {
		fprintf(stderr, "usage: bpf_load [REPEAT (1-64)]\n");
		return 2;
	}
	libbpf_set_print(quiet);
	skel = riot_bpf__open();
	if (!skel) {
		perror("bpf_load: open");
		return 1;
	}
	unsigned i = 0;

	bpf_object__for_each_program(p, skel->obj) {
		bool ok = row(bpf_program__name(p), bpf_program__name(p), repeat);

		if (i < 64)
			loads[i] = ok;
		i++;
	}
	riot_bpf__destroy(skel);
	row("maps", "", repeat);
	row("all", NULL, repeat);
	return 0;
}
