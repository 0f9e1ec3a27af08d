// SPDX-License-Identifier: GPL-2.0
/*
 * funcret: report the return value of every call to a set of kernel
 * functions, with the task that made it.
 *
 * One kretprobe.multi program is attached to every function a glob
 * pattern matches. Each return is sent to user space through a ring
 * buffer; a full buffer is counted in "dropped" rather than lost silently.
 * The tool's own calls are skipped: printing an event calls vfs_write(),
 * which would otherwise report itself without end.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "funcret.h"

char _license[] SEC("license") = "GPL";

const volatile int filter_tgid;
const volatile int self_tgid;
__u64 dropped;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("kretprobe.multi")
int funcret_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct funcret_event *e;

	if (filter_tgid && (id >> 32) != filter_tgid)
		return 0;
	if ((id >> 32) == self_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	e->func_ip = bpf_get_func_ip(ctx);
	e->ret = PT_REGS_RC(ctx);
	e->pid = (__u32)id;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}
