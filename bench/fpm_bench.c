// SPDX-License-Identifier: GPL-2.0
/*
 * fpm_bench: the guest side of `make bench`.
 *
 *   fpm_bench percall [-r RUNS] [-n CALLS] [-o ROW]
 *   fpm_bench attach [-s N,N,...]          (N = 0: every traceable function)
 *   fpm_bench memory KIND [-t TASKS] [-f FUNCS]
 *
 * percall: bench_driver calls bpf_get_numa_node_id() CALLS times per run
 * (more if that takes under MIN_RUN_NS, so that the timer ticks a run
 * catches are a small share of it), in BENCH_BATCH calls per
 * BPF_PROG_TEST_RUN, with one probe kind attached
 * to it at a time. Each run checks that the probe fired exactly once per
 * call (twice for a session) and reports the guest time it took. Booted
 * with `-icount shift=0`, guest time counts instructions, one per
 * nanosecond, so the figures are instructions per call.
 *
 * attach: time to attach and to detach kretprobe.multi and fprobe.multi
 * (exit) links on N functions drawn evenly from available_filter_functions.
 *
 * memory: kernel memory (slab, vmalloc and per-CPU, from /proc/meminfo)
 * that one link on FUNCS functions costs while TASKS extra tasks sleep.
 * KIND is kretprobe.multi or fprobe.session (6 saved arguments and 64
 * bytes of session data). Run it first in a fresh guest: the shadow
 * stacks the first fgraph user allocates stay until their tasks exit.
 *
 * Every result is one line "bench: {JSON}" on stdout, read on the host by
 * scripts/bench-report.py. The exit status is 1 if any measurement failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "meminfo.h"
#include "bench_trig.skel.h"
#include "bench_fprobe.skel.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN_RUN_NS 50000000ULL
#define TARGET "bpf_get_numa_node_id"
#define AVAILABLE "/sys/kernel/tracing/available_filter_functions"

/* { TARGET }, set by main(): libbpf takes "const char **" */
static const char *target_syms[1];

static int failures;

/*
 * A record is one line of JSON: rec_begin(), then one rec_*() call per
 * field, then rec_end(). Strings are ours or the kernel's symbol names,
 * none with a quote or a backslash.
 */
static void rec_begin(const char *phase)
{
	printf("bench: {\"phase\":\"%s\"", phase);
}

static void rec_str(const char *key, const char *value)
{
	printf(",\"%s\":\"%s\"", key, value);
}

static void rec_int(const char *key, long long value)
{
	printf(",\"%s\":%lld", key, value);
}

static void rec_bool(const char *key, bool value)
{
	printf(",\"%s\":%s", key, value ? "true" : "false");
}

static void rec_end(void)
{
	printf("}\n");
	fflush(stdout);
}

/* An error record, as "error": "WHAT: MESSAGE"; it fails the run. */
static void rec_error(const char *phase, const char *what, const char *fmt, ...)
{
	va_list ap;

	rec_begin(phase);
	printf(",\"error\":\"%s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\"");
	rec_end();
	failures++;
}

static void fail(const char *phase, const char *what, int err)
{
	rec_error(phase, what, "%s", strerror(err));
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct bench_trig_bpf *trig;
static struct bench_fprobe_bpf *fprobe;

static bool fprobe_supported(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, o, .syms = target_syms, .cnt = 1);
	struct bpf_link *link;

	link = bpf_program__attach_fprobe_multi_opts(fprobe->progs.bench_fprobe_entry,
						     NULL, &o);
	bpf_link__destroy(link);
	return link;
}

/* Load both objects; the fprobe one only where the kernel has the link. */
static int load_objects(void)
{
	struct bpf_program *prog;

	trig = bench_trig_bpf__open();
	if (!trig)
		return -errno;
	bpf_object__for_each_program(prog, trig->obj)
		bpf_program__set_autoload(prog, true);
	if (bench_trig_bpf__load(trig))
		return -errno;

	fprobe = bench_fprobe_bpf__open();
	if (!fprobe)
		return -errno;
	bpf_object__for_each_program(prog, fprobe->obj)
		bpf_program__set_autoload(prog, true);
	/*
	 * A kernel without the link may still load the programs (as kprobe
	 * programs with an attach type it ignores), so try an attachment.
	 */
	if (bench_fprobe_bpf__load(fprobe) || !fprobe_supported()) {
		bench_fprobe_bpf__destroy(fprobe);
		fprobe = NULL;
	}
	return 0;
}

static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void info(void)
{
	struct utsname u;

	uname(&u);
	rec_begin("info");
	rec_str("kernel", u.release);
	rec_int("cpus", sysconf(_SC_NPROCESSORS_ONLN));
	rec_bool("fprobe_multi", fprobe);
	rec_end();
}

/* per-call cost */

enum how { NONE, AUTO, KMULTI, FMULTI };

struct row {
	const char *name;
	enum how how;
	const char *prog;
	bool retprobe, session;
	__u32 saved_args, session_size;
	int hits_per_call;
};

static const struct row rows[] = {
	{ "none", NONE, NULL },
	{ "kprobe", AUTO, "bench_kprobe", .hits_per_call = 1 },
	{ "kretprobe", AUTO, "bench_kretprobe", .hits_per_call = 1 },
	{ "kprobe.multi", KMULTI, "bench_kprobe_multi", .hits_per_call = 1 },
	{ "kretprobe.multi", KMULTI, "bench_kretprobe_multi", .retprobe = true,
	  .hits_per_call = 1 },
	{ "kprobe.session", KMULTI, "bench_kprobe_session", .session = true,
	  .hits_per_call = 2 },
	{ "fprobe.multi entry", FMULTI, "bench_fprobe_entry", .hits_per_call = 1 },
	{ "fprobe.multi exit", FMULTI, "bench_fprobe_exit", .retprobe = true,
	  .hits_per_call = 1 },
	{ "fprobe.multi exit +args", FMULTI, "bench_fprobe_exit", .retprobe = true,
	  .saved_args = 6, .hits_per_call = 1 },
	{ "fprobe.multi session", FMULTI, "bench_fprobe_session", .session = true,
	  .hits_per_call = 2 },
	{ "fprobe.multi session +args", FMULTI, "bench_fprobe_session", .session = true,
	  .saved_args = 6, .hits_per_call = 2 },
	{ "fprobe.multi session +data", FMULTI, "bench_fprobe_session", .session = true,
	  .session_size = 64, .hits_per_call = 2 },
	{ "fprobe.multi session +args +data", FMULTI, "bench_fprobe_session",
	  .session = true, .saved_args = 6, .session_size = 64, .hits_per_call = 2 },
	{ "fentry", AUTO, "bench_fentry", .hits_per_call = 1 },
	{ "fexit", AUTO, "bench_fexit", .hits_per_call = 1 },
};

static struct bpf_link *attach_row(const struct row *r)
{
	const char **syms = target_syms;
	struct bpf_program *prog;

	switch (r->how) {
	case AUTO:
		prog = bpf_object__find_program_by_name(trig->obj, r->prog);
		return bpf_program__attach(prog);
	case KMULTI: {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cnt = 1,
			    .retprobe = r->retprobe, .session = r->session);

		prog = bpf_object__find_program_by_name(trig->obj, r->prog);
		return bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	}
	case FMULTI: {
		LIBBPF_OPTS(bpf_fprobe_multi_opts, o, .syms = syms, .cnt = 1,
			    .retprobe = r->retprobe, .session = r->session,
			    .saved_args = r->saved_args, .session_size = r->session_size);

		prog = bpf_object__find_program_by_name(fprobe->obj, r->prog);
		return bpf_program__attach_fprobe_multi_opts(prog, NULL, &o);
	}
	default:
		return NULL;
	}
}

static int drive(int fd, unsigned long rounds)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	unsigned long i;

	for (i = 0; i < rounds; i++) {
		if (bpf_prog_test_run_opts(fd, &topts))
			return -errno;
	}
	return 0;
}

static void run_percall(int runs, unsigned long calls, int only)
{
	int fd = bpf_program__fd(trig->progs.bench_driver);
	unsigned long rounds = calls / BENCH_BATCH;
	unsigned long long t0, t1, h0, h1, want, done;
	volatile __u64 *hits;
	struct bpf_link *link;
	const struct row *r;
	unsigned int i;
	int run, err;

	calls = rounds * BENCH_BATCH;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (only >= 0 && i != (unsigned int)only)
			continue;
		r = &rows[i];
		link = NULL;
		if (r->how == FMULTI && !fprobe) {
			rec_begin("percall");
			rec_str("row", r->name);
			rec_bool("unsupported", true);
			rec_end();
			continue;
		}
		hits = r->how == FMULTI ? &fprobe->bss->hits : &trig->bss->hits;
		if (r->how != NONE) {
			link = attach_row(r);
			if (!link) {
				fail("percall", r->name, errno);
				continue;
			}
		}
		/* warm up caches, the JIT image and the probe's lazy state */
		err = drive(fd, 10);
		for (run = 1; !err && run <= runs; run++) {
			h0 = *hits;
			t0 = now_ns();
			done = 0;
			do {
				err = drive(fd, rounds);
				done += calls;
				t1 = now_ns();
			} while (!err && t1 - t0 < MIN_RUN_NS);
			h1 = *hits;
			if (err)
				break;
			want = done * r->hits_per_call;
			if (h1 - h0 != want) {
				rec_error("percall", r->name,
					  "the probe ran %llu times for %llu calls, want %llu",
					  h1 - h0, done, want);
				break;
			}
			rec_begin("percall");
			rec_str("row", r->name);
			rec_int("run", run);
			rec_int("calls", done);
			rec_int("ns", t1 - t0);
			rec_end();
		}
		if (err)
			fail("percall", r->name, -err);
		bpf_link__destroy(link);
	}
}

/* the traceable functions */

static char **funcs;
static size_t nr_funcs;

static bool skip_function(const char *name)
{
	/*
	 * Idle and RCU's own paths run where RCU may not watch, and BPF's
	 * dispatchers are rewritten while programs attach; the base kernel's
	 * selftests leave them out of their attach-everything test too.
	 */
	static const char * const prefixes[] = {
		"__ftrace_invalid_address__", "rcu_", "__rcu_", "bpf_dispatcher_",
	};
	static const char * const names[] = { "arch_cpu_idle", "default_idle" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* vmlinux functions with a unique name, sorted by name */
static int load_functions(void)
{
	size_t cap = 0, n = 0, i, j;
	char line[512], **all = NULL;
	FILE *f;

	f = fopen(AVAILABLE, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || strchr(line, ' ') || strchr(line, '['))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				return -ENOMEM;
		}
		all[n++] = strdup(line);
	}
	fclose(f);
	qsort(all, n, sizeof(*all), cmp_str);
	funcs = calloc(n, sizeof(*funcs));
	if (!funcs)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(all[i], all[j]); j++)
			;
		if (j == i + 1 && !skip_function(all[i]))
			funcs[nr_funcs++] = all[i];
	}
	return 0;
}

/* @cnt functions spread evenly over the sorted list */
static const char **sample(size_t cnt)
{
	const char **syms = calloc(cnt, sizeof(*syms));
	size_t i;

	for (i = 0; syms && i < cnt; i++)
		syms[i] = funcs[i * nr_funcs / cnt];
	return syms;
}

enum multi { KRETPROBE_MULTI, FPROBE_EXIT, FPROBE_SESSION_FULL };

static const char * const multi_names[] = {
	[KRETPROBE_MULTI] = "kretprobe.multi",
	[FPROBE_EXIT] = "fprobe.multi",
	[FPROBE_SESSION_FULL] = "fprobe.session",
};

static struct bpf_link *attach_many(enum multi kind, const char **syms, size_t cnt)
{
	struct bpf_program *prog;

	switch (kind) {
	case KRETPROBE_MULTI: {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cnt = cnt,
			    .retprobe = true);

		prog = trig->progs.bench_attach_kretprobe_multi;
		return bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	}
	case FPROBE_EXIT: {
		LIBBPF_OPTS(bpf_fprobe_multi_opts, o, .syms = syms, .cnt = cnt,
			    .retprobe = true);

		prog = fprobe->progs.bench_attach_fprobe_multi;
		return bpf_program__attach_fprobe_multi_opts(prog, NULL, &o);
	}
	case FPROBE_SESSION_FULL: {
		LIBBPF_OPTS(bpf_fprobe_multi_opts, o, .syms = syms, .cnt = cnt,
			    .session = true, .saved_args = 6, .session_size = 64);

		prog = fprobe->progs.bench_fprobe_session;
		return bpf_program__attach_fprobe_multi_opts(prog, NULL, &o);
	}
	}
	return NULL;
}

/* the number of functions the kernel reports for @link */
static long link_count(struct bpf_link *link)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &li, &len))
		return -errno;
	if (li.type == BPF_LINK_TYPE_KPROBE_MULTI)
		return li.kprobe_multi.count;
	if (li.type == BPF_LINK_TYPE_FPROBE_MULTI)
		return li.fprobe_multi.count;
	return -EINVAL;
}

static void run_attach(const size_t *sizes, int nr_sizes)
{
	unsigned long long t0, t1, t2;
	struct bpf_link *link;
	const char **syms;
	int i, kind, err;
	size_t cnt;
	long got;

	for (i = 0; i < nr_sizes; i++) {
		cnt = sizes[i] && sizes[i] < nr_funcs ? sizes[i] : nr_funcs;
		syms = sample(cnt);
		if (!syms) {
			fail("attach", "sample", ENOMEM);
			return;
		}
		for (kind = KRETPROBE_MULTI; kind <= FPROBE_EXIT; kind++) {
			if (kind == FPROBE_EXIT && !fprobe) {
				rec_begin("attach");
				rec_str("kind", multi_names[kind]);
				rec_int("n", cnt);
				rec_bool("all", !sizes[i]);
				rec_bool("unsupported", true);
				rec_end();
				continue;
			}
			/* announced first: if the kernel dies, the log says where */
			printf("bench: attaching %s to %zu functions\n", multi_names[kind], cnt);
			fflush(stdout);
			t0 = now_ns();
			link = attach_many(kind, syms, cnt);
			t1 = now_ns();
			if (!link) {
				err = errno;
				rec_error("attach", multi_names[kind], "%zu functions: %s",
					  cnt, strerror(err));
				continue;
			}
			got = link_count(link);
			bpf_link__destroy(link);
			t2 = now_ns();
			if (got != (long)cnt) {
				rec_error("attach", multi_names[kind],
					  "the link holds %ld of %zu functions", got, cnt);
				continue;
			}
			rec_begin("attach");
			rec_str("kind", multi_names[kind]);
			rec_int("n", cnt);
			rec_bool("all", !sizes[i]);
			rec_int("attach_ns", t1 - t0);
			rec_int("detach_ns", t2 - t1);
			rec_end();
		}
		free(syms);
	}
}

/* memory */

static int count_tasks(void)
{
	struct dirent *d, *t;
	char path[300];
	DIR *dir, *tdir;
	int n = 0;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		tdir = opendir(path);
		if (!tdir)
			continue;
		while ((t = readdir(tdir)))
			n += t->d_name[0] >= '0' && t->d_name[0] <= '9';
		closedir(tdir);
	}
	closedir(dir);
	return n;
}

static void run_memory(enum multi kind, int tasks, size_t cnt)
{
	struct meminfo before, after;
	struct bpf_link *link;
	int pipefd[2], i, nr;
	const char **syms;
	pid_t *pids;
	char c;
	long got;

	if (kind != KRETPROBE_MULTI && !fprobe) {
		rec_begin("memory");
		rec_str("kind", multi_names[kind]);
		rec_bool("unsupported", true);
		rec_end();
		return;
	}
	pids = calloc(tasks, sizeof(*pids));
	syms = sample(cnt);
	if (!pids || !syms || pipe(pipefd)) {
		fail("memory", "setup", errno ?: ENOMEM);
		return;
	}
	for (i = 0; i < tasks; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(pipefd[1]);
			/* sleeps until the parent closes the pipe */
			_exit(read(pipefd[0], &c, 1) < 0);
		}
		if (pids[i] < 0) {
			fail("memory", "fork", errno);
			tasks = i;
			break;
		}
	}
	close(pipefd[0]);
	/* let the children reach their read() and RCU settle */
	sleep(1);
	nr = count_tasks();
	if (read_meminfo(&before)) {
		fail("memory", "/proc/meminfo", errno);
		goto out;
	}
	link = attach_many(kind, syms, cnt);
	if (!link) {
		fail("memory", multi_names[kind], errno);
		goto out;
	}
	sleep(1);
	got = link_count(link);
	if (read_meminfo(&after)) {
		fail("memory", "/proc/meminfo", errno);
	} else if (got != (long)cnt) {
		rec_error("memory", multi_names[kind],
			  "the link holds %ld of %zu functions", got, cnt);
	} else {
		rec_begin("memory");
		rec_str("kind", multi_names[kind]);
		rec_int("functions", cnt);
		rec_int("tasks", nr);
		rec_int("extra_tasks", tasks);
		rec_int("cpus", sysconf(_SC_NPROCESSORS_CONF));
		rec_int("slab_kb", after.slab - before.slab);
		rec_int("vmalloc_kb", after.vmalloc - before.vmalloc);
		rec_int("percpu_kb", after.percpu - before.percpu);
		rec_end();
	}
	bpf_link__destroy(link);
out:
	close(pipefd[1]);
	for (i = 0; i < tasks; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
	free(syms);
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: fpm_bench percall [-r RUNS] [-n CALLS] [-o ROW]\n"
		"       fpm_bench attach [-s N,N,...]   (0: every traceable function)\n"
		"       fpm_bench memory kretprobe.multi|fprobe.session [-t TASKS] [-f FUNCS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	size_t sizes[16] = { 1, 100, 1000, 10000, 0 };
	int runs = 3, tasks = 100, nr_sizes = 5, only = -1, opt, err;
	unsigned long calls = 200000, cnt = 1000;
	const char *mode, *kind = NULL;
	char *s, *tok;

	if (argc < 2)
		return print_usage();
	mode = argv[1];
	if (!strcmp(mode, "memory")) {
		if (argc < 3)
			return print_usage();
		kind = argv[2];
		optind = 3;
	} else {
		optind = 2;
	}
	while ((opt = getopt(argc, argv, "r:n:o:s:t:f:")) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'n':
			calls = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			only = atoi(optarg);
			break;
		case 's':
			nr_sizes = 0;
			for (s = optarg; (tok = strtok(s, ",")) && nr_sizes < 16; s = NULL)
				sizes[nr_sizes++] = strtoul(tok, NULL, 0);
			break;
		case 't':
			tasks = atoi(optarg);
			break;
		case 'f':
			cnt = strtoul(optarg, NULL, 0);
			break;
		default:
			return print_usage();
		}
	}
	if (runs < 1 || calls < BENCH_BATCH || tasks < 0 || !cnt ||
	    only >= (int)ARRAY_SIZE(rows))
		return print_usage();

	target_syms[0] = TARGET;
	err = pin_cpu0();
	if (!err)
		err = load_objects();
	if (err) {
		fail("setup", "load the benchmark programs", -err);
		return 1;
	}
	info();
	if (!strcmp(mode, "percall")) {
		run_percall(runs, calls, only);
	} else if (!strcmp(mode, "attach") || !strcmp(mode, "memory")) {
		err = load_functions();
		if (err) {
			fail(mode, AVAILABLE, -err);
			return 1;
		}
		rec_begin("functions");
		rec_int("traceable", nr_funcs);
		rec_end();
		if (!strcmp(mode, "attach"))
			run_attach(sizes, nr_sizes);
		else if (!strcmp(kind, "kretprobe.multi"))
			run_memory(KRETPROBE_MULTI, tasks, cnt);
		else if (!strcmp(kind, "fprobe.session"))
			run_memory(FPROBE_SESSION_FULL, tasks, cnt);
		else
			return print_usage();
	} else {
		return print_usage();
	}
	bench_fprobe_bpf__destroy(fprobe);
	bench_trig_bpf__destroy(trig);
	return failures ? 1 : 0;
}
