// SPDX-License-Identifier: GPL-2.0
/*
 * Attach one kretprobe.multi link to 1,000 kernel functions, check that
 * the link holds all of them, detach, and log what the attachment cost in
 * slab, vmalloc and per-CPU memory (from /proc/meminfo). On the base
 * kernel the cost is the link's rethook pool; on fgraph it is the address
 * table plus, for the first fgraph user of a boot, fgraph's pool of shadow
 * stacks and the stacks of the tasks that ran a probed function. Run it
 * alone in a fresh guest to see the latter
 * (scripts/vmtest.sh -t fprobe_memory); make bench measures it too.
 */
#include <dirent.h>
#include "test_progs.h"
#include "helpers.h"
#include "meminfo.h"
#include "kretprobe_record.skel.h"

#define NR_FUNCS 1000

/* The first NR_FUNCS ftrace locations of vmlinux (not of modules). */
static int pick_functions(unsigned long *addrs)
{
	char line[256], *end;
	unsigned long addr;
	int n = 0;
	FILE *f;

	f = fopen(TRACEFS "available_filter_functions_addrs", "r");
	if (!f)
		return -errno;
	while (n < NR_FUNCS && fgets(line, sizeof(line), f)) {
		/* "ADDR NAME" for vmlinux, "ADDR NAME [MODULE]" for modules */
		addr = strtoul(line, &end, 16);
		if (end != line && !strchr(line, '['))
			addrs[n++] = addr;
	}
	fclose(f);
	return n;
}

static int count_tasks(void)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] >= '0' && d->d_name[0] <= '9';
	closedir(dir);
	return n;
}

static void run(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .retprobe = true);
	static unsigned long addrs[NR_FUNCS];
	struct meminfo before, attached, after;
	struct kretprobe_record_bpf *skel;
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct bpf_link *link;

	if (!ASSERT_EQ(pick_functions(addrs), NR_FUNCS, "functions to attach"))
		return;
	skel = open_and_load_on_base(kretprobe_record_bpf);
	if (!ASSERT_OK_PTR(skel, "open and load kretprobe_record"))
		return;
	opts.addrs = addrs;
	opts.cnt = NR_FUNCS;
	if (!ASSERT_OK(read_meminfo(&before), "read /proc/meminfo"))
		goto cleanup;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_ret, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kretprobe.multi to 1000 functions"))
		goto cleanup;
	read_meminfo(&attached);
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link info"))
		ASSERT_EQ(info.kprobe_multi.count, NR_FUNCS, "functions in the link");
	ASSERT_OK(bpf_link__destroy(link), "detach");
	read_meminfo(&after);
	test__log("  1000 functions attached: slab %+ld kB, vmalloc %+ld kB, percpu %+ld kB\n",
		  attached.slab - before.slab, attached.vmalloc - before.vmalloc,
		  attached.percpu - before.percpu);
	test__log("  after detach: slab %+ld kB, vmalloc %+ld kB, percpu %+ld kB; %d processes\n",
		  after.slab - before.slab, after.vmalloc - before.vmalloc,
		  after.percpu - before.percpu, count_tasks());
cleanup:
	kretprobe_record_bpf__destroy(skel);
}

void test_fprobe_memory(void)
{
	if (test__start_subtest("kretprobe_multi_1000"))
		run();
}
