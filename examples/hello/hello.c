// SPDX-License-Identifier: GPL-2.0
/*
 * hello: load and auto-attach hello.bpf.c, sleep three times for 1 ms,
 * and print what the session program saw. Exits 0 if it saw the 3 calls,
 * each of at least 1 ms.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "hello.skel.h"

int main(void)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	struct hello_bpf *skel;
	int i, ok;

	skel = hello_bpf__open();
	if (!skel) {
		perror("hello: open");
		return 1;
	}
	skel->bss->target_tgid = getpid();
	if (hello_bpf__load(skel) || hello_bpf__attach(skel)) {
		perror("hello: load and attach");
		hello_bpf__destroy(skel);
		return 1;
	}
	for (i = 0; i < 3; i++)
		nanosleep(&ms, NULL);
	printf("do_nanosleep: %llu calls, shortest %llu us, %llu us in all\n",
	       (unsigned long long)skel->bss->calls,
	       (unsigned long long)skel->data->shortest_ns / 1000,
	       (unsigned long long)skel->bss->total_ns / 1000);
	ok = skel->bss->calls == 3 && skel->data->shortest_ns >= 1000000;
	hello_bpf__destroy(skel);
	return ok ? 0 : 1;
}
