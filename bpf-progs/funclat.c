// SPDX-License-Identifier: GPL-2.0
/*
 * funclat: print the latency, first argument and return value of every
 * call to the kernel functions a glob pattern matches, for a while, then a
 * summary per function.
 *
 *   funclat [-d SECONDS] [-p TGID] [-q] PATTERN
 *
 * It runs one fprobe.multi session program (funclat.bpf.c) with 8 bytes of
 * session data for the entry timestamp and the first argument saved for
 * the exit. -q prints only the summary. Return values are narrowed to the
 * width of the function's BTF return type, as funcret does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "funclat.h"
#include "funclat.skel.h"
#include "ksyms.h"

#define MAX_FUNCS 512

struct func_stat {
	unsigned long ip;
	unsigned long calls;
	unsigned long errors;	/* negative return values */
	unsigned long long total_ns;
	unsigned long long max_ns;
};

static volatile sig_atomic_t stop;
static struct ksyms *ksyms;
static struct btf *vmlinux_btf;
static struct func_stat stats[MAX_FUNCS];
static unsigned long nr_events, nr_untracked;
static int nr_stats;
static int quiet;

static void on_signal(int sig)
{
	stop = 1;
}

static void account(unsigned long ip, long long ret, unsigned long long ns)
{
	struct func_stat *s = NULL;
	int i;

	for (i = 0; i < nr_stats; i++) {
		if (stats[i].ip == ip) {
			s = &stats[i];
			break;
		}
	}
	if (!s) {
		if (nr_stats == MAX_FUNCS) {
			nr_untracked++;
			return;
		}
		s = &stats[nr_stats++];
		s->ip = ip;
	}
	s->calls++;
	s->errors += ret < 0;
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct funclat_event *e = data;
	const char *fn = ksyms__name(ksyms, e->func_ip);
	long long ret = ksyms__ret_value(vmlinux_btf, fn, e->ret);

	if (stop)
		return -EINTR;
	nr_events++;
	account(e->func_ip, ret, e->ns);
	if (quiet)
		return 0;
	if (fn)
		printf("%-16s %-7u %-28s %#18llx = %-6lld %10.3f us\n", e->comm, e->pid, fn,
		       (unsigned long long)e->arg0, ret, e->ns / 1000.0);
	else
		printf("%-16s %-7u %#-28llx %#18llx = %-6lld %10.3f us\n", e->comm, e->pid,
		       (unsigned long long)e->func_ip, (unsigned long long)e->arg0, ret,
		       e->ns / 1000.0);
	return 0;
}

static int stat_cmp(const void *a, const void *b)
{
	const struct func_stat *x = a, *y = b;

	return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : 0;
}

static void print_summary(void)
{
	int i;

	qsort(stats, nr_stats, sizeof(stats[0]), stat_cmp);
	printf("\n%-28s %8s %8s %12s %12s\n", "FUNCTION", "CALLS", "ERRORS", "AVG us", "MAX us");
	for (i = 0; i < nr_stats; i++) {
		const char *fn = ksyms__name(ksyms, stats[i].ip);
		char addr[32];

		if (!fn) {
			snprintf(addr, sizeof(addr), "%#lx", stats[i].ip);
			fn = addr;
		}
		printf("%-28s %8lu %8lu %12.3f %12.3f\n", fn, stats[i].calls, stats[i].errors,
		       stats[i].total_ns / 1000.0 / stats[i].calls, stats[i].max_ns / 1000.0);
	}
	if (nr_untracked)
		printf("(%lu calls of functions past the first %d not summarised)\n",
		       nr_untracked, MAX_FUNCS);
}

static void show_help(const char *prog)
{
	fprintf(stderr, "usage: %s [-d SECONDS] [-p TGID] [-q] PATTERN\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .session = true,
		    .session_size = sizeof(__u64), .saved_args = 1);
	struct ring_buffer *rb = NULL;
	struct bpf_link *link = NULL;
	struct funclat_bpf *skel;
	int opt, secs = 5, tgid = 0, err = 1;

	while ((opt = getopt(argc, argv, "d:p:q")) != -1) {
		switch (opt) {
		case 'd':
			secs = atoi(optarg);
			break;
		case 'p':
			tgid = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			show_help(argv[0]);
		}
	}
	if (optind != argc - 1)
		show_help(argv[0]);

	ksyms = ksyms__load();
	if (!ksyms) {
		perror("funclat: /proc/kallsyms");
		return 1;
	}
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf)
		fprintf(stderr, "funclat: no kernel BTF (%s): return values shown as 64-bit\n",
			strerror(errno));
	skel = funclat_bpf__open();
	if (!skel) {
		perror("funclat: open");
		goto cleanup;
	}
	skel->rodata->filter_tgid = tgid;
	skel->rodata->self_tgid = getpid();
	if (funclat_bpf__load(skel)) {
		perror("funclat: load");
		goto cleanup;
	}
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.funclat, argv[optind], &opts);
	if (!link) {
		fprintf(stderr, "funclat: attach to '%s': %s\n", argv[optind], strerror(errno));
		goto cleanup;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (!rb) {
		perror("funclat: ring buffer");
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	printf("funclat: tracing calls of '%s' for %d s\n", argv[optind], secs);
	if (!quiet)
		printf("%-16s %-7s %-28s %18s   %-6s %13s\n", "COMM", "PID", "FUNCTION", "ARG0",
		       "RETURN", "LATENCY");
	alarm(secs);
	while (!stop) {
		int n = ring_buffer__poll(rb, 100);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "funclat: poll: %s\n", strerror(-n));
			goto cleanup;
		}
	}
	print_summary();
	printf("funclat: %lu events, %llu dropped\n", nr_events,
	       (unsigned long long)skel->bss->dropped);
	err = 0;
cleanup:
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	funclat_bpf__destroy(skel);
	ksyms__free(ksyms);
	btf__free(vmlinux_btf);
	return err;
}
