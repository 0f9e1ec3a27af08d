// SPDX-License-Identifier: GPL-2.0
/* Count the entries and exits of bpf_fentry_test1 that one session sees. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

__u64 entries, exits;

SEC("fprobe.session")
int lazy_session(struct ftrace_regs *ctx)
{
	if (bpf_fprobe_is_return(ctx))
		__sync_fetch_and_add(&exits, 1);
	else
		__sync_fetch_and_add(&entries, 1);
	return 0;
}
