// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c: the fptrace command.
 *
 * Takes the command line (a program by -e or from a file, or -l GLOB), the
 * kernel's traceable functions (/sys/kernel/tracing/available_filter_functions)
 * and its BTF (/sys/kernel/btf/vmlinux, plus one module's split BTF when
 * the probes match functions of exactly one module); gives the program
 * parsed, typed, generated and run by runtime.c, or the listing.
 *
 *   fptrace [-v] [-d] [-f text|json] [-p PID | -c CMD] (-e PROGRAM | FILE)
 *   fptrace -l [GLOB]
 *
 * -p PID adds "pid == PID" to the predicate of every fprobe and fretprobe
 * probe before the type pass (so the generated code filters; BEGIN, END and
 * interval probes run as usual) and ends the run when PID is gone.
 * -c CMD forks CMD (split at blanks, looked up in PATH) held on a pipe until
 * the links are attached, and ends the run when it exits, as bpftrace's -c
 * does; like bpftrace, it does not filter by the command's pid (use a
 * predicate such as /comm == "dd"/). The exit status is 0, or 1 when the
 * program did not compile, load or attach.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fptrace.h"

#define FUNCS_PATH	"/sys/kernel/tracing/available_filter_functions"
#define FUNCS_PATH_OLD	"/sys/kernel/debug/tracing/available_filter_functions"

struct opts {
	const char *expr, *file, *list, *cmd;
	pid_t pid;
	bool dump, verbose;
	enum fpt_format fmt;
};

/* The traceable functions: names sorted and unique, with their module. */
struct funcs {
	char **name;
	char **mod;			/* NULL for vmlinux */
	size_t n;
};

static void print_usage(FILE *f)
{
	fputs("usage: fptrace [options] (-e PROGRAM | FILE)\n"
	      "       fptrace -l [GLOB]\n"
	      "\n"
	      "  -e PROGRAM   trace PROGRAM (bpftrace syntax: fprobe:, fretprobe:,\n"
	      "               kprobe:, kretprobe:, BEGIN, END, interval:s:N)\n"
	      "  -l [GLOB]    list the traceable functions matching GLOB, with\n"
	      "               their parameters from BTF\n"
	      "  -p PID       trace only the process PID; stop when it ends\n"
	      "  -c CMD       run CMD, trace while it runs, stop when it ends\n"
	      "  -f FORMAT    output format: text (default) or json\n"
	      "  -d           dump the AST and the generated instructions, and stop\n"
	      "  -v           verbose: print the verifier's log of every program\n"
	      "  -h, --help   this help\n"
	      "\n"
	      "Maps print at exit as bpftrace prints them; calls the links missed\n"
	      "(bpf_link_info.fprobe_multi) are counted on stderr.\n", f);
}

/* -p's argument: the id of a process that exists */
static int parse_pid(const char *arg, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT_MAX) {
		fprintf(stderr, "ERROR: -p %s: not a process id\n", arg);
		return -1;
	}
	if (kill(v, 0) && errno == ESRCH) {
		fprintf(stderr, "ERROR: -p %s: no such process\n", arg);
		return -1;
	}
	*pid = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+e:lp:c:f:dvh", longs, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->expr = optarg;
			break;
		case 'l':
			o->list = "*";
			break;
		case 'p':
			if (parse_pid(optarg, &o->pid))
				return -1;
			break;
		case 'c':
			o->cmd = optarg;
			break;
		case 'd':
			o->dump = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				fprintf(stderr, "ERROR: unknown output format '%s'\n", optarg);
				return -1;
			}
			o->fmt = strcmp(optarg, "json") ? FPT_FMT_TEXT : FPT_FMT_JSON;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			print_usage(stderr);
			return -1;
		}
	}
	if (o->list && optind < argc)
		o->list = argv[optind++];
	else if (!o->expr && optind < argc)
		o->file = argv[optind++];
	if (optind < argc || (!o->list && !o->expr && !o->file) ||
	    o->pid < 0 || (o->pid && o->cmd)) {
		fputs(o->pid && o->cmd ? "ERROR: -p and -c cannot be used together\n" :
		      "ERROR: give one of -e PROGRAM, FILE or -l\n", stderr);
		return -1;
	}
	return 0;
}

/* ---- Functions and BTF ------------------------------------------------------ */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add "name [module]" to f; a later duplicate of a name is dropped below. */
static void add_func(struct funcs *f, char *line, size_t *cap)
{
	char *sp = strchr(line, ' '), *mod = NULL;

	line[strcspn(line, "\n")] = 0;
	if (sp) {
		*sp = 0;
		mod = strchr(sp + 1, '[');
		if (mod)
			mod[strcspn(mod, "]")] = 0;
	}
	if (!*line || strstr(line, "__ftrace_invalid_address__"))
		return;
	if (f->n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		f->name = realloc(f->name, *cap * sizeof(char *));
		if (!f->name)
			abort();
	}
	if (asprintf(&f->name[f->n++], "%s%c%s", line, 0, mod ? mod + 1 : "") < 0)
		abort();
}

/* Read the traceable functions: sorted, unique, each "name\0module". */
static int load_funcs(struct funcs *f)
{
	FILE *in = fopen(FUNCS_PATH, "r");
	char *line = NULL;
	size_t len = 0, cap = 0, n = 0;

	if (!in)
		in = fopen(FUNCS_PATH_OLD, "r");
	if (!in) {
		fprintf(stderr, "ERROR: cannot read %s: %s\n", FUNCS_PATH, strerror(errno));
		return -1;
	}
	while (getline(&line, &len, in) > 0)
		add_func(f, line, &cap);
	free(line);
	fclose(in);
	qsort(f->name, f->n, sizeof(char *), cmp_name);
	for (size_t i = 0; i < f->n; i++) {
		if (n && !strcmp(f->name[n - 1], f->name[i]))
			free(f->name[i]);
		else
			f->name[n++] = f->name[i];
	}
	f->n = n;
	f->mod = calloc(n ? n : 1, sizeof(char *));
	if (!f->mod)
		abort();
	for (size_t i = 0; i < n; i++) {
		char *m = f->name[i] + strlen(f->name[i]) + 1;

		f->mod[i] = *m ? m : NULL;
	}
	return 0;
}

static void free_funcs(struct funcs *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->name[i]);
	free(f->name);
	free(f->mod);
}

/*
 * The one module whose functions the probes match, or NULL. Only the
 * modules' functions are tried, gathered first: a script may have a
 * thousand specs, and vmlinux has tens of thousands of functions.
 */
static const char *probe_module(const struct fpt_program *prog, const struct funcs *f)
{
	const char *mod = NULL;
	size_t *in_mod, nmod = 0;

	in_mod = calloc(f->n ? f->n : 1, sizeof(*in_mod));
	if (!in_mod)
		abort();
	for (size_t k = 0; k < f->n; k++)
		if (f->mod[k])
			in_mod[nmod++] = k;
	for (int i = 0; nmod && i < prog->nprobes; i++) {
		const struct fpt_probe *p = &prog->probes[i];

		for (int j = 0; j < p->nspecs; j++) {
			if (!p->specs[j].target)
				continue;
			for (size_t m = 0; m < nmod; m++) {
				size_t k = in_mod[m];

				if (fnmatch(p->specs[j].target, f->name[k], 0))
					continue;
				if (mod && strcmp(mod, f->mod[k])) {
					free(in_mod);
					return NULL;
				}
				mod = f->mod[k];
			}
		}
	}
	free(in_mod);
	return mod;
}

/* vmlinux's BTF, with mod's split BTF on top when mod is given and has one. */
static struct btf *load_btf(const char *mod, struct btf **base)
{
	char path[256];
	struct btf *b;

	*base = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (!*base) {
		fprintf(stderr, "ERROR: cannot read /sys/kernel/btf/vmlinux: %s\n",
			strerror(errno));
		return NULL;
	}
	if (!mod)
		return *base;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	b = btf__parse_split(path, *base);
	return b ? b : *base;
}

/* "vfs_read(file, buf, count, pos)", or the bare name without BTF. */
static void list_one(const struct btf *btf, const char *name)
{
	__s32 id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	const struct btf_type *t = id > 0 ?
		btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;

	if (!t || !btf_is_func_proto(t)) {
		printf("%s\n", name);
		return;
	}
	printf("%s(", name);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *p = btf__name_by_offset(btf, btf_params(t)[i].name_off);

		printf("%s%s", i ? ", " : "", p && *p ? p : "...");
	}
	printf(")\n");
}

static int list_funcs(const char *glob, const struct funcs *f)
{
	struct btf *base, *btf = load_btf(NULL, &base), *mbtf = NULL;
	const char *cur = NULL;

	if (!btf)
		return 1;
	for (size_t i = 0; i < f->n; i++) {
		if (fnmatch(glob, f->name[i], 0))
			continue;
		if (f->mod[i] && (!cur || strcmp(cur, f->mod[i]))) {
			char path[256];

			btf__free(mbtf);
			snprintf(path, sizeof(path), "/sys/kernel/btf/%s", f->mod[i]);
			mbtf = btf__parse_split(path, base);
			cur = f->mod[i];
		}
		list_one(f->mod[i] && mbtf ? mbtf : btf, f->name[i]);
	}
	btf__free(mbtf);
	btf__free(base);
	return 0;
}

/* ---- The program -------------------------------------------------------------- */

static char *read_all(FILE *in, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	do {
		if (cap - *len < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		n = fread(buf + *len, 1, cap - *len, in);
		*len += n;
	} while (n);
	buf[*len] = 0;
	return buf;
}

static struct fpt_expr *new_expr(enum fpt_expr_kind k, struct fpt_loc loc)
{
	struct fpt_expr *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	e->kind = k;
	e->loc = loc;
	return e;
}

/* "pid == N", or "pid == N && (pred)", placed at the probe's spec. */
static struct fpt_expr *pid_pred(struct fpt_expr *pred, pid_t pid, struct fpt_loc loc)
{
	struct fpt_expr *b = new_expr(FPT_E_BINARY, loc), *a;

	b->u.binary.op = FPT_T_EQ;
	b->u.binary.l = new_expr(FPT_E_BUILTIN, loc);
	b->u.binary.l->u.name = strdup("pid");
	b->u.binary.r = new_expr(FPT_E_INT, loc);
	b->u.binary.r->u.num = (uint64_t)pid;
	if (!b->u.binary.l->u.name)
		abort();
	if (!pred)
		return b;
	a = new_expr(FPT_E_BINARY, loc);
	a->u.binary.op = FPT_T_LAND;
	a->u.binary.l = b;
	a->u.binary.r = pred;
	return a;
}

/* -p: every probe whose specs are all fprobes or fretprobes runs for pid only. */
static void add_pid_filter(struct fpt_program *prog, pid_t pid)
{
	for (int i = 0; i < prog->nprobes; i++) {
		struct fpt_probe *p = &prog->probes[i];
		bool traced = p->nspecs > 0;

		for (int j = 0; j < p->nspecs; j++)
			traced &= p->specs[j].kind == FPT_P_FPROBE ||
				p->specs[j].kind == FPT_P_FRETPROBE;
		if (traced)
			p->pred = pid_pred(p->pred, pid, p->specs[0].loc);
	}
}

/* -c: fork cmd, held until a byte comes on *go (EOF: it exits unrun). */
static pid_t spawn(const char *cmd, int *go)
{
	char *copy = strdup(cmd), *argv[64], *save = NULL, c;
	int fd[2], n = 0;
	pid_t pid;

	if (!copy || pipe2(fd, O_CLOEXEC))
		return -1;
	for (char *w = strtok_r(copy, " \t", &save); w && n < 63; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n] = NULL;
	pid = n ? fork() : -1;
	if (pid == 0) {
		close(fd[1]);
		if (read(fd[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ERROR: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	free(copy);
	*go = fd[1];
	if (pid < 0)
		close(fd[1]);
	return pid;
}

/* Dump the AST and every program's instructions (-d). */
static void dump(const struct fpt_program *prog, const struct fpt_sema *s,
		 const struct fpt_bpf *b)
{
	fpt_ast_dump(stdout, prog);
	for (int i = 0; i < b->nprogs; i++) {
		const struct fpt_bpf_prog *p = &b->progs[i];

		printf("\n%s: %d insns, %d bytes of stack\n", p->name, p->ninsns, p->stack);
		fpt_prog_dump(stdout, s, p);
	}
}

/* Parse, type and generate src; then dump (-d) or run it. */
static int trace(const struct opts *o, const struct fpt_source *src, const struct funcs *f)
{
	struct fpt_run_opts ro = { .fmt = o->fmt, .verbose = o->verbose, .child_go = -1,
				   .pid = o->pid };
	struct fpt_program prog = { 0 };
	struct fpt_sema sema = { 0 };
	struct fpt_bpf bpf = { 0 };
	struct btf *base = NULL, *btf = NULL;
	struct fpt_diag d;
	int err = 1;

	fpt_diag_init(&d, src, stderr);
	if (fpt_parse(src, &d, &prog))
		goto out;
	if (o->pid)
		add_pid_filter(&prog, o->pid);
	btf = load_btf(probe_module(&prog, f), &base);
	if (!btf || fpt_types(&prog, btf, (const char *const *)f->name, f->n, &d, &sema) ||
	    fpt_codegen(&prog, &sema, btf, &d, &bpf))
		goto out;
	if (o->dump) {
		dump(&prog, &sema, &bpf);
		err = 0;
		goto out;
	}
	if (o->cmd) {
		ro.child = spawn(o->cmd, &ro.child_go);
		if (ro.child < 0) {
			fprintf(stderr, "ERROR: cannot run '%s'\n", o->cmd);
			goto out;
		}
	}
	err = fpt_run(src, &prog, &sema, &bpf, &ro) ? 1 : 0;
	if (ro.child > 0) {
		if (err)
			close(ro.child_go);	/* the command exits unrun */
		else
			kill(ro.child, SIGTERM);	/* a no-op once it exited */
		waitpid(ro.child, NULL, 0);
	}
out:
	fpt_bpf_free(&bpf);
	fpt_sema_free(&sema);
	fpt_program_free(&prog);
	if (btf != base)
		btf__free(btf);
	btf__free(base);
	return err;
}

int main(int argc, char **argv)
{
	struct opts o = { .fmt = FPT_FMT_TEXT };
	struct fpt_source src;
	struct funcs f = { 0 };
	char *text = NULL;
	size_t len = 0;
	int err;

	if (parse_opts(argc, argv, &o))
		return 1;
	if (load_funcs(&f))
		return 1;
	if (o.list) {
		err = list_funcs(o.list, &f);
		free_funcs(&f);
		return err;
	}
	if (o.file) {
		FILE *in = fopen(o.file, "r");

		if (!in) {
			fprintf(stderr, "ERROR: cannot open %s: %s\n", o.file, strerror(errno));
			free_funcs(&f);
			return 1;
		}
		text = read_all(in, &len);
		fclose(in);
	}
	src = (struct fpt_source){ o.file ? o.file : "stdin", o.expr ? o.expr : text,
				   o.expr ? strlen(o.expr) : len };
	libbpf_set_print(NULL);
	err = trace(&o, &src, &f);
	free(text);
	free_funcs(&f);
	return err;
}
