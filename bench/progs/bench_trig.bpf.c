// SPDX-License-Identifier: GPL-2.0
/*
 * Per-call cost, for the probe kinds both kernels have. bench_driver
 * calls bpf_get_numa_node_id() BENCH_BATCH times per test run; the other
 * programs are attached to that helper one kind at a time and count
 * their runs, so that fpm_bench can check each probe fired exactly once
 * per call (twice for a session). The bench_attach_* programs do nothing;
 * they measure the cost of attaching and detaching many functions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bench.h"

char _license[] SEC("license") = "GPL";

__u64 hits;

SEC("raw_tp")
int bench_driver(void *ctx)
{
	int i;

	for (i = 0; i < BENCH_BATCH; i++)
		bpf_get_numa_node_id();
	return 0;
}

SEC("?kprobe/bpf_get_numa_node_id")
int bench_kprobe(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kretprobe/bpf_get_numa_node_id")
int bench_kretprobe(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kprobe.multi")
int bench_kprobe_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kretprobe.multi")
int bench_kretprobe_multi(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kprobe.session")
int bench_kprobe_session(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fentry/bpf_get_numa_node_id")
int bench_fentry(void *ctx)
{
	hits++;
	return 0;
}

SEC("?fexit/bpf_get_numa_node_id")
int bench_fexit(void *ctx)
{
	hits++;
	return 0;
}

SEC("?kretprobe.multi")
int bench_attach_kretprobe_multi(void *ctx)
{
	return 0;
}
