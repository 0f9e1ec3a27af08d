// SPDX-License-Identifier: GPL-2.0
/*
 * funclat: the latency, first argument and return value of every call to a
 * set of kernel functions, from one fprobe.multi session.
 *
 * The entry run stores a timestamp in the call's session data, on the
 * shadow stack; the exit run of the same call reads it back, with the first
 * argument the link saved at entry and the return value, and sends one
 * event. No map is keyed by task or stack depth, so recursion, sleeps and
 * migrations need no care. A full ring buffer is counted in "dropped". The
 * tool's own calls are skipped, as printing an event calls vfs_write().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"
#include "funclat.h"

char _license[] SEC("license") = "GPL";

const volatile int filter_tgid;
const volatile int self_tgid;
__u64 dropped;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("fprobe.session")
int funclat(struct ftrace_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct funclat_event *e;
	__u64 *start, ret = 0;

	if (filter_tgid && (id >> 32) != filter_tgid)
		return 1;
	if ((id >> 32) == self_tgid)
		return 1;
	start = (__u64 *)bpf_fprobe_session_data(ctx, sizeof(*start));
	if (!start)
		return 1;
	if (!bpf_fprobe_is_return(ctx)) {
		*start = bpf_ktime_get_ns();
		return 0;
	}

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	e->ns = bpf_ktime_get_ns() - *start;
	e->func_ip = bpf_fprobe_func_ip(ctx);
	bpf_fprobe_arg(ctx, 0, &e->arg0);
	bpf_fprobe_ret(ctx, &ret);
	e->ret = ret;
	e->pid = (__u32)id;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}
