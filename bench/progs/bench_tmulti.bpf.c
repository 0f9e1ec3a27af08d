// SPDX-License-Identifier: GPL-2.0
/*
 * Per-call cost of mainline's own trampoline peers of our links: an
 * fsession program, and tracing_multi links in fexit and fsession mode.
 * In their own object because neither the 6.12 base nor its libbpf know
 * these sections: fpm_bench opens and loads it for one row at a time,
 * with that row's program only. Like bench_trig.bpf.c's programs they
 * only count their runs (twice per call for a session, which runs at
 * entry and at exit), so that the rows differ by the attachment alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

__u64 hits;

SEC("?fsession/bpf_get_numa_node_id")
int bench_fsession(void *ctx)
{
	hits++;
	return 0;
}

/* fpm_bench attaches the tracing_multi ones to bpf_get_numa_node_id */
SEC("?fexit.multi")
int bench_fexit_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fsession.multi")
int bench_fsession_multi(void *ctx)
{
	hits++;
	return 0;
}
