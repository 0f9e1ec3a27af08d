// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * runtime.c: running a generated program in the kernel.
 *
 * Takes the typed AST, its struct fpt_sema (maps, links) and the programs
 * of codegen.c; gives a traced run, printed as bpftrace prints it:
 *
 * 1. each map of fpt_sema.maps is created, and each program's map loads
 *    are patched with the fds (fpt_bpf_prog.relocs) on a copy of its
 *    instructions; the programs are loaded (GPL: the kfuncs are GPL-only).
 *    When the verifier refuses one, the tail of its log is printed and the
 *    failing instruction is traced back (fpt_bpf_prog.locs) to the
 *    statement that generated it, reported as a diagnostic;
 * 2. "Attaching N probes..." (N: as bpftrace counts, each probe once per
 *    function it attaches to, and the BEGIN, END and interval probes),
 *    then the BEGIN programs run once (BPF_PROG_TEST_RUN), then each link
 *    is created: fprobe.multi with the mode, session_size and saved_args
 *    of its struct fpt_link;
 *    The kernel's symbols are read from /proc/kallsyms before that, when
 *    the program can print one (ksym, func, probe, kstack): read later,
 *    the file's reads would go through the probes of read functions;
 * 3. -c's command is let go (unless BEGIN called exit()), and fails the
 *    run if its exec does, or if it is gone before (SIGPIPE ignored); the ring
 *    buffer is polled: printf, print, clear and exit records are handled
 *    as they come; interval programs run every period; the run ends on
 *    exit(), SIGINT or SIGTERM, or when -c's command or -p's process is
 *    gone. The records that follow an exit record in the ring buffer
 *    (those of other events, on other CPUs, before the links are
 *    detached) are dropped, as the run ended with that probe's body;
 * 4. after an exit(), the ring buffer is polled until quiet (see
 *    settle_after_exit()); the links are detached, the ring buffer drained
 *    (still dropping what follows an exit record), the END programs run
 *    and their records alone printed; then every script map is printed,
 *    in the order of its name (bpftrace's std::map), after "\n\n" in
 *    text mode; then, on stderr,
 *    one line for each link that missed calls, from its link_info:
 *
 *	fptrace: fprobe:vfs_read: missed 3 (stack 2, recursion 1)
 *
 *    with ", other N" added when causes other than those two counted.
 *
 * FPTRACE_TEST_REJECT=LINE in the environment breaks the code of the
 * statement on that line (see break_line()), for the tests of step 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fptrace.h"

#define LOG_SIZE	(4 << 20)	/* the verifier log's first buffer */
#define LOG_MAX		(64 << 20)	/* and its largest */
#define LOG_TAIL	12	/* lines of a verifier log shown on rejection */

struct rt {
	const struct fpt_source *src;
	const struct fpt_program *prog;
	const struct fpt_sema *s;
	const struct fpt_bpf *b;
	const struct fpt_run_opts *o;
	int *map_fd, *prog_fd, *link_fd;
	uint64_t *next_ns;		/* interval programs: the next run */
	struct ring_buffer *rb;
	struct fpt_out out;
	uint64_t start_ns;		/* the start that elapsed counts from */
	int lost_fd;			/* index of ".lost" in map_fd, -1 if none */
	bool done;			/* exit() seen, or the links detached */
	bool in_end;			/* END runs: its own records pass */
};

/* Set by the signal handler: a lock-free atomic, as C11 allows there. */
static atomic_int stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- Maps ----------------------------------------------------------------- */

/* A BPF map name from "@name": "fpt_name", "fpt_" for "@", ".events" as is. */
static void map_name(const struct fpt_map_info *m, char *buf, size_t len)
{
	size_t n;

	if (m->role != FPT_MAP_USER) {
		snprintf(buf, len, "%s", m->name);
		return;
	}
	n = snprintf(buf, len, "fpt_%s", m->name + 1);
	for (size_t i = 4; i < n && i < len; i++)
		if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') ||
		      (buf[i] >= 'A' && buf[i] <= 'Z') || (buf[i] >= '0' && buf[i] <= '9')))
			buf[i] = '_';
}

/*
 * The ring buffer's size: FPTRACE_RB_PAGES pages (a power of two) if set,
 * as bpftrace's BPFTRACE_PERF_RB_PAGES; else FPT_RINGBUF_SIZE. 0 if invalid.
 */
static uint32_t ringbuf_size(void)
{
	const char *env = getenv("FPTRACE_RB_PAGES");
	long page = sysconf(_SC_PAGESIZE);
	char *end;
	unsigned long n;

	if (!env)
		return FPT_RINGBUF_SIZE;
	n = strtoul(env, &end, 10);
	if (*env < '1' || *env > '9' || *end || (n & (n - 1)) ||
	    n > (1ul << 30) / (unsigned long)page) {
		fprintf(stderr, "ERROR: FPTRACE_RB_PAGES must be a power of two, not '%s'\n",
			env);
		return 0;
	}
	return (uint32_t)(n * page);
}

static int create_maps(struct rt *r)
{
	for (int i = 0; i < r->s->nmaps; i++) {
		const struct fpt_map_info *m = &r->s->maps[i];
		uint32_t entries = m->max_entries;
		char name[BPF_OBJ_NAME_LEN];

		if (m->role == FPT_MAP_EVENTS)
			entries = ringbuf_size();
		if (!entries)
			return -1;
		if (m->role == FPT_MAP_LOST)
			r->lost_fd = i;
		map_name(m, name, sizeof(name));
		r->map_fd[i] = bpf_map_create(m->bpf_type, name, m->key_size,
					      m->value_size, entries, NULL);
		if (r->map_fd[i] < 0) {
			fprintf(stderr, "ERROR: cannot create map %s: %s\n", m->name,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- Loading -------------------------------------------------------------- */

/* The index of the last "N: (" line of a verifier log: the failing insn. */
static int failing_insn(const char *log)
{
	int idx = -1;

	for (const char *l = log; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int n, pos = 0;

		if (sscanf(l, "%d: (%*x)%n", &n, &pos) == 1 && pos)
			idx = n;
	}
	return idx;
}

/*
 * The last meaningful line of the log (before "processed ..." and the
 * like). Kernels that explain a rejection (7.x) follow the verifier's own
 * line with a report that starts "Verification failed:": the reason is the
 * line before it.
 */
static void log_reason(const char *log, char *buf, size_t len)
{
	const char *best = NULL, *l;

	for (l = log; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int n;

		if (!strncmp(l, "Verification failed:", 20))
			break;
		if (*l == '\n' || !strncmp(l, "processed ", 10) ||
		    !strncmp(l, "verification time", 17) || !strncmp(l, "stack depth", 11) ||
		    sscanf(l, "%d: ", &n) == 1)
			continue;
		best = l;
	}
	snprintf(buf, len, "%.*s", best ? (int)strcspn(best, "\n") : 0, best ? best : "");
}

/* Print the last LOG_TAIL lines of log to stderr. */
static void log_tail(const char *log)
{
	const char *p = log + strlen(log);
	int lines = 0;

	while (p > log && p[-1] == '\n')
		p--;
	while (p > log && lines <= LOG_TAIL)
		if (*--p == '\n')
			lines++;
	if (*p == '\n')
		p++;
	fprintf(stderr, "%s%s", p, *p && log[strlen(log) - 1] != '\n' ? "\n" : "");
}

/* Report the verifier's refusal of program p at its statement's place. */
static void report_reject(struct rt *r, const struct fpt_bpf_prog *p, const char *log, int err)
{
	struct fpt_diag d;
	char reason[256];
	int idx = failing_insn(log);

	fpt_diag_init(&d, r->src, stderr);
	log_reason(log, reason, sizeof(reason));
	fprintf(stderr, "fptrace: the verifier's log of %s ends with:\n", p->name);
	log_tail(log);
	if (idx >= 0 && idx < p->ninsns && p->locs[idx].line)
		fpt_error(&d, p->locs[idx], "the kernel refused %s at instruction %d: %s",
			  p->name, idx, *reason ? reason : strerror(-err));
	else
		fpt_error_noloc(&d, "the kernel refused %s: %s", p->name,
				*reason ? reason : strerror(-err));
}

/*
 * The test knob FPTRACE_TEST_REJECT=LINE: the first instruction generated
 * for a statement on source line LINE becomes a read of the unset r9, which
 * the verifier refuses ("R9 !read_ok"), to show how a rejection is reported.
 */
static void break_line(const struct fpt_bpf_prog *p, struct bpf_insn *insns, const char *line)
{
	int n = line ? atoi(line) : 0;

	for (int i = 0; n > 0 && i < p->ninsns; i++) {
		if (p->locs[i].line != n || (i && p->locs[i - 1].line == n))
			continue;
		insns[i] = (struct bpf_insn){ .code = BPF_LDX | BPF_DW | BPF_MEM,
					      .dst_reg = BPF_REG_0, .src_reg = BPF_REG_9 };
		return;
	}
}

/* Load program i with its maps' fds patched in; level: verifier log wanted. */
static int load_once(struct rt *r, int i, char *log, size_t size, int level)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = r->b->progs[i].attach_type,
		    .log_buf = level ? log : NULL,
		    .log_size = level ? size : 0,
		    .log_level = level);
	const struct fpt_bpf_prog *p = &r->b->progs[i];
	struct bpf_insn *insns = xcalloc(p->ninsns, sizeof(*insns));
	int fd;

	if (p->prog_type == BPF_PROG_TYPE_SYSCALL)
		opts.prog_flags = BPF_F_SLEEPABLE;
	memcpy(insns, p->insns, p->ninsns * sizeof(*insns));
	for (int k = 0; k < p->nrelocs; k++) {
		struct bpf_insn *ld = &insns[p->relocs[k].insn];

		if (p->relocs[k].map != FPT_RELOC_START) {
			ld->imm = r->map_fd[p->relocs[k].map];
			continue;
		}
		ld[0].imm = (__u32)r->start_ns;		/* elapsed's start */
		ld[1].imm = (__u32)(r->start_ns >> 32);
	}
	break_line(p, insns, getenv("FPTRACE_TEST_REJECT"));
	if (level)
		log[0] = 0;
	fd = bpf_prog_load(p->prog_type, p->name, "GPL", insns, p->ninsns, &opts);
	free(insns);
	return fd < 0 ? -errno : fd;
}

/*
 * Load program i with the verifier's log in *log, grown (to LOG_MAX) while
 * the kernel says it does not fit. A log that never fits is no reason to
 * fail: what fits is kept, said to be cut, and the program loaded without.
 */
static int load_logged(struct rt *r, int i, char **log, size_t *size)
{
	int fd = load_once(r, i, *log, *size, 1);

	while (fd == -ENOSPC && *size < LOG_MAX) {
		*size *= 2;
		free(*log);
		*log = xcalloc(1, *size);
		fd = load_once(r, i, *log, *size, 1);
	}
	if (fd != -ENOSPC)
		return fd;
	fprintf(stderr, "fptrace: the verifier's log of %s is over %zu bytes: it is cut\n",
		r->b->progs[i].name, *size);
	return load_once(r, i, *log, *size, 0);
}

static int load_progs(struct rt *r)
{
	size_t size = LOG_SIZE;
	char *log = xcalloc(1, size);
	int err = 0;

	for (int i = 0; i < r->b->nprogs && !err; i++) {
		const struct fpt_bpf_prog *p = &r->b->progs[i];
		int fd = r->o->verbose ? load_logged(r, i, &log, &size) :
			load_once(r, i, log, size, 0);

		if (fd < 0 && !r->o->verbose)
			fd = load_logged(r, i, &log, &size);
		if (fd < 0) {
			report_reject(r, p, log, fd);
			err = -1;
			break;
		}
		if (r->o->verbose)
			fprintf(stderr, "fptrace: %s loaded; the verifier's log:\n%s",
				p->name, log);
		r->prog_fd[i] = fd;
	}
	free(log);
	return err;
}

/* ---- Attaching -------------------------------------------------------------- */

/* "fprobe:a, fretprobe:a": the specs of the probes of link li. */
static void link_title(const struct rt *r, int li, char *buf, size_t len)
{
	const struct fpt_link *l = &r->s->links[li];
	size_t n = 0;

	buf[0] = 0;
	for (int side = 0; side < 2; side++) {
		const int *v = side ? l->exit : l->entry;

		for (int i = 0; i < (side ? l->nexit : l->nentry); i++) {
			const struct fpt_probe *p = &r->prog->probes[v[i]];

			for (int j = 0; j < p->nspecs; j++) {
				bool fret = p->specs[j].kind == FPT_P_FRETPROBE;

				if (fret != side ||
				    (p->specs[j].kind != FPT_P_FPROBE &&
				     p->specs[j].kind != FPT_P_FRETPROBE) ||
				    strstr(buf, p->specs[j].text))
					continue;
				n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
					      n ? ", " : "", p->specs[j].text);
			}
		}
	}
}

static int attach_link(struct rt *r, int pi)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	const struct fpt_bpf_prog *p = &r->b->progs[pi];
	const struct fpt_link *l = &r->s->links[p->link];
	__u64 *cookies = xcalloc(l->nfuncs, sizeof(*cookies));
	char title[256];
	int fd, err;

	/* cookie: the function's index in the link's sorted list */
	for (int i = 0; i < l->nfuncs; i++)
		cookies[i] = i;
	opts.fprobe_multi.cookies = cookies;
	opts.fprobe_multi.flags = l->mode == FPT_LINK_EXIT ? BPF_F_FPROBE_MULTI_RETURN :
		l->mode == FPT_LINK_SESSION ? BPF_F_FPROBE_MULTI_SESSION : 0;
	opts.fprobe_multi.cnt = l->nfuncs;
	opts.fprobe_multi.syms = (const char **)l->funcs;
	opts.fprobe_multi.session_size = l->mode == FPT_LINK_SESSION ? l->session_size : 0;
	opts.fprobe_multi.saved_args = l->mode != FPT_LINK_ENTRY ? l->saved_args : 0;
	fd = bpf_link_create(r->prog_fd[pi], 0, BPF_TRACE_FPROBE_MULTI, &opts);
	err = errno;
	free(cookies);
	if (fd < 0) {
		link_title(r, p->link, title, sizeof(title));
		fprintf(stderr, "ERROR: cannot attach %s (%d functions): %s\n", title,
			l->nfuncs, strerror(err));
		return -1;
	}
	r->link_fd[p->link] = fd;
	return 0;
}

/* Run a BEGIN, END or interval program once, in this task. */
static void run_prog(struct rt *r, int pi)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(r->prog_fd[pi], &opts))
		fprintf(stderr, "fptrace: cannot run %s: %s\n", r->b->progs[pi].name,
			strerror(errno));
}

static void run_kind(struct rt *r, enum fpt_prog_kind kind)
{
	for (int i = 0; i < r->b->nprogs; i++)
		if (r->b->progs[i].kind == kind)
			run_prog(r, i);
}

static int count_probes(const struct rt *r)
{
	int n = 0;

	for (int i = 0; i < r->b->nprogs; i++) {
		const struct fpt_bpf_prog *p = &r->b->progs[i];
		const struct fpt_link *l;

		if (p->kind != FPT_PROG_LINK) {
			n++;
			continue;
		}
		/* as bpftrace: each probe once per function it attaches to */
		l = &r->s->links[p->link];
		n += l->nfuncs * (l->nentry + l->nexit);
	}
	return n;
}

static void print_attaching(struct rt *r)
{
	int n = count_probes(r);

	if (r->o->fmt == FPT_FMT_JSON)
		printf("{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n", n);
	else
		printf("Attaching %d probe%s...\n", n, n == 1 ? "" : "s");
	fflush(stdout);
}

/* ---- Events and the loop --------------------------------------------------- */

/* Whether a in source lies before b, or at the same place. */
static bool loc_le(int aline, int acol, int bline, int bcol)
{
	return aline < bline || (aline == bline && acol <= bcol);
}

/* Whether event ev is recorded by a statement of an END probe. */
static bool end_event(const struct rt *r, const struct fpt_event *ev)
{
	for (int i = 0; i < r->b->nprogs; i++) {
		const struct fpt_bpf_prog *p = &r->b->progs[i];
		const struct fpt_loc *pl;

		if (p->kind != FPT_PROG_END)
			continue;
		pl = &r->prog->probes[p->probe].loc;
		if (loc_le(pl->line, pl->col, ev->loc.line, ev->loc.col) &&
		    loc_le(ev->loc.end_line, ev->loc.end_col, pl->end_line, pl->end_col))
			return true;
	}
	return false;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rt *r = ctx;
	const struct fpt_event *ev;
	uint32_t id;

	if (size < 8)
		return 0;
	memcpy(&id, data, sizeof(id));
	if (id >= (uint32_t)r->b->nevents)
		return 0;
	ev = &r->b->events[id];
	if (r->done && !(r->in_end && end_event(r, ev)))
		return 0;	/* recorded after exit() or the detach: dropped */
	switch (ev->kind) {
	case FPT_EV_PRINTF:
		if (size >= ev->size)
			fpt_out_printf(&r->out, ev, data);
		break;
	case FPT_EV_PRINT:
		fpt_out_map(&r->out, ev->map, r->map_fd[ev->map], ev->top, ev->div);
		break;
	case FPT_EV_CLEAR:
		fpt_clear_map(&r->s->maps[ev->map], r->map_fd[ev->map]);
		break;
	case FPT_EV_EXIT:
		r->done = true;
		r->in_end = false;	/* exit() in END ends END too */
		break;
	}
	fflush(stdout);
	return 0;
}

/* Handle the records waiting in the ring buffer, if there is one. */
static void drain(struct rt *r)
{
	if (r->rb)
		ring_buffer__consume(r->rb);
}

/* True when -c's command has ended (left to reap) or -p's process is gone. */
static bool target_gone(const struct rt *r)
{
	siginfo_t si = { 0 };

	if (r->o->child > 0 &&
	    !waitid(P_PID, r->o->child, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid)
		return true;
	return r->o->pid > 0 && kill(r->o->pid, 0) && errno == ESRCH;
}

/* Run the interval programs that are due; ms until the next one is. */
static int run_intervals(struct rt *r)
{
	uint64_t now = now_ns(), wait = 1000000000ull;

	for (int i = 0; i < r->b->nprogs && !r->done; i++) {
		const struct fpt_bpf_prog *p = &r->b->progs[i];

		if (p->kind != FPT_PROG_INTERVAL)
			continue;
		if (now >= r->next_ns[i]) {
			run_prog(r, i);
			drain(r);
			r->next_ns[i] += p->period_ns;
			if (r->next_ns[i] <= now)
				r->next_ns[i] = now + p->period_ns;
		}
		if (r->next_ns[i] - now < wait)
			wait = r->next_ns[i] - now;
	}
	if ((r->o->child > 0 || r->o->pid > 0) && wait > 100000000ull)
		wait = 100000000ull;
	return (int)((wait + 999999) / 1000000);
}

/* Until the run ends; -1 (reported) if polling the ring buffer fails. */
static int run_loop(struct rt *r)
{
	uint64_t start = now_ns();

	for (int i = 0; i < r->b->nprogs; i++)
		r->next_ns[i] = start + r->b->progs[i].period_ns;
	while (!r->done && !stop_signal) {
		int timeout = run_intervals(r), n;

		if (r->done || target_gone(r))
			break;
		if (r->rb)
			n = ring_buffer__poll(r->rb, timeout);
		else
			n = poll(NULL, 0, timeout) < 0 ? -errno : 0;
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "ERROR: ring buffer: %s\n", strerror(-n));
			return -1;
		}
	}
	return 0;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ---- The end ------------------------------------------------------------------ */

static int cmp_map_names(const void *a, const void *b, void *arg)
{
	const struct fpt_sema *s = arg;

	return strcmp(s->maps[*(const int *)a].name, s->maps[*(const int *)b].name);
}

/* Every script map, by name, as bpftrace prints them at exit. */
static void print_maps(struct rt *r)
{
	int *order = xcalloc(r->s->nmaps, sizeof(int)), n = 0;

	for (int i = 0; i < r->s->nmaps; i++)
		if (r->s->maps[i].role == FPT_MAP_USER)
			order[n++] = i;
	qsort_r(order, n, sizeof(int), cmp_map_names, (void *)r->s);
	if (r->o->fmt == FPT_FMT_TEXT)
		fputs("\n\n", stdout);
	for (int i = 0; i < n; i++)
		fpt_out_map(&r->out, order[i], r->map_fd[order[i]], 0, 0);
	fflush(stdout);
	free(order);
}

/* One stderr line for each link whose link_info counts missed calls. */
static void print_missed(struct rt *r)
{
	for (int li = 0; li < r->s->nlinks; li++) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		unsigned long long miss, stack, rec;
		char title[256], other[48] = "";

		memset(&info, 0, sizeof(info));
		if (r->link_fd[li] < 0 || bpf_link_get_info_by_fd(r->link_fd[li], &info, &len))
			continue;
		miss = info.fprobe_multi.missed;
		stack = info.fprobe_multi.missed_stack;
		rec = info.fprobe_multi.missed_recursion;
		if (!miss)
			continue;
		if (miss > stack + rec)
			snprintf(other, sizeof(other), ", other %llu", miss - stack - rec);
		link_title(r, li, title, sizeof(title));
		fprintf(stderr, "fptrace: %s: missed %llu (stack %llu, recursion %llu%s)\n",
			title, miss, stack, rec, other);
	}
}

/* "Lost N events" on stderr when the ring buffer had no room for some. */
static void print_lost(struct rt *r)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *v, n = 0;

	if (r->lost_fd < 0 || ncpus <= 0)
		return;
	v = xcalloc(ncpus, sizeof(*v));
	if (!bpf_map_lookup_elem(r->map_fd[r->lost_fd], &(__u32){ 0 }, v))
		for (int c = 0; c < ncpus; c++)
			n += v[c];
	if (n)
		fprintf(stderr, "Lost %llu events\n", (unsigned long long)n);
	free(v);
}

/*
 * After an exit() record, the calls in flight, the one whose probe called
 * exit() among them, have yet to return: a session's exit probe of that
 * call reads what its entry left, and a detach right away would count it
 * as missed. The links stay attached until the ring buffer has been quiet
 * (no record) for EXIT_QUIET_MS, EXIT_SETTLE_MAX_MS at most: a call still
 * running keeps recording, on a slow machine too. Their records are
 * dropped like every record after exit(), their map updates count.
 */
#define EXIT_QUIET_MS		20
#define EXIT_SETTLE_MAX_MS	1000

static void settle_after_exit(struct rt *r)
{
	uint64_t start = now_ns(), quiet = start, now;

	while ((now = now_ns()) - quiet < EXIT_QUIET_MS * 1000000ull &&
	       now - start < EXIT_SETTLE_MAX_MS * 1000000ull) {
		int n = r->rb ? ring_buffer__poll(r->rb, EXIT_QUIET_MS) :
			poll(NULL, 0, EXIT_QUIET_MS);

		if (n > 0)
			quiet = now_ns();
	}
}

/*
 * Detach the links (they stay readable) and drain what they recorded;
 * then run END, whose records alone print: one that a call on another
 * CPU commits meanwhile is dropped.
 */
static void finish(struct rt *r)
{
	if (r->done)
		settle_after_exit(r);
	for (int li = 0; li < r->s->nlinks; li++)
		if (r->link_fd[li] >= 0)
			bpf_link_detach(r->link_fd[li]);
	drain(r);
	r->done = true;
	r->in_end = true;
	run_kind(r, FPT_PROG_END);
	drain(r);
	print_maps(r);
	print_missed(r);
	print_lost(r);
}

/* ---- Running -------------------------------------------------------------------- */

static bool is_named(const struct fpt_type *t)
{
	return t->kind == FPT_TY_KSYM || t->kind == FPT_TY_PROBE || t->kind == FPT_TY_KSTACK;
}

/*
 * Whether a printf argument, a map key or a map value is a kernel address
 * to name from /proc/kallsyms (ksym, func, probe, kstack). Those are read
 * before the links are attached: fptrace's own reads of the file would
 * otherwise run through probes on read functions.
 */
static bool names_values(const struct rt *r)
{
	for (int i = 0; i < r->b->nevents; i++)
		for (int j = 0; j < r->b->events[i].nargs; j++)
			if (is_named(&r->b->events[i].args[j].type))
				return true;
	for (int i = 0; i < r->s->nmaps; i++) {
		const struct fpt_map_info *m = &r->s->maps[i];

		if (m->role == FPT_MAP_USER && is_named(&m->val))
			return true;
		for (int k = 0; k < m->nkeys; k++)
			if (is_named(&m->keys[k]))
				return true;
	}
	return false;
}

static int start(struct rt *r)
{
	int events = -1;

	for (int i = 0; i < r->s->nmaps; i++)
		if (r->s->maps[i].role == FPT_MAP_EVENTS)
			events = r->map_fd[i];
	if (events >= 0) {
		r->rb = ring_buffer__new(events, on_event, r, NULL);
		if (!r->rb) {
			fprintf(stderr, "ERROR: ring buffer: %s\n", strerror(errno));
			return -1;
		}
	}
	catch_signals();
	if (names_values(r))
		r->out.ksyms = fpt_ksyms_load();
	print_attaching(r);
	run_kind(r, FPT_PROG_BEGIN);
	drain(r);
	for (int i = 0; i < r->b->nprogs && !r->done; i++)
		if (r->b->progs[i].kind == FPT_PROG_LINK && attach_link(r, i))
			return -1;
	return 0;
}

static void cleanup(struct rt *r)
{
	ring_buffer__free(r->rb);
	for (int i = 0; i < r->s->nlinks; i++)
		if (r->link_fd[i] >= 0)
			close(r->link_fd[i]);
	for (int i = 0; i < r->b->nprogs; i++)
		if (r->prog_fd[i] >= 0)
			close(r->prog_fd[i]);
	for (int i = 0; i < r->s->nmaps; i++)
		if (r->map_fd[i] >= 0)
			close(r->map_fd[i]);
	free(r->map_fd);
	free(r->prog_fd);
	free(r->link_fd);
	free(r->next_ns);
	fpt_ksyms_free(r->out.ksyms);
}

/*
 * Let -c's command exec: it waits for one byte on its pipe. Its exec's
 * errno comes back on the other pipe, which a successful exec closes.
 * -1 (reported) when the command could not run.
 */
static int start_command(const struct fpt_run_opts *o)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	ssize_t n;
	int err;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);	/* a command gone: EPIPE, not death */
	n = write(o->child_go, "g", 1);
	err = errno;
	sigaction(SIGPIPE, &old, NULL);
	if (n != 1) {
		fprintf(stderr, "ERROR: cannot start '%s': %s\n", o->cmd,
			err == EPIPE ? "the command exited before it ran" : strerror(err));
		return -1;
	}
	do
		n = read(o->child_err, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(err))
		return 0;
	fprintf(stderr, "ERROR: cannot run '%s': %s\n", o->cmd, strerror(err));
	return -1;
}

static int *fds(int n)
{
	int *v = xcalloc(n, sizeof(int));

	for (int i = 0; i < n; i++)
		v[i] = -1;
	return v;
}

int fpt_run(const struct fpt_source *src, const struct fpt_program *prog,
	    const struct fpt_sema *s, const struct fpt_bpf *b,
	    const struct fpt_run_opts *o)
{
	struct rt r = { .src = src, .prog = prog, .s = s, .b = b, .o = o, .lost_fd = -1 };
	int err;

	r.map_fd = fds(s->nmaps);
	r.prog_fd = fds(b->nprogs);
	r.link_fd = fds(s->nlinks);
	r.next_ns = xcalloc(b->nprogs, sizeof(uint64_t));
	r.out = (struct fpt_out){ stdout, o->fmt, prog, s, NULL, r.map_fd };
	r.start_ns = now_ns();
	err = create_maps(&r) || load_progs(&r) || start(&r) ? -1 : 0;
	if (!err && !r.done && o->child_go >= 0)
		err = start_command(o);
	if (!err) {
		err = run_loop(&r);
		finish(&r);
	}
	cleanup(&r);
	return err;
}
