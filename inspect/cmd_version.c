/* inspect/cmd_version.c: `riot version`: riot, the libraries linked in, and
 * what the running kernel offers. Every kernel fact is probed, never
 * inferred from the release number. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <liburing.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include "inspect/inspect.h"
#include "lib/cli.h"
#include "lib/json.h"

#ifndef RIOT_LIBURING_VERSION
#define RIOT_LIBURING_VERSION "unknown"
#endif

const char cmd_version_help[] =
	"Usage: riot version [--json]\n"
	"\n"
	"Prints riot's version, the versions of the libraries linked in (libbpf,\n"
	"liburing, zstd, SQLite) and what the running kernel offers, each probed:\n"
	"BTF, the BPF ring buffer and BPF task storage (capture needs all three),\n"
	"io_uring with the number of operations it supports, and whether it has\n"
	"READ, WRITE and FADVISE, the operations the uring replay engine sends\n"
	"to the ring (it needs READ and WRITE; without FADVISE, fadvise is a\n"
	"blocking call). Last, whether capture works on this kernel: riot loads\n"
	"its BPF programs (as root, or with CAP_BPF and CAP_PERFMON) and says how\n"
	"many loaded and which fallbacks it takes where the kernel lacks a\n"
	"tracepoint or helper (`riot capture --check` says what each means), or\n"
	"the verifier's verdict when it refuses one.\n"
	"\n"
	"  --json   one JSON object\n";

struct kernel_features {
	char release[65];
	bool btf;
	int ringbuf;		/* 1 yes, 0 no, -errno when it could not tell */
	int task_storage;	/* the same */
	int uring_engine_ops;	/* READ, WRITE and FADVISE: 1 all, 0 not */
	int uring_ops;		/* supported io_uring ops, -errno if none */
	int uring_last_op;
};

static int probe_uring(int *last_op, int *engine_ops)
{
	struct io_uring_probe *p = io_uring_get_probe();
	int n = 0;

	if (!p)
		return -ENOSYS;
	for (int op = 0; op < p->ops_len; op++)
		if (p->ops[op].flags & IO_URING_OP_SUPPORTED)
			n++;
	*last_op = p->last_op;
	*engine_ops = io_uring_opcode_supported(p, IORING_OP_READ) &&
		      io_uring_opcode_supported(p, IORING_OP_WRITE) &&
		      io_uring_opcode_supported(p, IORING_OP_FADVISE);
	io_uring_free_probe(p);
	return n;
}

static void probe_kernel(struct kernel_features *k)
{
	struct utsname u;
	int rc;

	memset(k, 0, sizeof(*k));
	if (uname(&u) == 0)
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	k->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	libbpf_set_print(NULL);
	rc = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	k->ringbuf = rc == 1 ? 1 : rc == 0 ? 0 : rc;
	rc = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);
	k->task_storage = rc == 1 ? 1 : rc == 0 ? 0 : rc;
	k->uring_ops = probe_uring(&k->uring_last_op, &k->uring_engine_ops);
}

/* The liburing riot was built with: its pkg-config module's version, or
 * the header's own when the build could not ask pkg-config. */
static const char *liburing_version(void)
{
#ifdef IO_URING_VERSION_MAJOR
	static char v[32];
#endif

	if (RIOT_LIBURING_VERSION[0])
		return RIOT_LIBURING_VERSION;
#ifdef IO_URING_VERSION_MAJOR
	snprintf(v, sizeof(v), "%d.%d", IO_URING_VERSION_MAJOR, IO_URING_VERSION_MINOR);
	return v;
#else
	return "unknown";
#endif
}

static const char *probe_text(int v)
{
	if (v == 1)
		return "yes";
	if (v == 0)
		return "no";
	return v == -EPERM ? "unknown (probing needs root or CAP_BPF)" : "unknown";
}

int cmd_version(int argc, char **argv, void (*probe)(struct version_capture *vc))
{
	struct version_capture vc;
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { 0 } };
	struct kernel_features k;
	bool as_json = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'j')
			return riot_usage("bad option");
		as_json = true;
	}
	if (optind != argc)
		return riot_usage("takes no arguments");
	probe_kernel(&k);
	probe(&vc);
	if (as_json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_open(&j, NULL);
		json_str(&j, "riot", RIOT_VERSION);
		json_str(&j, "libbpf", libbpf_version_string());
		json_str(&j, "liburing", liburing_version());
		json_str(&j, "zstd", ZSTD_versionString());
		json_str(&j, "sqlite", sqlite3_libversion());
		json_str(&j, "kernel", k.release);
		json_bool(&j, "btf", k.btf);
		if (k.ringbuf >= 0)
			json_bool(&j, "ringbuf", k.ringbuf == 1);
		else
			json_null(&j, "ringbuf");
		if (k.task_storage >= 0)
			json_bool(&j, "task_storage", k.task_storage == 1);
		else
			json_null(&j, "task_storage");
		json_i64(&j, "io_uring_ops", k.uring_ops < 0 ? 0 : k.uring_ops);
		json_bool(&j, "io_uring_engine_ops", k.uring_ops >= 0 && k.uring_engine_ops == 1);
		if (vc.works >= 0)
			json_bool(&j, "capture", vc.works);
		else
			json_null(&j, "capture");
		json_u64(&j, "capture_programs", vc.loaded);
		json_u64(&j, "capture_programs_total", vc.total);
		json_str(&j, "capture_fallbacks", vc.fallbacks);
		json_str(&j, "capture_error", vc.works == 1 ? NULL : vc.why);
		json_obj_close(&j);
		json_end_line(&j);
		return RIOT_EXIT_OK;
	}
	printf("riot %s\n", RIOT_VERSION);
	printf("libraries: libbpf %s, liburing %s, zstd %s, SQLite %s\n",
	       libbpf_version_string(), liburing_version(),
	       ZSTD_versionString(), sqlite3_libversion());
	printf("kernel %s:\n", k.release);
	printf("  BTF (/sys/kernel/btf/vmlinux): %s\n", k.btf ? "yes" : "no");
	printf("  BPF ring buffer:               %s\n", probe_text(k.ringbuf));
	printf("  BPF task storage:              %s\n", probe_text(k.task_storage));
	if (k.uring_ops >= 0)
		printf("  io_uring:                      yes, %d operations (last opcode %d), "
		       "READ WRITE FADVISE %s\n", k.uring_ops, k.uring_last_op,
		       k.uring_engine_ops == 1 ? "yes" : "no");
	else
		printf("  io_uring:                      no (%s)\n", strerror(-k.uring_ops));
	if (vc.works == 1)
		printf("  capture:                       yes, %u of %u programs loaded, "
		       "fallbacks: %s\n", vc.loaded, vc.total,
		       vc.fallbacks[0] ? vc.fallbacks : "none");
	else if (vc.works == 0)
		printf("  capture:                       no: %s\n", vc.why);
	else
		printf("  capture:                       unknown (%s)\n", vc.why);
	return RIOT_EXIT_OK;
}
