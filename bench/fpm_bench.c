// SPDX-License-Identifier: GPL-2.0
/*
 * fpm_bench: the guest side of `make bench`.
 *
 *   fpm_bench percall [-r RUNS] [-n CALLS] [-o ROW]
 *   fpm_bench attach [-s N,N,...] [-o KIND] (N = 0: every traceable function;
 *                                          KIND 0, 1 or 2: only kretprobe.multi,
 *                                          fprobe.multi or fprobe.multi +args,
 *                                          for a profile)
 *   fpm_bench memory KIND [-t TASKS] [-f FUNCS]
 *   fpm_bench fptrace [-r RUNS] [-n CALLS] [-f FUNCS]
 *
 * percall: bench_driver calls bpf_get_numa_node_id() CALLS times per run
 * (more if that takes under MIN_RUN_NS, so that the timer ticks a run
 * catches are a small share of it), in BENCH_BATCH calls per
 * BPF_PROG_TEST_RUN, with one probe kind attached
 * to it at a time. Each run checks that the probe fired exactly once per
 * call (twice for a session) and reports the guest time it took. Booted
 * with `-icount shift=0`, guest time counts instructions, one per
 * nanosecond, so the figures are instructions per call. A row that this
 * build's libbpf or the kernel cannot attach prints an "unsupported"
 * record instead: the fprobe.multi rows need the series, and the last
 * three, mainline's trampoline peers of our links from 7.3 on (fsession,
 * and tracing_multi links in fexit and fsession mode), need libbpf 1.8
 * and a kernel whose BTF has their attach types. Their object
 * (progs/bench_tmulti.bpf.c) is loaded for its row only, with that row's
 * program only, so that it cannot fail any other row.
 *
 * attach: time to attach and to detach kretprobe.multi and fprobe.multi
 * (exit) links on N functions drawn evenly from available_filter_functions.
 * "fprobe.multi +args" is an fprobe.multi link whose program reads the
 * argument count, for which the link looks the counts up in BTF.
 *
 * memory: kernel memory (slab, vmalloc and per-CPU, from /proc/meminfo)
 * that one link on FUNCS functions costs while TASKS extra tasks sleep.
 * KIND is kretprobe.multi or fprobe.session (6 saved arguments and 64
 * bytes of session data), or kretprobe: FUNCS classic kretprobes, perf
 * events with the default maxactive, one link each. Run it first in a fresh guest: the shadow
 * stacks the first fgraph user allocates stay until their tasks exit.
 *
 * fptrace: per-call cost, as percall measures it, of /bin/fptrace running
 * `fprobe:T { @ = count(); }` and the session `fprobe:T { } fretprobe:T
 * { @ = hist(latency); }` on T = bpf_get_numa_node_id in the background,
 * and of the hand-written C programs that do the same
 * (progs/bench_fptrace.bpf.c). Each run checks that the probe's map
 * counted every call; fptrace, stopped with SIGINT, must print the count
 * of every call made. Then fptrace's start-up: from its fork and exec on a
 * script of FUNCS (1,000) functions, drawn as attach draws them, to the
 * "Attaching" line and to its link attached; and the size of its binary.
 *
 * Every result is one line "bench: {JSON}" on stdout, read on the host by
 * scripts/bench-report.py. The exit status is 1 if any measurement failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "meminfo.h"
#include "bench_trig.skel.h"
#include "bench_fprobe.skel.h"
#include "bench_fptrace.skel.h"
#include "bench_tmulti.skel.h"

/*
 * The series' uapi header, copied beside its libbpf's headers, defines
 * BPF_FPROBE_MULTI_ARGS_MAX with the fprobe.multi link, whose libbpf API
 * a tree without the series (the 7.3 base, for now) lacks.
 */
#ifdef BPF_FPROBE_MULTI_ARGS_MAX
#define HAVE_FPROBE_MULTI 1
#else
#define HAVE_FPROBE_MULTI 0
#endif
/* fsession and tracing_multi links: libbpf 1.8, from 7.3 (6.12 has 1.5) */
#if LIBBPF_MAJOR_VERSION > 1 || (LIBBPF_MAJOR_VERSION == 1 && LIBBPF_MINOR_VERSION >= 8)
#define HAVE_TRACING_MULTI 1
#else
#define HAVE_TRACING_MULTI 0
#endif

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

/* The options of an fprobe.multi link */
struct fprobe_how {
	bool retprobe, session;
	__u32 saved_args, session_size;
};

#if HAVE_FPROBE_MULTI
static struct bpf_link *attach_fprobe(const struct bpf_program *prog, const char **syms,
				      size_t cnt, const struct fprobe_how *h)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, o, .syms = syms, .cnt = cnt,
		    .retprobe = h->retprobe, .session = h->session,
		    .saved_args = h->saved_args, .session_size = h->session_size);

	return bpf_program__attach_fprobe_multi_opts(prog, NULL, &o);
}

/* Whether @li is an fprobe.multi link's; its function count in @cnt. */
static bool fprobe_link_count(const struct bpf_link_info *li, long *cnt)
{
	if (li->type != BPF_LINK_TYPE_FPROBE_MULTI)
		return false;
	*cnt = li->fprobe_multi.count;
	return true;
}
#else
static struct bpf_link *attach_fprobe(const struct bpf_program *prog, const char **syms,
				      size_t cnt, const struct fprobe_how *h)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static bool fprobe_link_count(const struct bpf_link_info *li, long *cnt)
{
	return false;
}
#endif

static bool fprobe_supported(void)
{
	const struct fprobe_how entry = {};
	struct bpf_link *link;

	link = attach_fprobe(fprobe->progs.bench_fprobe_entry, target_syms, 1, &entry);
	bpf_link__destroy(link);
	return link;
}

/*
 * Load bench_trig, and bench_fprobe where libbpf and the kernel have the
 * link. bench_tmulti waits for its rows: tmulti_row().
 */
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

	if (!HAVE_FPROBE_MULTI)
		return 0;
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

static struct btf *kernel_btf;

/*
 * Whether the running kernel has attach type @name (an enumerator of its
 * enum bpf_attach_type, as its BTF spells it): 1 or 0, or -errno when its
 * BTF cannot be read. The uapi header this was built with may be older or
 * newer than the kernel, so the kernel's BTF tells, by name.
 */
static int kernel_has_attach_type(const char *name)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i;

	if (!kernel_btf)
		kernel_btf = btf__load_vmlinux_btf();
	if (!kernel_btf)
		return -errno;
	id = btf__find_by_name_kind(kernel_btf, "bpf_attach_type", BTF_KIND_ENUM);
	if (id < 0)
		return id;
	t = btf__type_by_id(kernel_btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(kernel_btf, e->name_off), name))
			return 1;
	return 0;
}

/* Whether this build can attach @name's links and the kernel has them. */
static bool tmulti_supported(const char *name)
{
	return HAVE_TRACING_MULTI && kernel_has_attach_type(name) > 0;
}

static void info(void)
{
	struct utsname u;

	uname(&u);
	rec_begin("info");
	rec_str("kernel", u.release);
	rec_int("cpus", sysconf(_SC_NPROCESSORS_ONLN));
	rec_bool("fprobe_multi", fprobe);
	rec_bool("fsession", tmulti_supported("BPF_TRACE_FSESSION"));
	rec_bool("tracing_multi", tmulti_supported("BPF_TRACE_FEXIT_MULTI"));
	rec_end();
}

/* per-call cost */

/*
 * AUTO: a bench_trig program attached by its section; KMULTI, FMULTI: a
 * kprobe.multi or fprobe.multi link. TAUTO: a bench_tmulti program
 * attached by its section; TMULTI: one on a tracing_multi link.
 */
enum how { NONE, AUTO, KMULTI, FMULTI, TAUTO, TMULTI };

struct row {
	const char *name;
	enum how how;
	const char *prog;
	bool retprobe, session;
	__u32 saved_args, session_size;
	int hits_per_call;
	/* TAUTO and TMULTI: the attach type that the kernel must have */
	const char *attach_type;
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
	/* the program's section sets the mode: a session runs at entry and exit */
	{ "fsession", TAUTO, "bench_fsession", .hits_per_call = 2,
	  .attach_type = "BPF_TRACE_FSESSION" },
	{ "fexit.multi", TMULTI, "bench_fexit_multi", .hits_per_call = 1,
	  .attach_type = "BPF_TRACE_FEXIT_MULTI" },
	{ "fsession.multi", TMULTI, "bench_fsession_multi", .hits_per_call = 2,
	  .attach_type = "BPF_TRACE_FSESSION_MULTI" },
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
		const struct fprobe_how h = {
			.retprobe = r->retprobe, .session = r->session,
			.saved_args = r->saved_args, .session_size = r->session_size,
		};

		prog = bpf_object__find_program_by_name(fprobe->obj, r->prog);
		return attach_fprobe(prog, syms, 1, &h);
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

static unsigned long long read_hits(void *arg)
{
	return *(volatile __u64 *)arg;
}

/*
 * Drive the target for row @name: 10 warm-up test runs (caches, the JIT
 * image, the probe's lazy state), then @runs runs of at least @calls calls
 * and MIN_RUN_NS each, one "percall" record a run. Each run checks that
 * hits(@arg) grew by exactly @per_call a call. Returns the calls made,
 * warm-up included, or 0 after an error record.
 */
static unsigned long long measure(const char *name, int runs, unsigned long calls,
				  unsigned long long (*hits)(void *), void *arg, int per_call)
{
	int fd = bpf_program__fd(trig->progs.bench_driver);
	unsigned long rounds = calls / BENCH_BATCH;
	unsigned long long t0, t1, h0, h1, want, done, total;
	int run, err;

	calls = rounds * BENCH_BATCH;
	err = drive(fd, 10);
	total = 10 * BENCH_BATCH;
	for (run = 1; !err && run <= runs; run++) {
		h0 = hits(arg);
		t0 = now_ns();
		done = 0;
		do {
			err = drive(fd, rounds);
			done += calls;
			t1 = now_ns();
		} while (!err && t1 - t0 < MIN_RUN_NS);
		h1 = hits(arg);
		if (err)
			break;
		total += done;
		want = done * per_call;
		if (h1 - h0 != want) {
			rec_error("percall", name,
				  "the probe ran %llu times for %llu calls, want %llu",
				  h1 - h0, done, want);
			return 0;
		}
		rec_begin("percall");
		rec_str("row", name);
		rec_int("run", run);
		rec_int("calls", done);
		rec_int("ns", t1 - t0);
		rec_end();
	}
	if (err) {
		fail("percall", name, -err);
		return 0;
	}
	return total;
}

static void rec_unsupported(const char *row)
{
	rec_begin("percall");
	rec_str("row", row);
	rec_bool("unsupported", true);
	rec_end();
}

/* A row of bench_trig or bench_fprobe, both loaded by load_objects(). */
static void probe_row(const struct row *r, int runs, unsigned long calls)
{
	struct bpf_link *link = NULL;
	volatile __u64 *hits;

	if (r->how == FMULTI && !fprobe) {
		rec_unsupported(r->name);
		return;
	}
	hits = r->how == FMULTI ? &fprobe->bss->hits : &trig->bss->hits;
	if (r->how != NONE) {
		link = attach_row(r);
		if (!link) {
			fail("percall", r->name, errno);
			return;
		}
	}
	measure(r->name, runs, calls, read_hits, (void *)hits, r->hits_per_call);
	bpf_link__destroy(link);
}

#if HAVE_TRACING_MULTI
static struct bpf_link *attach_tmulti(const struct row *r, struct bpf_program *prog)
{
	if (r->how == TAUTO)
		return bpf_program__attach(prog);
	/* a pattern without wildcards: the one function of that name */
	return bpf_program__attach_tracing_multi(prog, TARGET, NULL);
}

/*
 * A row of bench_tmulti: the object opened and loaded for this row, with
 * its program only, and closed after it.
 */
static void tmulti_row(const struct row *r, int runs, unsigned long calls)
{
	struct bench_tmulti_bpf *obj;
	struct bpf_program *prog;
	struct bpf_link *link;

	obj = bench_tmulti_bpf__open();
	if (!obj) {
		rec_error("percall", r->name, "open bench_tmulti: %s", strerror(errno));
		return;
	}
	prog = bpf_object__find_program_by_name(obj->obj, r->prog);
	if (!prog || bpf_program__set_autoload(prog, true) || bench_tmulti_bpf__load(obj)) {
		rec_error("percall", r->name, "load %s: %s", r->prog, strerror(errno));
		goto out;
	}
	link = attach_tmulti(r, prog);
	if (!link) {
		rec_error("percall", r->name, "attach %s: %s", r->prog, strerror(errno));
		goto out;
	}
	measure(r->name, runs, calls, read_hits, (void *)&obj->bss->hits, r->hits_per_call);
	bpf_link__destroy(link);
out:
	bench_tmulti_bpf__destroy(obj);
}
#else
/* never called: run_percall() reports these rows as unsupported */
static void tmulti_row(const struct row *r, int runs, unsigned long calls)
{
}
#endif

static void run_percall(int runs, unsigned long calls, int only)
{
	const struct row *r;
	unsigned int i;
	int has;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (only >= 0 && i != (unsigned int)only)
			continue;
		r = &rows[i];
		if (r->how != TAUTO && r->how != TMULTI) {
			probe_row(r, runs, calls);
			continue;
		}
		has = HAVE_TRACING_MULTI ? kernel_has_attach_type(r->attach_type) : 0;
		if (has < 0)
			rec_error("percall", r->name, "the kernel's BTF: %s", strerror(-has));
		else if (!has)
			rec_unsupported(r->name);
		else
			tmulti_row(r, runs, calls);
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

enum multi { KRETPROBE_MULTI, FPROBE_EXIT, FPROBE_ARGS, FPROBE_SESSION_FULL, KRETPROBE };

static const char * const multi_names[] = {
	[KRETPROBE_MULTI] = "kretprobe.multi",
	[FPROBE_EXIT] = "fprobe.multi",
	[FPROBE_ARGS] = "fprobe.multi +args",
	[FPROBE_SESSION_FULL] = "fprobe.session",
	[KRETPROBE] = "kretprobe",
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
	case FPROBE_EXIT:
		return attach_fprobe(fprobe->progs.bench_attach_fprobe_multi, syms, cnt,
				     &(struct fprobe_how){ .retprobe = true });
	case FPROBE_ARGS:
		return attach_fprobe(fprobe->progs.bench_attach_fprobe_args, syms, cnt,
				     &(struct fprobe_how){ .retprobe = true });
	case FPROBE_SESSION_FULL:
		return attach_fprobe(fprobe->progs.bench_fprobe_session, syms, cnt,
				     &(struct fprobe_how){ .session = true, .saved_args = 6,
							   .session_size = 64 });
	case KRETPROBE:		/* a link per function: attach_classic() */
		break;
	}
	errno = EINVAL;
	return NULL;
}

/* the number of functions the kernel reports for @link */
static long link_count(struct bpf_link *link)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);
	long cnt;

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &li, &len))
		return -errno;
	if (li.type == BPF_LINK_TYPE_KPROBE_MULTI)
		return li.kprobe_multi.count;
	if (fprobe_link_count(&li, &cnt))
		return cnt;
	return -EINVAL;
}

/* @only: the one kind to attach (for a profile of it), or -1 for both */
static void run_attach(const size_t *sizes, int nr_sizes, int only)
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
		for (kind = KRETPROBE_MULTI; kind <= FPROBE_ARGS; kind++) {
			if (only >= 0 && kind != only)
				continue;
			if (kind != KRETPROBE_MULTI && !fprobe) {
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

/*
 * Classic kretprobes (perf events, default maxactive) on @syms, one link
 * each, into @links: how many attached. A function that kprobes refuse
 * (its blacklist) is skipped; a given sample skips the same on both
 * kernels.
 */
static size_t attach_classic(const char **syms, size_t cnt, struct bpf_link **links)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = true);
	struct bpf_link *link;
	size_t i, n = 0;

	for (i = 0; i < cnt; i++) {
		link = bpf_program__attach_kprobe_opts(trig->progs.bench_kretprobe, syms[i], &o);
		if (!libbpf_get_error(link))
			links[n++] = link;
	}
	return n;
}

/* Attach @kind to @cnt functions of @syms: the links, *@nr of them */
static struct bpf_link **attach_memory(enum multi kind, const char **syms, size_t cnt,
				       size_t *nr)
{
	struct bpf_link **links = calloc(cnt, sizeof(*links));

	/* a perf event and a link per kretprobe: more fds than the default limit */
	struct rlimit fds = { .rlim_cur = 2 * cnt + 256, .rlim_max = 2 * cnt + 256 };

	if (!links)
		return NULL;
	if (kind == KRETPROBE) {
		if (setrlimit(RLIMIT_NOFILE, &fds)) {
			free(links);
			return NULL;
		}
		*nr = attach_classic(syms, cnt, links);
		if (*nr)
			return links;
	} else {
		links[0] = attach_many(kind, syms, cnt);
		*nr = 1;
		if (links[0])
			return links;
	}
	free(links);
	return NULL;
}

static void detach_memory(struct bpf_link **links, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		bpf_link__destroy(links[i]);
	free(links);
}

/*
 * Start @n children into @pids, each asleep in read() until @pipefd's write
 * end is closed: how many were started. They exec a reader (busybox cat)
 * so that they carry none of this process's mappings, which differ with
 * the kernel: the fprobe.multi object is loaded only where it has the link,
 * and each child's copy of its mapping would count as the kernel's cost.
 */
static int fork_sleepers(pid_t *pids, int n, int pipefd[2])
{
	static const char * const argv[] = { "cat", NULL };
	posix_spawn_file_actions_t fa;
	int i, err = 0;

	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_adddup2(&fa, pipefd[0], 0) ||
	    posix_spawn_file_actions_addclose(&fa, pipefd[1])) {
		fail("memory", "spawn", ENOMEM);
		return 0;
	}
	for (i = 0; i < n && !err; i++)
		err = posix_spawn(&pids[i], "/bin/busybox", &fa, NULL,
				  (char * const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (!err)
		return n;
	fail("memory", "spawn", err);
	return i - 1;
}

/*
 * The memory of one link on @cnt functions, with @tasks sleeping tasks
 * forked before it; then what @tasks more forked after it cost, once
 * settled (FORK_SETTLE_S): fgraph frees what their forks added to its
 * pool a second after the last fork, and takes back the stacks of tasks
 * it sees asleep, with nothing on their shadow stack, twice, seconds
 * apart. On the base kernel the second figure is what a fork costs anyway.
 */
#define FORK_SETTLE_S 6

static void run_memory(enum multi kind, int tasks, size_t cnt)
{
	struct meminfo before, after, forked;
	int pipefd[2], nr, old = 0, young = 0;
	struct bpf_link **links;
	const char **syms;
	size_t nr_links;
	pid_t *pids;
	long got;
	int i;

	/* the base kernel has the kprobe links, not the fprobe.multi ones */
	if (kind != KRETPROBE_MULTI && kind != KRETPROBE && !fprobe) {
		rec_begin("memory");
		rec_str("kind", multi_names[kind]);
		rec_bool("unsupported", true);
		rec_end();
		return;
	}
	pids = calloc(2 * tasks, sizeof(*pids));
	syms = sample(cnt);
	if (!pids || !syms || pipe(pipefd)) {
		fail("memory", "setup", errno ?: ENOMEM);
		goto out_free;
	}
	old = fork_sleepers(pids, tasks, pipefd);
	/* let the children reach their read() and RCU settle */
	sleep(1);
	nr = count_tasks();
	if (read_meminfo(&before)) {
		fail("memory", "/proc/meminfo", errno);
		goto out;
	}
	links = attach_memory(kind, syms, cnt, &nr_links);
	if (!links) {
		fail("memory", multi_names[kind], errno);
		goto out;
	}
	sleep(1);
	/* the classic kretprobes: those that attached, one link each */
	got = kind == KRETPROBE ? (long)nr_links : link_count(links[0]);
	if (kind == KRETPROBE)
		cnt = nr_links;
	if (read_meminfo(&after)) {
		fail("memory", "/proc/meminfo", errno);
		goto detach;
	}
	young = fork_sleepers(pids + old, tasks, pipefd);
	sleep(FORK_SETTLE_S);
	if (read_meminfo(&forked)) {
		fail("memory", "/proc/meminfo", errno);
	} else if (got != (long)cnt) {
		rec_error("memory", multi_names[kind],
			  "the link holds %ld of %zu functions", got, cnt);
	} else {
		rec_begin("memory");
		rec_str("kind", multi_names[kind]);
		rec_int("functions", cnt);
		rec_int("tasks", nr);
		rec_int("extra_tasks", old);
		rec_int("cpus", sysconf(_SC_NPROCESSORS_CONF));
		rec_int("slab_kb", after.slab - before.slab);
		rec_int("vmalloc_kb", after.vmalloc - before.vmalloc);
		rec_int("percpu_kb", after.percpu - before.percpu);
		rec_int("forked_tasks", young);
		rec_int("forked_slab_kb", forked.slab - after.slab);
		rec_int("forked_vmalloc_kb", forked.vmalloc - after.vmalloc);
		rec_int("forked_percpu_kb", forked.percpu - after.percpu);
		rec_end();
	}
detach:
	detach_memory(links, nr_links);
out:
	close(pipefd[0]);
	close(pipefd[1]);
	for (i = 0; i < old + young; i++)
		waitpid(pids[i], NULL, 0);
out_free:
	free(pids);
	free(syms);
}

/* fptrace against hand-written programs */

#define FPTRACE "/bin/fptrace"
#define FPT_ERR "/tmp/fpm_bench_fptrace.err"
#define FPT_SCRIPT "/tmp/fpm_bench_fptrace.bt"
#define FPT_COUNT "fprobe:" TARGET " { @ = count(); }"
#define FPT_HIST "fprobe:" TARGET " { } fretprobe:" TARGET " { @ = hist(latency); }"

static struct bench_fptrace_bpf *hand;

/* A running fptrace: its pid and what it printed so far. */
struct fpt_run {
	pid_t pid;
	int out;
	size_t len;
	char buf[65536];
};

static struct fpt_run fpt;

/* Start fptrace with argv: stdout on a pipe, stderr in FPT_ERR. */
static int fpt_spawn(struct fpt_run *f, char *const argv[])
{
	int p[2], e;

	if (pipe(p))
		return -errno;
	f->len = 0;
	f->buf[0] = 0;
	f->pid = fork();
	if (f->pid < 0)
		return -errno;
	if (!f->pid) {
		e = open(FPT_ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (e < 0 || dup2(p[1], 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		close(p[0]);
		close(p[1]);
		execv(FPTRACE, argv);
		_exit(127);
	}
	close(p[1]);
	f->out = p[0];
	return 0;
}

/* Read its stdout until it holds s (NULL: to the end); false if it never does. */
static bool fpt_read(struct fpt_run *f, const char *s)
{
	ssize_t n;

	while (!s || !strstr(f->buf, s)) {
		if (f->len + 1 >= sizeof(f->buf))
			return false;
		n = read(f->out, f->buf + f->len, sizeof(f->buf) - 1 - f->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return !s;
		f->len += n;
		f->buf[f->len] = 0;
	}
	return true;
}

/* s made fit for a JSON string: quotes, backslashes and controls as '. */
static char *json_safe(char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < ' ')
			s[i] = '\'';
	return s;
}

/* Its stderr, for error records: the first 200 bytes, made safe. */
static const char *fpt_stderr(void)
{
	static char text[200];
	size_t n = 0;
	FILE *e;

	e = fopen(FPT_ERR, "r");
	if (e) {
		n = fread(text, 1, sizeof(text) - 1, e);
		fclose(e);
	}
	text[n] = 0;
	return json_safe(text);
}

/* Its stdout so far, for error records: the first 200 bytes, made safe. */
static const char *fpt_stdout(void)
{
	static char text[200];

	snprintf(text, sizeof(text), "%.199s", fpt.buf);
	return json_safe(text);
}

/* SIGINT it (unless it ended), read the rest, reap it; its exit status. */
static int fpt_stop(struct fpt_run *f)
{
	int status = -1;

	if (f->pid <= 0)
		return -1;
	kill(f->pid, SIGINT);
	fpt_read(f, NULL);
	close(f->out);
	waitpid(f->pid, &status, 0);
	f->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* An fprobe.multi link's fd, its program's id and its function count. */
static int find_fprobe_link(__u32 *prog_id, long *cnt)
{
	struct bpf_link_info li;
	__u32 id = 0, len;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		len = sizeof(li);
		if (!bpf_link_get_info_by_fd(fd, &li, &len) && fprobe_link_count(&li, cnt)) {
			*prog_id = li.prog_id;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/*
 * Wait until fptrace has attached its link, looking every poll_us for 60
 * seconds: the link's fd, or -ECHILD when fptrace ended first.
 */
static int fpt_wait_link(struct fpt_run *f, unsigned int poll_us, __u32 *prog_id, long *cnt)
{
	unsigned long long end = now_ns() + 60000000000ULL;
	int fd, status;

	do {
		fd = find_fprobe_link(prog_id, cnt);
		if (fd >= 0)
			return fd;
		if (waitpid(f->pid, &status, WNOHANG) == f->pid) {
			f->pid = 0;
			return -ECHILD;
		}
		usleep(poll_us);
	} while (now_ns() < end);
	return -ETIMEDOUT;
}

/* The fd of map @name of program @prog_id, with 8-byte values. */
static int prog_map(__u32 prog_id, const char *name)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	__u32 ids[8], len, i;
	int pfd, fd = -ENOENT, m;

	pfd = bpf_prog_get_fd_by_id(prog_id);
	if (pfd < 0)
		return -errno;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = ARRAY_SIZE(ids);
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_prog_get_info_by_fd(pfd, &pi, &len))
		fd = -errno;
	for (i = 0; fd == -ENOENT && i < pi.nr_map_ids && i < ARRAY_SIZE(ids); i++) {
		m = bpf_map_get_fd_by_id(ids[i]);
		if (m < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_map_get_info_by_fd(m, &mi, &len) && !strcmp(mi.name, name) &&
		    mi.value_size == 8)
			fd = m;
		else
			close(m);
	}
	close(pfd);
	return fd;
}

/*
 * The sum over every key and CPU of a per-CPU map of u64 values: the
 * events a count() map or a histogram holds.
 */
static unsigned long long map_sum(void *arg)
{
	int fd = *(int *)arg, ncpus = libbpf_num_possible_cpus(), c, err;
	unsigned char key[64], next[64];
	unsigned long long sum = 0;
	__u64 *vals;

	if (ncpus < 1)
		return 0;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return 0;
	err = bpf_map_get_next_key(fd, NULL, next);
	while (!err) {
		if (!bpf_map_lookup_elem(fd, next, vals))
			for (c = 0; c < ncpus; c++)
				sum += vals[c];
		memcpy(key, next, sizeof(key));
		err = bpf_map_get_next_key(fd, key, next);
	}
	free(vals);
	return sum;
}

/* The events of a printed hist: the counts of its "[lo, hi) N |...|" lines. */
static unsigned long long hist_total(const char *s)
{
	unsigned long long total = 0, n;
	char label[32];

	while ((s = strchr(s, '\n')) && sscanf(++s, "%31[^ ] %*[^ ] %llu |", label, &n) == 2)
		total += n;
	return total;
}

/*
 * One fptrace row: run @script in the background, measure the target's
 * calls while its link is attached (each run checked against its map),
 * then SIGINT it and check that what it prints counts every call made.
 */
static void fptrace_row(const char *name, const char *script, bool hist, int runs,
			unsigned long calls)
{
	char *const argv[] = { "fptrace", "-e", (char *)script, NULL };
	unsigned long long total, got;
	int lfd = -1, mfd = -1, status, err;
	__u32 prog_id = 0;
	char want[64];
	long cnt = 0;

	err = fpt_spawn(&fpt, argv);
	if (err) {
		fail("percall", name, -err);
		return;
	}
	if (!fpt_read(&fpt, "...\n")) {
		status = fpt_stop(&fpt);
		rec_error("percall", name, "fptrace exited with %d: %s", status, fpt_stderr());
		return;
	}
	lfd = fpt_wait_link(&fpt, 10000, &prog_id, &cnt);
	if (lfd < 0) {
		status = fpt_stop(&fpt);
		rec_error("percall", name, "no link (%s); fptrace exited with %d: %s",
			  strerror(-lfd), status, fpt_stderr());
		return;
	}
	mfd = prog_map(prog_id, "fpt_");
	if (mfd < 0 || cnt != 1) {
		rec_error("percall", name, "fptrace's link: %ld functions, map @: %s",
			  cnt, strerror(mfd < 0 ? -mfd : 0));
		fpt_stop(&fpt);
		goto out;
	}
	total = measure(name, runs, calls, map_sum, &mfd, 1);
	got = map_sum(&mfd);
	status = fpt_stop(&fpt);
	if (!total)
		goto out;
	if (status || fpt_stderr()[0]) {
		rec_error("percall", name, "fptrace exited with %d: %s", status, fpt_stderr());
		goto out;
	}
	if (got != total) {
		rec_error("percall", name, "fptrace's map counts %llu of %llu calls", got, total);
		goto out;
	}
	if (!hist) {
		snprintf(want, sizeof(want), "Attaching 1 probe...\n\n\n@: %llu\n", total);
		if (strcmp(fpt.buf, want))
			rec_error("percall", name, "fptrace printed '%s', want @: %llu",
				  fpt_stdout(), total);
		goto out;
	}
	/* a session's entry and exit count as two probes, as in bpftrace */
	if (strncmp(fpt.buf, "Attaching 2 probes...\n\n\n@:\x20\n", 28)) {
		rec_error("percall", name, "fptrace printed no histogram @: '%s'",
			  fpt_stdout());
		goto out;
	}
	got = hist_total(fpt.buf + 27);
	if (got != total)
		rec_error("percall", name, "fptrace's histogram counts %llu of %llu calls",
			  got, total);
out:
	if (mfd >= 0)
		close(mfd);
	close(lfd);
}

/* One hand-written row: its program attached, its map summed. */
static void hand_row(const char *name, struct bpf_program *prog, struct bpf_map *map,
		     bool session, int runs, unsigned long calls)
{
	const struct fprobe_how h = { .session = session, .session_size = session ? 8 : 0 };
	unsigned long long total;
	struct bpf_link *link;
	int mfd = bpf_map__fd(map);

	link = attach_fprobe(prog, target_syms, 1, &h);
	if (!link) {
		fail("percall", name, errno);
		return;
	}
	total = measure(name, runs, calls, map_sum, &mfd, 1);
	if (total && map_sum(&mfd) != total)
		rec_error("percall", name, "the map counts %llu of %llu calls",
			  map_sum(&mfd), total);
	bpf_link__destroy(link);
}

/*
 * Start-up: from the fork and exec of fptrace on a script of @cnt
 * functions to its link attached; the "Attaching" line comes after the
 * script is compiled and its programs loaded, just before the link.
 */
static void fptrace_startup(size_t cnt)
{
	char *const argv[] = { "fptrace", FPT_SCRIPT, NULL };
	unsigned long long t0, t1, t2;
	const char **syms;
	struct stat st;
	char want[64];
	int lfd, status;
	__u32 prog_id;
	long got = 0;
	size_t i;
	FILE *f;

	if (cnt > nr_funcs)
		cnt = nr_funcs;
	syms = sample(cnt);
	f = fopen(FPT_SCRIPT, "w");
	if (!syms || !f) {
		fail("fptrace_startup", FPT_SCRIPT, errno ?: ENOMEM);
		return;
	}
	for (i = 0; i < cnt; i++)
		fprintf(f, "%sfprobe:%s", i ? ",\n" : "", syms[i]);
	fprintf(f, "\n{ @ = count(); }\n");
	fclose(f);
	free(syms);

	t0 = now_ns();
	if (fpt_spawn(&fpt, argv)) {
		fail("fptrace_startup", "fork", errno);
		return;
	}
	snprintf(want, sizeof(want), "Attaching %zu probes...\n", cnt);
	if (!fpt_read(&fpt, "...\n")) {
		status = fpt_stop(&fpt);
		rec_error("fptrace_startup", "fptrace", "exited with %d: %s", status,
			  fpt_stderr());
		return;
	}
	t1 = now_ns();
	lfd = fpt_wait_link(&fpt, 500, &prog_id, &got);
	t2 = now_ns();
	status = fpt_stop(&fpt);
	if (lfd < 0) {
		rec_error("fptrace_startup", "fptrace", "no link (%s); exited with %d: %s",
			  strerror(-lfd), status, fpt_stderr());
		return;
	}
	close(lfd);
	if (got != (long)cnt || strncmp(fpt.buf, want, strlen(want)) || status) {
		rec_error("fptrace_startup", "fptrace",
			  "the link holds %ld of %zu functions; exit status %d: %s",
			  got, cnt, status, fpt_stderr());
		return;
	}
	rec_begin("fptrace_startup");
	rec_int("functions", cnt);
	rec_int("compiled_ns", t1 - t0);
	rec_int("attached_ns", t2 - t0);
	rec_int("binary_bytes", stat(FPTRACE, &st) ? -1 : st.st_size);
	rec_end();
}

static void run_fptrace(int runs, unsigned long calls, size_t cnt)
{
	struct bpf_program *prog;

	if (!fprobe || access(FPTRACE, X_OK)) {
		rec_begin("fptrace");
		rec_bool("unsupported", true);
		rec_end();
		return;
	}
	hand = bench_fptrace_bpf__open();
	if (hand) {
		bpf_object__for_each_program(prog, hand->obj)
			bpf_program__set_autoload(prog, true);
	}
	if (!hand || bench_fptrace_bpf__load(hand)) {
		fail("fptrace", "load the hand-written programs", errno);
		bench_fptrace_bpf__destroy(hand);
		return;
	}
	fptrace_row("fptrace count()", FPT_COUNT, false, runs, calls);
	hand_row("hand-written count()", hand->progs.hand_count, hand->maps.hand_count_map,
		 false, runs, calls);
	fptrace_row("fptrace hist(latency)", FPT_HIST, true, runs, calls);
	hand_row("hand-written hist(latency)", hand->progs.hand_hist, hand->maps.hand_hist_map,
		 true, runs, calls);
	bench_fptrace_bpf__destroy(hand);
	fptrace_startup(cnt);
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: fpm_bench percall [-r RUNS] [-n CALLS] [-o ROW]\n"
		"       fpm_bench attach [-s N,N,...] [-o KIND]\n"
		"                (N = 0: every traceable function; KIND 0: kretprobe.multi only,\n"
		"                 1: fprobe.multi only, 2: fprobe.multi +args only)\n"
		"       fpm_bench fptrace [-r RUNS] [-n CALLS] [-f FUNCS]\n"
		"       fpm_bench memory kretprobe.multi|fprobe.session|kretprobe [-t TASKS] [-f FUNCS]\n");
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
	} else if (!strcmp(mode, "attach") || !strcmp(mode, "memory") ||
		   !strcmp(mode, "fptrace")) {
		err = load_functions();
		if (err) {
			fail(mode, AVAILABLE, -err);
			return 1;
		}
		rec_begin("functions");
		rec_int("traceable", nr_funcs);
		rec_end();
		if (!strcmp(mode, "attach"))
			run_attach(sizes, nr_sizes, only);
		else if (!strcmp(mode, "fptrace"))
			run_fptrace(runs, calls, cnt);
		else if (!strcmp(kind, "kretprobe.multi"))
			run_memory(KRETPROBE_MULTI, tasks, cnt);
		else if (!strcmp(kind, "kretprobe"))
			run_memory(KRETPROBE, tasks, cnt);
		else if (!strcmp(kind, "fprobe.session"))
			run_memory(FPROBE_SESSION_FULL, tasks, cnt);
		else
			return print_usage();
	} else {
		return print_usage();
	}
	bench_fprobe_bpf__destroy(fprobe);
	bench_trig_bpf__destroy(trig);
	btf__free(kernel_btf);
	return failures ? 1 : 0;
}
