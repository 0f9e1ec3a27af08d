// SPDX-License-Identifier: GPL-2.0
/*
 * hello: one fprobe.session program on do_nanosleep(). The entry run keeps
 * the time in the call's session data, on the shadow stack; the exit run
 * of the same call reads it back and adds up what the call took. Only the
 * loader's own calls count.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char LICENSE[] SEC("license") = "GPL";

__u32 target_tgid;
__u64 calls, total_ns, shortest_ns = ~0ULL;

/* auto-attached as a session, with 8 bytes of session data */
SEC("fprobe.session/do_nanosleep")
int hello(struct ftrace_regs *ctx)
{
	__u64 *start = (__u64 *)bpf_fprobe_session_data(ctx, sizeof(__u64));
	__u64 ns;

	/* nonzero from the entry run: no exit run for this call */
	if (!start || bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 1;
	if (!bpf_fprobe_is_return(ctx)) {
		*start = bpf_ktime_get_ns();
		return 0;
	}
	ns = bpf_ktime_get_ns() - *start;
	__sync_fetch_and_add(&calls, 1);
	__sync_fetch_and_add(&total_ns, ns);
	if (ns < shortest_ns)
		shortest_ns = ns;
	return 0;
}
