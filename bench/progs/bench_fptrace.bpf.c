// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-written references of `fpm_bench fptrace`: what a C/libbpf
 * author writes for fptrace's
 *
 *	fprobe:F { @ = count(); }
 *	fprobe:F { } fretprobe:F { @ = hist(latency); }
 *
 * a per-CPU counter incremented at entry, and a session that keeps the
 * entry time in its session data and counts the latency's log2 bucket in
 * a per-CPU array at exit (as libbpf-tools' biolatency does). Neither
 * keeps a run counter of its own: fpm_bench sums the maps, as it sums
 * fptrace's, to check that every call was counted.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

#define HIST_SLOTS	64

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hand_count_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} hand_hist_map SEC(".maps");

SEC("?fprobe.multi")
int hand_count(struct ftrace_regs *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&hand_count_map, &key);

	if (v)
		(*v)++;
	return 0;
}

/* libbpf-tools' bits.bpf.h */
static __always_inline __u64 bits_log2(__u32 v)
{
	__u32 shift, r;

	r = (v > 0xFFFF) << 4; v >>= r;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u64 bits_log2l(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? bits_log2(hi) + 32 : bits_log2(v);
}

SEC("?fprobe.session")
int hand_hist(struct ftrace_regs *ctx)
{
	__u64 *start = (__u64 *)bpf_fprobe_session_data(ctx, 8);
	__u64 *v;
	__u32 slot;

	if (!start)
		return 0;
	if (!bpf_fprobe_is_return(ctx)) {
		*start = bpf_ktime_get_ns();
		return 0;
	}
	slot = bits_log2l(bpf_ktime_get_ns() - *start);
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	v = bpf_map_lookup_elem(&hand_hist_map, &slot);
	if (v)
		(*v)++;
	return 0;
}
