// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bpftool link attach: attach a loaded program to many kernel functions
 * through one fprobe.multi or kprobe.multi link, and pin the link so that
 * it outlives bpftool.
 *
 *   link attach PROG TYPE { pattern GLOB | func NAME... } [cookie N...]
 *               [session_size N] [saved_args N] pinned PATH
 *
 * TYPE names the link and its mode: fprobe.multi, fretprobe.multi and
 * fprobe.session make a BPF_TRACE_FPROBE_MULTI link; kprobe.multi,
 * kretprobe.multi and kprobe.session the kprobe.multi family. A pattern
 * is matched against tracefs' available_filter_functions, as libbpf does
 * for auto-attach, and each function is attached once.
 *
 * The kernel checks the program before the options: its attach type,
 * fixed at load by its section, must be the link's. A program loaded for
 * fprobe.multi takes any of the three fprobe modes, and one loaded for
 * kprobe.multi either kprobe.multi or kretprobe.multi; kprobe.session
 * takes only a program loaded for it. Then, for fprobe.multi links:
 * session_size only with the session flag, saved_args not at entry only,
 * each under its limit; and each function once.
 *
 * bpftool checks the options and the function list the same way before
 * the kernel sees them, so that each refusal names the option or the
 * function. What the kernel still refuses with EINVAL is the program:
 * struct bpf_prog_info has no attach type, so bpftool asks the kernel
 * which link types take the program (prog_loaded_for()) and names the
 * section the link needs.
 *
 * The link is created, pinned, then its fd closed: once bpftool exits,
 * the pin is the only reference, and on any error the close detaches it,
 * so a failed command leaves nothing attached. Every error is one line
 * that names the problem and the errno the kernel (or, for input caught
 * before the kernel sees it, the errno it would give) returned.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json_writer.h"
#include "main.h"

enum multi_mode { MODE_ENTRY, MODE_EXIT, MODE_SESSION };

struct multi_type {
	const char *name;
	enum bpf_attach_type attach_type;
	__u32 flags;
	enum multi_mode mode;
};

static const struct multi_type multi_types[] = {
	{ "fprobe.multi", BPF_TRACE_FPROBE_MULTI, 0, MODE_ENTRY },
	{ "fretprobe.multi", BPF_TRACE_FPROBE_MULTI, BPF_F_FPROBE_MULTI_RETURN, MODE_EXIT },
	{ "fprobe.session", BPF_TRACE_FPROBE_MULTI, BPF_F_FPROBE_MULTI_SESSION, MODE_SESSION },
	{ "kprobe.multi", BPF_TRACE_KPROBE_MULTI, 0, MODE_ENTRY },
	{ "kretprobe.multi", BPF_TRACE_KPROBE_MULTI, BPF_F_KPROBE_MULTI_RETURN, MODE_EXIT },
	{ "kprobe.session", BPF_TRACE_KPROBE_SESSION, 0, MODE_SESSION },
};

/* What a program loaded for @type is called, and the sections that load one */
static const struct {
	enum bpf_attach_type type;
	const char *name;
	const char *sections;
} prog_kinds[] = {
	{ BPF_TRACE_FPROBE_MULTI, "fprobe.multi",
	  "SEC(\"fprobe.multi\"), SEC(\"fretprobe.multi\") or SEC(\"fprobe.session\")" },
	{ BPF_TRACE_KPROBE_MULTI, "kprobe.multi",
	  "SEC(\"kprobe.multi\") or SEC(\"kretprobe.multi\")" },
	{ BPF_TRACE_KPROBE_SESSION, "kprobe.session", "SEC(\"kprobe.session\")" },
};

static bool is_fprobe(const struct multi_type *type)
{
	return type->attach_type == BPF_TRACE_FPROBE_MULTI;
}

struct multi_req {
	const struct multi_type *type;
	const char *pattern;
	char **funcs;		/* argv entries, or strdup()ed pattern matches */
	size_t cnt;
	bool funcs_owned;
	__u64 *cookies;
	size_t cookie_cnt;
	__u32 session_size;
	__u32 saved_args;
	bool session_size_set;
	bool saved_args_set;
	const char *path;
};

static const char * const keywords[] = {
	"pattern", "func", "cookie", "session_size", "saved_args", "pinned",
};

static bool is_keyword(const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keywords); i++)
		if (!strcmp(arg, keywords[i]))
			return true;
	return false;
}

static const struct multi_type *multi_type_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(multi_types); i++)
		if (!strcmp(name, multi_types[i].name))
			return &multi_types[i];
	return NULL;
}

static int attach_err(const struct multi_req *req, int err, const char *fmt, ...)
	__printf(3, 4);

/* Print "can't attach TYPE link: PROBLEM: STRERROR" and return -1. */
static int attach_err(const struct multi_req *req, int err, const char *fmt, ...)
{
	char problem[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof(problem), fmt, ap);
	va_end(ap);
	p_err("can't attach %s link: %s: %s", req->type ? req->type->name : "multi",
	      problem, strerror(err));
	return -1;
}

/* The number of words of @argv before the next keyword */
static int count_values(int argc, char **argv)
{
	int n = 0;

	while (n < argc && !is_keyword(argv[n]))
		n++;
	return n;
}

static int parse_cookies(struct multi_req *req, int argc, char **argv)
{
	char *end;
	int i;

	req->cookies = calloc(argc, sizeof(*req->cookies));
	if (!req->cookies)
		return attach_err(req, ENOMEM, "no memory for %d cookies", argc);
	for (i = 0; i < argc; i++) {
		errno = 0;
		req->cookies[i] = strtoull(argv[i], &end, 0);
		if (errno || *end || !*argv[i])
			return attach_err(req, EINVAL, "cookie '%s' is not a number", argv[i]);
	}
	req->cookie_cnt = argc;
	return 0;
}

static int parse_size(struct multi_req *req, const char *what, const char *arg,
		      __u32 *val, bool *set)
{
	unsigned long v;
	char *end;

	if (*set)
		return attach_err(req, EINVAL, "%s given twice", what);
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || !*arg || v > UINT32_MAX)
		return attach_err(req, EINVAL, "%s '%s' is not a number", what, arg);
	*val = v;
	*set = true;
	return 0;
}

/* Check that keyword argv[0] has a fitting number @n of values. */
static int check_value_count(struct multi_req *req, const char *kw, int n)
{
	bool list = !strcmp(kw, "func") || !strcmp(kw, "cookie");

	if (list && !n)
		return attach_err(req, EINVAL, "'%s' needs at least one value", kw);
	if (!list && n != 1)
		return attach_err(req, EINVAL, "'%s' takes one value, %d given", kw, n);
	if ((!strcmp(kw, "func") || !strcmp(kw, "pattern")) && (req->pattern || req->cnt))
		return attach_err(req, EINVAL, "give either one 'pattern' or one 'func' list");
	if (!strcmp(kw, "cookie") && req->cookies)
		return attach_err(req, EINVAL, "'cookie' given twice");
	if (!strcmp(kw, "pinned") && req->path)
		return attach_err(req, EINVAL, "'pinned' given twice");
	return 0;
}

/* One keyword and its @n values. */
static int parse_keyword(struct multi_req *req, char **argv, int n)
{
	const char *kw = argv[0];

	if (check_value_count(req, kw, n))
		return -1;
	if (!strcmp(kw, "cookie"))
		return parse_cookies(req, n, argv + 1);
	if (!strcmp(kw, "session_size"))
		return parse_size(req, kw, argv[1], &req->session_size,
				  &req->session_size_set);
	if (!strcmp(kw, "saved_args"))
		return parse_size(req, kw, argv[1], &req->saved_args,
				  &req->saved_args_set);
	if (!strcmp(kw, "pattern")) {
		req->pattern = argv[1];
	} else if (!strcmp(kw, "func")) {
		req->funcs = argv + 1;
		req->cnt = n;
	} else {
		req->path = argv[1];
	}
	return 0;
}

static int parse_multi_req(struct multi_req *req, int argc, char **argv)
{
	int n;

	if (argc < 1) {
		p_err("link attach: the link type is missing");
		return -1;
	}
	req->type = multi_type_by_name(argv[0]);
	if (!req->type)
		return attach_err(req, EINVAL, "unknown link type '%s'", argv[0]);
	NEXT_ARG();
	while (argc > 0) {
		if (!is_keyword(argv[0]))
			return attach_err(req, EINVAL, "what is '%s'?", argv[0]);
		n = count_values(argc - 1, argv + 1);
		if (parse_keyword(req, argv, n))
			return -1;
		argc -= n + 1;
		argv += n + 1;
	}
	return 0;
}

static FILE *open_filter_functions(void)
{
	FILE *f = fopen("/sys/kernel/tracing/available_filter_functions", "r");

	if (!f)
		f = fopen("/sys/kernel/debug/tracing/available_filter_functions", "r");
	return f;
}

/* The function name of an available_filter_functions line, cut in place. */
static char *filter_line_name(char *line)
{
	line[strcspn(line, " \t\n")] = '\0';
	return line;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static int add_match(struct multi_req *req, size_t *cap, const char *name)
{
	char **funcs;

	if (req->cnt == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		funcs = reallocarray(req->funcs, *cap, sizeof(*funcs));
		if (!funcs)
			return -ENOMEM;
		req->funcs = funcs;
	}
	req->funcs[req->cnt] = strdup(name);
	if (!req->funcs[req->cnt])
		return -ENOMEM;
	req->cnt++;
	return 0;
}

/* Sort the matches and drop repeats: a name listed twice is one function. */
static void uniq_matches(struct multi_req *req)
{
	size_t i, n = 0;

	qsort(req->funcs, req->cnt, sizeof(*req->funcs), cmp_names);
	for (i = 0; i < req->cnt; i++) {
		if (n && !strcmp(req->funcs[n - 1], req->funcs[i])) {
			free(req->funcs[i]);
			continue;
		}
		req->funcs[n++] = req->funcs[i];
	}
	req->cnt = n;
}

static int expand_pattern(struct multi_req *req)
{
	size_t cap = 0, len = 0;
	char *line = NULL;
	int err = 0;
	FILE *f;

	f = open_filter_functions();
	if (!f)
		return attach_err(req, errno, "can't read available_filter_functions");
	req->funcs_owned = true;
	while (!err && getline(&line, &len, f) > 0) {
		char *name = filter_line_name(line);

		if (strstr(name, "__ftrace_invalid_address__"))
			continue;
		if (!fnmatch(req->pattern, name, 0))
			err = add_match(req, &cap, name);
	}
	free(line);
	fclose(f);
	if (err)
		return attach_err(req, -err, "no memory for the functions of '%s'",
				  req->pattern);
	uniq_matches(req);
	if (!req->cnt)
		return attach_err(req, ENOENT, "pattern '%s' matches no traceable function",
				  req->pattern);
	return 0;
}

/*
 * session_size and saved_args on a link that does not use them: the kernel
 * refuses them for fprobe.multi links with EINVAL, and the kprobe.multi
 * family has no place for them. 0 counts too: an option is there to be used.
 */
static int check_option_use(struct multi_req *req)
{
	const struct multi_type *t = req->type;
	const char *runs = t->mode == MODE_ENTRY ? "at entry only" : "at exit only";
	const char *saves = is_fprobe(t) ? "run at entry only" : "save no arguments";

	if (req->session_size_set && t->mode == MODE_SESSION && !is_fprobe(t))
		return attach_err(req, EINVAL,
				  "session_size: %s links have one 8-byte session cookie; session data of a chosen size is for fprobe.session",
				  t->name);
	if (req->session_size_set && t->mode != MODE_SESSION)
		return attach_err(req, EINVAL,
				  "session_size: %s links run %s; session data is for fprobe.session",
				  t->name, runs);
	if (req->session_size > BPF_FPROBE_MULTI_SESSION_MAX)
		return attach_err(req, E2BIG, "session_size %u is over the limit of %d",
				  req->session_size, BPF_FPROBE_MULTI_SESSION_MAX);
	if (req->saved_args_set && (!is_fprobe(t) || t->mode == MODE_ENTRY))
		return attach_err(req, EINVAL,
				  "saved_args: %s links %s; saved arguments are for fretprobe.multi and fprobe.session",
				  t->name, saves);
	if (req->saved_args > BPF_FPROBE_MULTI_ARGS_MAX)
		return attach_err(req, E2BIG, "saved_args %u is over the limit of %d",
				  req->saved_args, BPF_FPROBE_MULTI_ARGS_MAX);
	return 0;
}

/*
 * A name given twice: fprobe.multi refuses it with EEXIST, the kprobe.multi
 * family finds the name once and so not all of them, ESRCH. A pattern's
 * matches are each taken once already.
 */
static int check_repeats(struct multi_req *req)
{
	const char *dup = NULL;
	char **sorted;
	size_t i, n;

	sorted = calloc(req->cnt, sizeof(*sorted));
	if (!sorted)
		return attach_err(req, ENOMEM, "no memory for %zu names", req->cnt);
	memcpy(sorted, req->funcs, req->cnt * sizeof(*sorted));
	qsort(sorted, req->cnt, sizeof(*sorted), cmp_names);
	for (i = 0; !dup && i < req->cnt; i += n) {
		for (n = 1; i + n < req->cnt && !strcmp(sorted[i], sorted[i + n]); n++)
			;
		if (n > 1)
			dup = sorted[i];
	}
	if (dup && n == 2)
		attach_err(req, is_fprobe(req->type) ? EEXIST : ESRCH,
			   "function '%s' is given twice", dup);
	else if (dup)
		attach_err(req, is_fprobe(req->type) ? EEXIST : ESRCH,
			   "function '%s' is given %zu times", dup, n);
	free(sorted);
	return dup ? -1 : 0;
}

/* Input the kernel would refuse, caught with the errno it would give. */
static int check_multi_req(struct multi_req *req)
{
	if (!req->path)
		return attach_err(req, EINVAL, "'pinned PATH' is missing");
	if (!req->pattern && !req->cnt)
		return attach_err(req, EINVAL, "give a 'pattern' or a 'func' list");
	if (check_option_use(req))
		return -1;
	if (req->pattern && expand_pattern(req))
		return -1;
	if (!req->pattern && check_repeats(req))
		return -1;
	if (req->cookies && req->cookie_cnt != req->cnt)
		return attach_err(req, EINVAL, "%zu cookie(s) for %zu function(s)",
				  req->cookie_cnt, req->cnt);
	return 0;
}

/* Whether @name is a line of available_filter_functions. */
static bool func_traceable(const char *name)
{
	size_t len = 0;
	char *line = NULL;
	bool found = false;
	FILE *f;

	f = open_filter_functions();
	if (!f)
		return true;	/* cannot tell: blame nothing */
	while (!found && getline(&line, &len, f) > 0)
		found = !strcmp(filter_line_name(line), name);
	free(line);
	fclose(f);
	return found;
}

/*
 * Whether @prog_fd was loaded for link type @type: 1 if so, 0 if not, -1
 * if the kernel does not tell. It checks the program's attach type first,
 * then the options: asked for input that is over a limit, it says E2BIG
 * only for a program of that type, and EINVAL for another. Either way no
 * link is made.
 */
static int prog_loaded_for(int prog_fd, enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	const char *sym = "";
	int fd;

	if (type == BPF_TRACE_FPROBE_MULTI) {
		opts.fprobe_multi.flags = BPF_F_FPROBE_MULTI_SESSION;
		opts.fprobe_multi.session_size = BPF_FPROBE_MULTI_SESSION_MAX + 1;
	} else {
		/* the count is checked before the names are read */
		opts.kprobe_multi.syms = &sym;
		opts.kprobe_multi.cnt = UINT32_MAX;
	}
	fd = bpf_link_create(prog_fd, 0, type, &opts);
	if (fd >= 0) {
		close(fd);
		return -1;
	}
	if (errno == E2BIG || errno == EINVAL)
		return errno == E2BIG;
	return -1;
}

/*
 * The index in prog_kinds[] of what @prog_fd was loaded for; -1 if none of
 * them, -2 if the kernel does not tell (no privileges, say).
 */
static int prog_kind(int prog_fd)
{
	size_t i;
	int is;

	for (i = 0; i < ARRAY_SIZE(prog_kinds); i++) {
		is = prog_loaded_for(prog_fd, prog_kinds[i].type);
		if (is)
			return is > 0 ? (int)i : -2;
	}
	return -1;
}

/* EINVAL after bpftool's own checks: name what the program was loaded for. */
static int explain_program(struct multi_req *req, int prog_fd, int err)
{
	enum bpf_attach_type type = req->type->attach_type;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	const char *needs = "";
	size_t i;
	int kind;

	if (bpf_prog_get_info_by_fd(prog_fd, &info, &len))
		return attach_err(req, err, "the kernel refused the link");
	if (info.type != BPF_PROG_TYPE_KPROBE)
		return attach_err(req, err, "program '%s' is a %s program, not kprobe",
				  info.name, libbpf_bpf_prog_type_str(info.type) ?: "unknown");
	for (i = 0; i < ARRAY_SIZE(prog_kinds); i++)
		if (prog_kinds[i].type == type)
			needs = prog_kinds[i].sections;
	kind = prog_kind(prog_fd);
	if (kind == -2)
		return attach_err(req, err, "the kernel refused the link");
	if (kind < 0)
		return attach_err(req, err,
				  "program '%s' was loaded for no multi-function link; %s needs a %s program",
				  info.name, req->type->name, needs);
	if (prog_kinds[kind].type != type)
		return attach_err(req, err, "program '%s' is a %s program; %s needs a %s program",
				  info.name, prog_kinds[kind].name, req->type->name, needs);
	return attach_err(req, err,
			  "the kernel refused the link (if the program calls bpf_override_return(), every function must allow error injection)");
}

/* Say what the kernel refused with @err. */
static int explain_failure(struct multi_req *req, int prog_fd, int err)
{
	size_t i;

	if (err == ENOENT || err == ESRCH || err == EOPNOTSUPP) {
		for (i = 0; i < req->cnt; i++)
			if (!func_traceable(req->funcs[i]))
				return attach_err(req, err, "function '%s' is not traceable",
						  req->funcs[i]);
	}
	if (err == EEXIST)
		return attach_err(req, err, "two of the names are one function (an alias)");
	/* the kernel saves no more arguments than its registers pass */
	if (err == E2BIG && req->saved_args)
		return attach_err(req, err, "saved_args %u is over this kernel's limit",
				  req->saved_args);
	if (err == EINVAL)
		return explain_program(req, prog_fd, err);
	return attach_err(req, err, "the kernel refused the link");
}

static int create_multi_link(int prog_fd, struct multi_req *req)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	if (is_fprobe(req->type)) {
		opts.fprobe_multi.flags = req->type->flags;
		opts.fprobe_multi.cnt = req->cnt;
		opts.fprobe_multi.syms = (const char **)req->funcs;
		opts.fprobe_multi.cookies = req->cookies;
		opts.fprobe_multi.session_size = req->session_size;
		opts.fprobe_multi.saved_args = req->saved_args;
	} else {
		opts.kprobe_multi.flags = req->type->flags;
		opts.kprobe_multi.cnt = req->cnt;
		opts.kprobe_multi.syms = (const char **)req->funcs;
		opts.kprobe_multi.cookies = req->cookies;
	}
	return bpf_link_create(prog_fd, 0, req->type->attach_type, &opts);
}

static int attach_and_pin(int prog_fd, struct multi_req *req)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int link_fd, err;

	link_fd = create_multi_link(prog_fd, req);
	if (link_fd < 0)
		return explain_failure(req, prog_fd, errno);
	err = do_pin_fd(link_fd, req->path);
	if (!err && json_output) {
		err = bpf_link_get_info_by_fd(link_fd, &info, &len);
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "id", err ? 0 : info.id);
		jsonw_end_object(json_wtr);
		err = 0;
	}
	/* the pin holds the link from here; on error, this detaches it */
	close(link_fd);
	return err ? -1 : 0;
}

static void free_multi_req(struct multi_req *req)
{
	size_t i;

	if (req->funcs_owned) {
		for (i = 0; i < req->cnt; i++)
			free(req->funcs[i]);
		free(req->funcs);
	}
	free(req->cookies);
}

int do_link_attach(int argc, char **argv)
{
	struct multi_req req = {};
	int prog_fd, err;

	if (!REQ_ARGS(3))
		return -1;
	prog_fd = prog_parse_fd(&argc, &argv);
	if (prog_fd < 0)
		return -1;
	err = parse_multi_req(&req, argc, argv);
	if (!err)
		err = check_multi_req(&req);
	if (!err)
		err = attach_and_pin(prog_fd, &req);
	free_multi_req(&req);
	close(prog_fd);
	return err;
}
