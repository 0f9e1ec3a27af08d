// SPDX-License-Identifier: GPL-2.0
/*
 * Section names for tests/host/libbpf_fprobe.c: libbpf must give each
 * fprobe.multi section the KPROBE type and BPF_TRACE_FPROBE_MULTI. The
 * programs never load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("fprobe.multi/vfs_*")
int entry_pattern(void *ctx)
{
	return 0;
}

SEC("fretprobe.multi/do_sys_open")
int exit_pattern(void *ctx)
{
	return 0;
}

SEC("fprobe.session/tcp_v?_connect")
int session_pattern(void *ctx)
{
	return 0;
}

SEC("fprobe.multi")
int no_pattern(void *ctx)
{
	return 0;
}

SEC("fprobe.multi/!bad")
int bad_pattern(void *ctx)
{
	return 0;
}
