// SPDX-License-Identifier: GPL-2.0
/*
 * Count the calls of do_nanosleep() by one process's sleepers at entry (kprobe.multi)
 * and at return (kretprobe.multi), and the returns that report a sleep cut
 * short by a signal (-ERESTART_RESTARTBLOCK).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define ERESTART_RESTARTBLOCK 516

int target_tgid;
int waker_tid;	/* the thread that polls with usleep(): not a sleeper */
__u64 entries;
__u64 exits;
__u64 interrupted;

static __always_inline bool mine(void)
{
	__u64 id = bpf_get_current_pid_tgid();

	return (id >> 32) == target_tgid && (__u32)id != waker_tid;
}

SEC("kprobe.multi/do_nanosleep")
int sleep_enter(struct pt_regs *ctx)
{
	if (mine())
		__sync_fetch_and_add(&entries, 1);
	return 0;
}

SEC("kretprobe.multi/do_nanosleep")
int sleep_exit(struct pt_regs *ctx)
{
	if (!mine())
		return 0;
	__sync_fetch_and_add(&exits, 1);
	/* do_nanosleep() returns an int: the upper half of ax is not its */
	if ((int)PT_REGS_RC(ctx) == -ERESTART_RESTARTBLOCK)
		__sync_fetch_and_add(&interrupted, 1);
	return 0;
}
