// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger: BPF_PROG_TEST_RUN on a loaded (never attached) fentry
 * program makes the kernel call bpf_fentry_test1..8 once each with fixed
 * arguments. That gives the tests kernel functions with known arguments
 * and return values, called only when a test asks.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("fentry/bpf_modify_return_test")
int BPF_PROG(trigger)
{
	return 0;
}
