// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c: the fptrace command.
 *
 * Takes the command line (a program by -e, from a file or from stdin for
 * "-", or -l SPEC), the kernel's traceable functions
 * (/sys/kernel/tracing/available_filter_functions) and its BTF
 * (/sys/kernel/btf/vmlinux, plus one module's split BTF when the probes
 * match functions of exactly one module); gives the program parsed, typed,
 * generated and run by runtime.c, or the listing of list.c.
 *
 *   fptrace [-v] [-d] [-f text|json] [-p PID | -c CMD] [--trace-self]
 *           (-e PROGRAM | FILE | -)
 *   fptrace -l [-v] [SPEC]
 *
 * Options may follow FILE (getopt permutes them). A script's first line
 * that starts with "#!" is blanked before the lexer sees it, so that an
 * executable script runs through its "#!/usr/bin/env fptrace" line and
 * the line numbers of messages stay those of the file.
 *
 * Every fprobe and fretprobe probe gets "pid != SELF" added to its
 * predicate before the type pass, SELF being fptrace's own process id, so
 * that the tool's own work (its writes of what it prints, its polling)
 * never shows in what it traces; --trace-self leaves it out.
 * -p PID likewise adds "pid == PID" (BEGIN, END and interval probes run as
 * usual) and ends the run when PID is gone.
 * -c CMD looks CMD's first word up in PATH first (a command that is not
 * there is an error before anything is loaded), then forks it, held on a
 * pipe until the links are attached; the child reports a failed exec on a
 * close-on-exec pipe, which makes the run fail with its errno. The run ends
 * when CMD exits, as bpftrace's -c does; like bpftrace, it does not filter
 * by the command's pid (use a predicate such as /comm == "dd"/). The exit
 * status is 0, or 1 when the command line is wrong, the program did not
 * compile, load or attach, or the command could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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

/* The traceable functions: names sorted and unique, with their module. */
struct funcs {
	char **name;
	char **mod;			/* NULL for vmlinux */
	size_t n;
};

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

/* ---- The program -------------------------------------------------------------- */

static struct fpt_expr *new_expr(enum fpt_expr_kind k, struct fpt_loc loc)
{
	struct fpt_expr *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	e->kind = k;
	e->loc = loc;
	return e;
}

/* "pid OP N", or "pid OP N && (pred)", placed at the probe's spec. */
static struct fpt_expr *pid_pred(struct fpt_expr *pred, enum fpt_tok_kind op, pid_t pid,
				 struct fpt_loc loc)
{
	struct fpt_expr *b = new_expr(FPT_E_BINARY, loc), *a;

	b->u.binary.op = op;
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

/*
 * Every probe whose specs are all fprobes or fretprobes runs only when
 * "pid OP N" holds: -p's "pid == PID", and "pid != SELF" for fptrace itself.
 */
static void add_pid_filter(struct fpt_program *prog, enum fpt_tok_kind op, pid_t pid)
{
	for (int i = 0; i < prog->nprobes; i++) {
		struct fpt_probe *p = &prog->probes[i];
		bool traced = p->nspecs > 0;

		for (int j = 0; j < p->nspecs; j++)
			traced &= p->specs[j].kind == FPT_P_FPROBE ||
				p->specs[j].kind == FPT_P_FRETPROBE;
		if (traced)
			p->pred = pid_pred(p->pred, op, pid, p->specs[0].loc);
	}
}

/* ---- -c's command ------------------------------------------------------------- */

/*
 * In the child: wait for the go byte, exec, or report errno on the result
 * pipe. The parent's ends are closed first, so that the parent's close of
 * go makes the read end.
 */
static void command_child(const char *path, char **argv, int go[2], int res[2])
{
	int err, go_fd = go[0], err_fd = res[1];
	char c;

	close(go[1]);
	close(res[0]);
	if (read(go_fd, &c, 1) != 1)
		_exit(127);	/* fptrace gave up: the command never runs */
	execv(path, argv);
	err = errno;
	if (write(err_fd, &err, sizeof(err)) != sizeof(err))
		_exit(126);
	_exit(127);
}

static void close_pipe(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * -c: fork cmd (split at blanks), held until a byte comes on ro->child_go;
 * a failed exec writes its errno on the pipe ro->child_err, which exec
 * closes otherwise. -1 (reported) when cmd cannot run.
 */
static int spawn(const char *cmd, struct fpt_run_opts *ro)
{
	char *copy = strdup(cmd), *argv[64], *save = NULL, path[PATH_MAX];
	int go[2] = { -1, -1 }, res[2] = { -1, -1 }, n = 0, err;

	if (!copy)
		abort();
	for (char *w = strtok_r(copy, " \t", &save); w && n < 63; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n] = NULL;
	err = n ? fpt_find_command(argv[0], path, sizeof(path)) : -ENOENT;
	if (!err && (pipe2(go, O_CLOEXEC) || pipe2(res, O_CLOEXEC)))
		err = -errno;
	if (!err) {
		ro->child = fork();
		if (ro->child == 0)
			command_child(path, argv, go, res);
		err = ro->child < 0 ? -errno : 0;
	}
	if (err) {
		fprintf(stderr, "ERROR: cannot run '%s': %s\n", n ? argv[0] : cmd, strerror(-err));
		close_pipe(go);
		close_pipe(res);
	} else {
		close(go[0]);
		close(res[1]);
		ro->child_go = go[1];
		ro->child_err = res[0];
	}
	free(copy);
	return err ? -1 : 0;
}

/*
 * After the run: reap the command. Closing its go pipe makes one that was
 * never let go exit unrun; one that ran is stopped if it still runs.
 */
static void end_command(struct fpt_run_opts *ro, bool ran)
{
	if (ro->child <= 0)
		return;
	close(ro->child_go);
	close(ro->child_err);
	if (ran)
		kill(ro->child, SIGTERM);	/* a no-op once it exited */
	waitpid(ro->child, NULL, 0);
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
static int trace(const struct fpt_cli *o, const struct fpt_source *src, const struct funcs *f)
{
	struct fpt_run_opts ro = { .fmt = o->fmt, .verbose = o->verbose, .child_go = -1,
				   .child_err = -1, .pid = o->pid, .cmd = o->cmd };
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
		add_pid_filter(&prog, FPT_T_EQ, o->pid);
	if (!o->trace_self)
		add_pid_filter(&prog, FPT_T_NE, getpid());
	btf = load_btf(probe_module(&prog, f), &base);
	if (!btf || fpt_types(&prog, btf, (const char *const *)f->name, f->n, &d, &sema) ||
	    fpt_codegen(&prog, &sema, btf, &d, &bpf))
		goto out;
	if (o->dump) {
		dump(&prog, &sema, &bpf);
		err = 0;
		goto out;
	}
	if (o->cmd && spawn(o->cmd, &ro))
		goto out;
	err = fpt_run(src, &prog, &sema, &bpf, &ro) ? 1 : 0;
	end_command(&ro, !err);
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
	struct fpt_cli o = { .fmt = FPT_FMT_TEXT };
	struct fpt_source src;
	struct funcs f = { 0 };
	char *text = NULL;
	size_t len = 0;
	int err;

	err = fpt_cli_parse(argc, argv, &o, stderr);
	if (err)
		return err < 0 ? 1 : 0;
	if (load_funcs(&f))
		return 1;
	if (o.list) {
		err = fpt_list(o.list, o.verbose, f.name, f.mod, f.n);
		free_funcs(&f);
		return err;
	}
	if (o.file) {
		text = fpt_read_program(o.file, stdin, &len, stderr);
		if (!text) {
			free_funcs(&f);
			return 1;
		}
	}
	src = (struct fpt_source){ o.file && strcmp(o.file, "-") ? o.file : "stdin",
				   o.expr ? o.expr : text, o.expr ? strlen(o.expr) : len };
	libbpf_set_print(NULL);
	err = trace(&o, &src, &f);
	free(text);
	free_funcs(&f);
	return err;
}
