/* test_kbtf: capture's streamed questions to BTF (capture/kbtf.c). On BTF
 * made here with libbpf's writer: a tracepoint typedef's arguments, also
 * through modifiers, a function, an enum's member, names that are absent
 * or of another kind; strings and types that straddle the read window;
 * a truncated or malformed file answered "absent" with -EINVAL, never a
 * crash. On the running kernel's BTF: the same answers libbpf's parse
 * gives. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "capture/capture_int.h"
#include "tests/unit/unit.h"

static char dir[] = "/tmp/riot-kbtf.XXXXXX";

/* data (len bytes) into dir/name; the file's path in path. */
static void put_file(const char *name, const void *data, size_t len, char *path, size_t plen)
{
	snprintf(path, plen, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, data, len), (long long)len);
	close(fd);
}

/* A prototype of nparams int parameters and a pointer to it: the
 * pointer's id. */
static int fn_ptr(struct btf *b, int int_id, int nparams)
{
	int proto = btf__add_func_proto(b, int_id);

	for (int i = 0; i < nparams; i++)
		btf__add_func_param(b, "", int_id);
	return btf__add_ptr(b, proto);
}

/* Members, strings and types enough to fill several windows of 64 KiB,
 * with one name of 3,000 bytes. */
static void filler(struct btf *b, int int_id, int n)
{
	char name[64], member[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "filler_struct_%05d", i);
		btf__add_struct(b, name, 32);
		for (int k = 0; k < 4; k++) {
			snprintf(member, sizeof(member), "m%d_%d", k, i);
			btf__add_field(b, member, int_id, k * 32, 0);
		}
	}
	char *big = malloc(3001);
	memset(big, 'x', 3000);
	big[3000] = 0;
	btf__add_struct(b, big, 4);
	free(big);
}

static const void *made(struct btf *b, unsigned *len)
{
	const void *raw = btf__raw_data(b, len);

	CHECK(raw != NULL);
	return raw;
}

static void test_made(void)
{
	struct btf *b = btf__new_empty();
	char path[256];
	int int_id = btf__add_int(b, "int", 4, BTF_INT_SIGNED);

	filler(b, int_id, 3000);	/* the answers lie past the first windows */
	btf__add_typedef(b, "btf_trace_three", fn_ptr(b, int_id, 3));
	/* typedef -> const -> typedef -> pointer -> prototype of 5 */
	int inner = btf__add_typedef(b, "inner_t", fn_ptr(b, int_id, 5));
	btf__add_typedef(b, "btf_trace_five", btf__add_const(b, inner));
	btf__add_typedef(b, "btf_trace_not_a_fn", int_id);
	btf__add_typedef(b, "btf_trace_no_proto", btf__add_ptr(b, int_id));
	btf__add_func(b, "bpf_rdonly_cast", BTF_FUNC_GLOBAL, btf__add_func_proto(b, int_id));
	btf__add_struct(b, "a_struct_named_like_a_func", 0);
	btf__add_enum(b, "other_enum", 4);
	btf__add_enum_value(b, "BPF_FUNC_in_other", 1);
	btf__add_enum(b, "bpf_func_id", 4);
	btf__add_enum_value(b, "BPF_FUNC_unspec", 0);
	btf__add_enum_value(b, "BPF_FUNC_find_vma", 180);
	filler(b, int_id, 500);
	btf__add_typedef(b, "btf_trace_two", fn_ptr(b, int_id, 2));

	unsigned len;
	const void *raw = made(b, &len);
	CHECK(len > 4 * 65536);
	put_file("made.btf", raw, len, path, sizeof(path));

	struct kbtf_query q[] = {
		{ "btf_trace_three", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "btf_trace_five", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "btf_trace_two", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "btf_trace_not_a_fn", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "btf_trace_no_proto", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "btf_trace_absent", BTF_KIND_TYPEDEF, NULL, 0 },
		{ "bpf_rdonly_cast", BTF_KIND_FUNC, NULL, 0 },
		{ "a_struct_named_like_a_func", BTF_KIND_FUNC, NULL, 0 },
		{ "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_find_vma", 0 },
		{ "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_in_other", 0 },
		{ "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_unspec", 0 },
		{ "filler_struct_02999", BTF_KIND_STRUCT, NULL, 0 },
		{ "filler_struct_03000", BTF_KIND_STRUCT, NULL, 0 },
	};
	CHECK_EQ(kbtf_scan(path, q, 13), 0);
	CHECK_EQ(q[0].found, 3);
	CHECK_EQ(q[1].found, 5);
	CHECK_EQ(q[2].found, 2);
	CHECK_EQ(q[3].found, -1);
	CHECK_EQ(q[4].found, -1);
	CHECK_EQ(q[5].found, -1);
	CHECK_EQ(q[6].found, 1);
	CHECK_EQ(q[7].found, 0);
	CHECK_EQ(q[8].found, 1);
	CHECK_EQ(q[9].found, 0);
	CHECK_EQ(q[10].found, 1);
	CHECK_EQ(q[11].found, 1);
	CHECK_EQ(q[12].found, 0);

	/* every truncation: -EINVAL, every answer "absent" */
	unsigned bad = 0, cuts = 0;
	for (unsigned cut = 0; cut < len; cut += cut < 64 ? 1 : 4099) {
		char tpath[256];

		put_file("cut.btf", raw, cut, tpath, sizeof(tpath));
		q[0].found = 7;
		q[6].found = 7;
		cuts++;
		bad += kbtf_scan(tpath, q, 13) == -EINVAL && q[0].found == -1 && q[6].found == 0;
	}
	CHECK_EQ(bad, cuts);

	/* a kind it does not know, a wrong magic: -EINVAL */
	unsigned char *copy = malloc(len);
	const struct btf_header *h = raw;
	memcpy(copy, raw, len);
	/* the first type (the int) made of kind 31 */
	uint32_t info = 31u << 24;
	memcpy(copy + h->hdr_len + h->type_off + 4, &info, 4);
	put_file("kind.btf", copy, len, path, sizeof(path));
	CHECK_EQ(kbtf_scan(path, q, 13), -EINVAL);
	CHECK_EQ(q[0].found, -1);
	memcpy(copy, raw, len);
	copy[0] ^= 0xff;
	put_file("magic.btf", copy, len, path, sizeof(path));
	CHECK_EQ(kbtf_scan(path, q, 13), -EINVAL);
	free(copy);
	snprintf(path, sizeof(path), "%s/none.btf", dir);
	CHECK_EQ(kbtf_scan(path, q, 13), -ENOENT);
	CHECK_EQ(q[2].found, -1);
	btf__free(b);
}

/* The running kernel's BTF: the answers libbpf's whole parse gives. */
static void test_kernel(void)
{
	static const char *tps[] = { "sys_enter", "sys_exit", "sched_process_fork",
		"sched_process_exec", "sched_process_exit", "io_uring_create",
		"io_uring_submit_req", "io_uring_submit_sqe", "io_uring_complete",
		"mm_filemap_fault", "writeback_dirty_folio", "page_fault_user",
		"no_such_tracepoint" };
	enum { NTP = sizeof(tps) / sizeof(tps[0]) };
	struct kbtf_query q[NTP + 3];
	char names[NTP][96];
	struct btf *b;

	if (access(VMLINUX_BTF, R_OK)) {
		fprintf(stderr, "test_kbtf: no %s%s\n", VMLINUX_BTF,
			getenv("CI") ? " (CI: a failure)" : ": the kernel's half left out");
		CHECK(!getenv("CI"));
		return;
	}
	b = btf__load_vmlinux_btf();
	CHECK(b != NULL);
	if (!b)
		return;
	for (unsigned i = 0; i < NTP; i++) {
		snprintf(names[i], sizeof(names[i]), "btf_trace_%s", tps[i]);
		q[i] = (struct kbtf_query){ names[i], BTF_KIND_TYPEDEF, NULL, 0 };
	}
	q[NTP] = (struct kbtf_query){ "bpf_rdonly_cast", BTF_KIND_FUNC, NULL, 0 };
	q[NTP + 1] = (struct kbtf_query){ "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_find_vma", 0 };
	q[NTP + 2] = (struct kbtf_query){ "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_no_such", 0 };
	CHECK_EQ(kbtf_scan(VMLINUX_BTF, q, NTP + 3), 0);
	for (unsigned i = 0; i < NTP; i++) {
		int id = btf__find_by_name_kind(b, names[i], BTF_KIND_TYPEDEF), want = -1;
		const struct btf_type *t;

		if (id > 0 && (t = btf__type_by_id(b, btf__resolve_type(b, id))) &&
		    btf_is_ptr(t) && (t = btf__type_by_id(b, t->type)) && btf_is_func_proto(t))
			want = btf_vlen(t);
		if (q[i].found != want)
			fprintf(stderr, "test_kbtf: %s: %d, libbpf %d\n", names[i], q[i].found, want);
		CHECK_EQ(q[i].found, want);
	}
	CHECK(q[0].found >= 2);	/* sys_enter is there on every kernel */
	CHECK_EQ(q[NTP - 1].found, -1);
	CHECK_EQ(q[NTP].found, btf__find_by_name_kind(b, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0);
	int id = btf__find_by_name_kind(b, "bpf_func_id", BTF_KIND_ENUM), has = 0;
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++)
		has |= !strcmp(btf__name_by_offset(b, btf_enum(t)[i].name_off), "BPF_FUNC_find_vma");
	CHECK_EQ(q[NTP + 1].found, has);
	CHECK_EQ(q[NTP + 2].found, 0);
	btf__free(b);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_made();
	test_kernel();
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_EQ(system(cmd), 0);
	return unit_done();
}
