// SPDX-License-Identifier: GPL-2.0
/*
 * Stack traces and perf output from an fprobe.multi session on
 * bpf_fentry_test1, called by bpf_prog_test_run_tracing(). The helpers get
 * a pt_regs view made on demand from the ftrace_regs. At entry the stack
 * starts in bpf_fentry_test1, then its caller; at exit it starts at the
 * caller's return address, with no trampoline in between, so it is the
 * entry stack less its first frame.
 */
#include <errno.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_stack.skel.h"

#define STACK_DEPTH 16

struct fpm_event {
	__u64 is_return;
	__u64 func_ip;
	__u64 ret;
};

struct events_seen {
	int n[2];
	struct fpm_event ev[2];
};

static void on_event(void *ctx, int cpu, void *data, __u32 size)
{
	struct events_seen *seen = ctx;
	const struct fpm_event *ev = data;

	if (size < sizeof(*ev) || ev->is_return > 1)
		return;
	seen->n[ev->is_return]++;
	seen->ev[ev->is_return] = *ev;
}

static const char * const target[] = { "bpf_fentry_test1" };

void test_fprobe_multi_stack(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)target, .cnt = 1,
		    .session = true);
	__u64 ips[STACK_DEPTH];
	struct events_seen seen = {};
	struct fprobe_multi_stack_bpf *skel;
	struct perf_buffer *pb = NULL;
	struct bpf_link *link = NULL;
	char name[256], label[128];
	struct bpf_map *map;
	int side, i, n[2], tries;

	skel = fprobe_multi_stack_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi_stack"))
		return;
	skel->bss->target_tgid = getpid();
	pb = perf_buffer__new(bpf_map__fd(skel->maps.events), 8, on_event, NULL, &seen, NULL);
	if (!ASSERT_OK_PTR(pb, "perf_buffer__new"))
		goto out;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_stack, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.session"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;

	for (side = 0; side < 2; side++) {
		const char *s = side ? "exit" : "entry";

		snprintf(label, sizeof(label), "bpf_get_stack() at %s", s);
		if (!ASSERT_GE(skel->bss->stack_len[side], 3 * 8, label))
			goto out;
		n[side] = skel->bss->stack_len[side] / 8;
		for (i = 0; i < n[side]; i++) {
			ksym_name(skel->bss->stack[side][i], name, sizeof(name));
			test__log("  %s frame %d: %s\n", s, i, name);
			snprintf(label, sizeof(label), "%s frame %d is no trampoline", s, i);
			ASSERT_TRUE(strcmp(name, "return_to_handler") &&
				    strncmp(name, "ftrace_", 7) &&
				    strncmp(name, "fprobe_", 7), label);
		}
	}
	ASSERT_STREQ(ksym_name(skel->bss->stack[0][0], name, sizeof(name)), "bpf_fentry_test1",
		     "entry frame 0");
	ASSERT_STREQ(ksym_name(skel->bss->stack[0][1], name, sizeof(name)),
		     "bpf_prog_test_run_tracing", "entry frame 1: the caller");
	ASSERT_STREQ(ksym_name(skel->bss->stack[1][0], name, sizeof(name)),
		     "bpf_prog_test_run_tracing", "exit frame 0: the caller");
	ASSERT_EQ(n[1], n[0] - 1, "the exit stack is one frame shorter");
	for (i = 0; i < n[1]; i++) {
		snprintf(label, sizeof(label), "exit frame %d == entry frame %d", i, i + 1);
		ASSERT_EQ(skel->bss->stack[1][i], skel->bss->stack[0][i + 1], label);
	}

	for (side = 0; side < 2; side++) {
		snprintf(label, sizeof(label), "bpf_get_stackid() at %s", side ? "exit" : "entry");
		if (!ASSERT_GE(skel->bss->stackid[side], 0, label))
			continue;
		__u32 id = skel->bss->stackid[side];

		memset(ips, 0, sizeof(ips));
		map = side ? skel->maps.exit_stacks : skel->maps.entry_stacks;
		if (!ASSERT_OK(bpf_map_lookup_elem(bpf_map__fd(map), &id, ips),
			       "look the stack id up"))
			continue;
		for (i = 0; i < n[side]; i++) {
			snprintf(label, sizeof(label), "%s stackid frame %d == bpf_get_stack()",
				 side ? "exit" : "entry", i);
			ASSERT_EQ(ips[i], skel->bss->stack[side][i], label);
		}
	}

	ASSERT_EQ(skel->bss->output_err[0], 0, "bpf_perf_event_output() at entry");
	ASSERT_EQ(skel->bss->output_err[1], 0, "bpf_perf_event_output() at exit");
	for (tries = 0; tries < 50 && seen.n[0] + seen.n[1] < 2; tries++)
		perf_buffer__poll(pb, 100);
	ASSERT_EQ(seen.n[0], 1, "entry events");
	ASSERT_EQ(seen.n[1], 1, "exit events");
	ASSERT_EQ(seen.ev[0].func_ip, ksym_addr("bpf_fentry_test1"), "entry event func_ip");
	ASSERT_EQ(seen.ev[0].ret, 0, "entry event ret");
	ASSERT_EQ(seen.ev[1].func_ip, ksym_addr("bpf_fentry_test1"), "exit event func_ip");
	ASSERT_EQ(seen.ev[1].ret, 2, "exit event ret");
out:
	bpf_link__destroy(link);
	perf_buffer__free(pb);
	fprobe_multi_stack_bpf__destroy(skel);
}
