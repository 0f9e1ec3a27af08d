// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/base/bpftool_link.sh: programs that "bpftool prog loadall ...
 * autoattach" attaches and pins, so that the test has links of two types
 * to show. They need no kernel types.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("kprobe.multi/ksys_write")
int link_show_kmulti(void *ctx)
{
	return 0;
}

SEC("raw_tp/sys_enter")
int link_show_raw_tp(void *ctx)
{
	return 0;
}
