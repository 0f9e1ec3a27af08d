// SPDX-License-Identifier: GPL-2.0
/*
 * funcret: print the return value of every call to the kernel functions a
 * glob pattern matches, for a while.
 *
 *   funcret [-d SECONDS] [-p TGID] PATTERN
 *
 * The return register holds 64 bits whatever the function returns; the
 * kernel's BTF gives each function's return type, so an int is printed as
 * an int (-2, not 4294967294).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "funcret.h"
#include "funcret.skel.h"
#include "ksyms.h"

static volatile sig_atomic_t stop;
static struct ksyms *ksyms;
static unsigned long nr_events;
static struct btf *vmlinux_btf;

static void on_signal(int sig)
{
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct funcret_event *e = data;
	const char *fn = ksyms__name(ksyms, e->func_ip);

	if (stop)
		return -EINTR;
	nr_events++;
	if (fn)
		printf("%-16s %-7u %-28s = %lld\n", e->comm, e->pid, fn,
		       ksyms__ret_value(vmlinux_btf, fn, e->ret));
	else
		printf("%-16s %-7u %#-28llx = %lld\n", e->comm, e->pid,
		       (unsigned long long)e->func_ip, (long long)e->ret);
	return 0;
}

static void show_help(const char *prog)
{
	fprintf(stderr, "usage: %s [-d SECONDS] [-p TGID] PATTERN\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct funcret_bpf *skel;
	struct bpf_link *link = NULL;
	int opt, secs = 5, tgid = 0, err = 1;

	while ((opt = getopt(argc, argv, "d:p:")) != -1) {
		switch (opt) {
		case 'd':
			secs = atoi(optarg);
			break;
		case 'p':
			tgid = atoi(optarg);
			break;
		default:
			show_help(argv[0]);
		}
	}
	if (optind != argc - 1)
		show_help(argv[0]);

	ksyms = ksyms__load();
	if (!ksyms) {
		perror("funcret: /proc/kallsyms");
		return 1;
	}
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf)
		fprintf(stderr, "funcret: no kernel BTF (%s): return values shown as 64-bit\n",
			strerror(errno));
	skel = funcret_bpf__open();
	if (!skel) {
		perror("funcret: open");
		goto cleanup;
	}
	skel->rodata->filter_tgid = tgid;
	skel->rodata->self_tgid = getpid();
	if (funcret_bpf__load(skel)) {
		perror("funcret: load");
		goto cleanup;
	}
	{
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .retprobe = true);

		link = bpf_program__attach_kprobe_multi_opts(skel->progs.funcret_exit,
							     argv[optind], &opts);
	}
	if (!link) {
		fprintf(stderr, "funcret: attach to '%s': %s\n", argv[optind], strerror(errno));
		goto cleanup;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (!rb) {
		perror("funcret: ring buffer");
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	printf("funcret: tracing returns of '%s' for %d s\n", argv[optind], secs);
	printf("%-16s %-7s %-28s   %s\n", "COMM", "PID", "FUNCTION", "RETURN");
	alarm(secs);
	while (!stop) {
		int n = ring_buffer__poll(rb, 100);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "funcret: poll: %s\n", strerror(-n));
			goto cleanup;
		}
	}
	printf("funcret: %lu events, %llu dropped\n", nr_events,
	       (unsigned long long)skel->bss->dropped);
	err = 0;
cleanup:
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	funcret_bpf__destroy(skel);
	ksyms__free(ksyms);
	btf__free(vmlinux_btf);
	return err;
}
