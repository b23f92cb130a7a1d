/* inspect/version.c: `riot version`: riot, the libraries linked in, and
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

#include "inspect.h"
#include "lib/cli.h"
#include "lib/json.h"

#ifndef RIOT_LIBURING_VERSION
#define RIOT_LIBURING_VERSION "unknown"
#endif

const char cmd_version_help[] =
	"Usage: riot version [--json]\n"
	"\n"
	"Prints riot's version, the versions of the libraries linked in (libbpf,\n"
	"liburing, zstd, SQLite) and what the running kernel offers: BTF, the BPF\n"
	"ring buffer, and io_uring with the number of operations it supports.\n"
	"\n"
	"  --json   one JSON object\n";

struct kernel_features {
	char release[65];
	bool btf;
	int ringbuf;		/* 1 yes, 0 no, -errno when it could not tell */
	int uring_ops;		/* supported io_uring ops, -errno if none */
	int uring_last_op;
};

static int probe_uring(int *last_op)
{
	struct io_uring_probe *p = io_uring_get_probe();
	int n = 0;

	if (!p)
		return -ENOSYS;
	for (int op = 0; op < p->ops_len; op++)
		if (p->ops[op].flags & IO_URING_OP_SUPPORTED)
			n++;
	*last_op = p->last_op;
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
	k->uring_ops = probe_uring(&k->uring_last_op);
}

static const char *ringbuf_text(int v)
{
	if (v == 1)
		return "yes";
	if (v == 0)
		return "no";
	return v == -EPERM ? "unknown (probing needs root or CAP_BPF)" : "unknown";
}

int cmd_version(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { 0 } };
	struct kernel_features k;
	bool as_json = false;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'j')
			return riot_usage("unknown option");
		as_json = true;
	}
	if (optind != argc)
		return riot_usage("takes no arguments");
	probe_kernel(&k);
	if (as_json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_open(&j, NULL);
		json_str(&j, "riot", RIOT_VERSION);
		json_str(&j, "libbpf", libbpf_version_string());
		json_str(&j, "liburing", RIOT_LIBURING_VERSION);
		json_str(&j, "zstd", ZSTD_versionString());
		json_str(&j, "sqlite", sqlite3_libversion());
		json_str(&j, "kernel", k.release);
		json_bool(&j, "btf", k.btf);
		if (k.ringbuf >= 0)
			json_bool(&j, "ringbuf", k.ringbuf == 1);
		else
			json_null(&j, "ringbuf");
		json_i64(&j, "io_uring_ops", k.uring_ops < 0 ? 0 : k.uring_ops);
		json_obj_close(&j);
		json_end_line(&j);
		return RIOT_EXIT_OK;
	}
	printf("riot %s\n", RIOT_VERSION);
	printf("libraries: libbpf %s, liburing %s, zstd %s, SQLite %s\n",
	       libbpf_version_string(), RIOT_LIBURING_VERSION,
	       ZSTD_versionString(), sqlite3_libversion());
	printf("kernel %s:\n", k.release);
	printf("  BTF (/sys/kernel/btf/vmlinux): %s\n", k.btf ? "yes" : "no");
	printf("  BPF ring buffer:               %s\n", ringbuf_text(k.ringbuf));
	if (k.uring_ops >= 0)
		printf("  io_uring:                      yes, %d operations (last opcode %d)\n",
		       k.uring_ops, k.uring_last_op);
	else
		printf("  io_uring:                      no (%s)\n", strerror(-k.uring_ops));
	return RIOT_EXIT_OK;
}
