/* bpf/mmap.bpf.h: I/O through file mappings (mmap:read, mmap:write).
 * Included at the end of riot.bpf.c.
 *
 * A traced task's page faults are seen where the page cache serves them:
 * filemap_fault() for the faulting page (mm_filemap_fault), fault-around
 * for the cached pages it maps beside it (mm_filemap_map_pages, one record
 * per window), and a write fault on a shared mapping that makes a clean
 * folio dirty (writeback_dirty_folio while the task is in a page fault,
 * not a syscall). The page_fault_user/_kernel tracepoints give the
 * faulting address, whose mapping (bpf_find_vma) names the file's path
 * and its start address (ctx); they are x86's: elsewhere the records go
 * without path and ctx. A page is recorded again only once it has
 * been unmapped or written back and faulted anew. Executable mappings
 * (program text, libraries' code) are left out: paging code in is no
 * I/O of the workload's. */

#define PAGE_BYTES 4096ull
#define VM_EXEC_FLAG 0x4ull

static __always_inline int mmap_on(void)
{
	return sys_enabled(RIOT_SYS_mmap_read) || sys_enabled(RIOT_SYS_mmap_write);
}

/* The pages of the latest mmap:read of a process (a fault-around window
 * reports pages a previous fault mapped): kept in its leader's storage. */
struct mmap_last {
	__u64 mapping, first, last;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct mmap_last);
} mmap_lasts SEC(".maps");

/* The current task's slot when it is traced (made when missing). */
static __always_inline struct sys_slot *mmap_slot(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sys_slot *s;

	s = target_mode == RIOT_TARGET_PIDS ?
		    bpf_task_storage_get(&slots, task, 0, 0) : NULL;
	if (!s) {
		if (!in_target(bpf_get_current_pid_tgid() >> 32) ||
		    !comm_matches())
			return NULL;
		return bpf_task_storage_get(&slots, task, 0,
					    BPF_LOCAL_STORAGE_GET_F_CREATE);
	}
	return comm_matches() ? s : NULL;
}

static __always_inline void fault_seen(unsigned long address)
{
	struct sys_slot *s;

	if (!mmap_on() || !(s = mmap_slot()))
		return;
	s->fault_addr = address;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(mmap_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	fault_seen(address);
	return 0;
}

SEC("tp_btf/page_fault_kernel")
int BPF_PROG(mmap_fault_kernel, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	fault_seen(address);
	return 0;
}

struct mmap_vma {
	__u64 mapping;		/* in: the file's address_space */
	__u64 start;		/* out: the mapping's start */
	__u64 dentry, mnt;	/* out: the mapped file's path */
	__u64 exec;		/* out: an executable mapping */
	__u64 other;		/* out: the address maps something else */
};

static long mmap_vma_of(struct task_struct *task, struct vm_area_struct *vma,
			void *data)
{
	struct mmap_vma *v = data;
	struct file *f = vma->vm_file;

	if (!f || (__u64)BPF_CORE_READ(f, f_mapping) != v->mapping) {
		v->other = 1;
		return 0;
	}
	v->start = vma->vm_start;
	v->exec = BPF_CORE_READ(vma, vm_flags) & VM_EXEC_FLAG;
	v->dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
	v->mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
	return 0;
}

/* Records pages first..last of mapping's file. */
static __always_inline void mmap_record(__u32 sys, struct sys_slot *s,
					struct address_space *mapping,
					__u64 first, __u64 last)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct mmap_vma v = { .mapping = (__u64)mapping };
	struct inode *host = BPF_CORE_READ(mapping, host);
	struct async_req r = {};
	struct fd_scratch *sc = NULL;
	__u32 zero = 0, len = 0, s_dev, mode;
	__u8 pflags = 0;

	if (!host || last < first)
		return;
	/* a regular file's pages (not the block device's, whose folios a
	 * filesystem dirties for its metadata within a write fault) */
	if ((BPF_CORE_READ(host, i_mode) & S_IFMT_BITS) != S_IFREG_BITS)
		return;
	r.sys = sys;
	r.pid = pid_tgid >> 32;
	r.tid = (__u32)pid_tgid;
	/* CTX, PATH, CNT, OFF (syscalls.def) */
	r.args[2] = (last - first + 1) * PAGE_BYTES;
	r.args[3] = first * PAGE_BYTES;
	r.ret = r.args[2];
	r.flags = RIOT_EVF_FACTS;
	r.x.size = BPF_CORE_READ(host, i_size);
	mode = BPF_CORE_READ(host, i_mode);
	r.x.ftype = mode & S_IFMT_BITS;
	r.x.perm = mode & PERM_BITS;
	r.x.ino = BPF_CORE_READ(host, i_ino);
	s_dev = BPF_CORE_READ(host, i_sb, s_dev);
	r.x.dev = encode_dev(s_dev >> 20, s_dev & 0xfffff);
	/* The mapping of the faulting address, when it maps this file (its
	 * lock is only tried: busy, the record goes without path and ctx);
	 * when it maps another, these pages are not the fault's own. */
	if (s->fault_addr &&
	    bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma) &&
	    !bpf_find_vma(task, s->fault_addr, mmap_vma_of, &v, 0) &&
	    (v.other || !v.dentry))
		return;
	if (v.dentry && (sc = bpf_map_lookup_elem(&fd_scratches, &zero))) {
		if (v.exec)
			return;	/* program text: no I/O of the workload's */
		r.args[0] = v.start;
		len = file_path(sc, (void *)v.dentry, (void *)v.mnt, &pflags);
		/* a cut path would name another file */
		if (len < RIOT_PATH_MAX && !(pflags & RIOT_EVD_PATH_TRUNC)) {
			r.path1 = sc->path;
			r.len1 = len;
		}
	}
	async_emit(&r);
}

/* Pages first..last of mapping mapped in by a fault of the current task:
 * what the process's previous mmap:read of the file recorded is left out. */
static __always_inline void mmap_read_pages(struct address_space *mapping,
					    __u64 first, __u64 last)
{
	struct task_struct *leader;
	struct mmap_last *m;
	struct sys_slot *s;

	if (!sys_recorded(RIOT_SYS_mmap_read) || !(s = mmap_slot()))
		return;
	leader = bpf_get_current_task_btf()->group_leader;
	m = bpf_task_storage_get(&mmap_lasts, leader, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (m && m->mapping == (__u64)mapping && first <= m->last + 1 &&
	    last + 1 >= m->first) {
		/* overlapping or adjacent: record what lies outside */
		if (first < m->first)
			mmap_record(RIOT_SYS_mmap_read, s, mapping, first, m->first - 1);
		if (last > m->last)
			mmap_record(RIOT_SYS_mmap_read, s, mapping, m->last + 1, last);
		if (first < m->first)
			m->first = first;
		if (last > m->last)
			m->last = last;
		return;
	}
	mmap_record(RIOT_SYS_mmap_read, s, mapping, first, last);
	if (m) {
		m->mapping = (__u64)mapping;
		m->first = first;
		m->last = last;
	}
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(mmap_filemap_fault, struct address_space *mapping,
	     unsigned long index)
{
	mmap_read_pages(mapping, index, index);
	return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(mmap_map_pages, struct address_space *mapping,
	     unsigned long first, unsigned long last)
{
	mmap_read_pages(mapping, first, last);
	return 0;
}

/* A folio made dirty: through a shared mapping when its task is in a
 * page fault, not a syscall (write(2) dirties folios too): its user
 * registers say which (REGS_IN_EXCEPTION, arch.bpf.h). */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(mmap_dirty_folio, struct folio *folio,
	     struct address_space *mapping)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs;
	__u64 index, nr = 1, flags = 0;
	struct sys_slot *s;

	if (!sys_recorded(RIOT_SYS_mmap_write) || !mapping)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs || !REGS_IN_EXCEPTION(regs))
		return 0;
	if (!(s = mmap_slot()))
		return 0;
	index = BPF_CORE_READ(folio, index);
	/* a large folio: PG_head set in its flags (the first word, whatever
	 * their type), its order in the low byte of the second page's */
	if (!bpf_probe_read_kernel(&flags, sizeof(flags), folio) &&
	    (flags & (1ull << bpf_core_enum_value(enum pageflags, PG_head))) &&
	    bpf_core_field_exists(folio->_flags_1))
		nr = 1ull << (BPF_CORE_READ(folio, _flags_1) & 0xff);
	mmap_record(RIOT_SYS_mmap_write, s, mapping, index, index + nr - 1);
	return 0;
}
