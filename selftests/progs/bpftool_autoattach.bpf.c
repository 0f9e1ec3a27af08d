// SPDX-License-Identifier: GPL-2.0
/*
 * One session whose section names its function, for "bpftool prog load
 * OBJ PATH autoattach": bpftool attaches it with the section's defaults.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

SEC("fprobe.session/bpf_fentry_test1")
int auto_session(struct ftrace_regs *ctx)
{
	return 0;
}
