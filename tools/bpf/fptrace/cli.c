// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * cli.c: fptrace's command line, apart from what it runs (no BPF here, so
 * that the host unit tests check every case and message of it).
 *
 * Takes argv; gives a struct fpt_cli, or one "ERROR: ..." line:
 *
 *   fptrace [-v] [-d] [-f text|json] [-p PID | -c CMD] [--trace-self]
 *           (-e PROGRAM | FILE | -)
 *   fptrace -l [-v] [SPEC]
 *
 * - options may come before and after FILE (getopt permutes argv), so
 *   "fptrace script.bt -c CMD" works; -c's CMD is one argument, as in
 *   bpftrace;
 * - one program: -e twice, or -e with FILE, is an error;
 * - FILE "-" is stdin; a first line starting with "#!" is blanked (its
 *   newline kept, so lines keep their numbers), for executable scripts;
 * - -l's SPEC is "PROVIDER:GLOB" with an fprobe, fretprobe, kprobe or
 *   kretprobe provider, or a bare GLOB for fprobe:GLOB;
 * - -c's command is looked up as exec would (fpt_find_command()), so that
 *   one that is not there is an error before anything is loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fptrace.h"

#define OPT_TRACE_SELF	256	/* --trace-self, which has no short form */

static const char *const list_providers[] = { "fprobe", "fretprobe", "kprobe", "kretprobe" };

static void print_usage(FILE *f)
{
	fputs("usage: fptrace [options] (-e PROGRAM | FILE | -)\n"
	      "       fptrace -l [-v] [SPEC]\n"
	      "\n"
	      "  -e PROGRAM   trace PROGRAM (bpftrace syntax: fprobe:, fretprobe:,\n"
	      "               kprobe:, kretprobe:, BEGIN, END, interval:s:N);\n"
	      "               FILE reads it from a file, - from stdin\n"
	      "  -l [SPEC]    list the probes matching SPEC (fprobe:GLOB,\n"
	      "               fretprobe:GLOB, kprobe:GLOB, kretprobe:GLOB or GLOB);\n"
	      "               with -v, their arguments from BTF\n"
	      "  -p PID       trace only the process PID; stop when it ends\n"
	      "  -c CMD       run CMD, trace while it runs, stop when it ends\n"
	      "  -f FORMAT    output format: text (default) or json\n"
	      "  -d           dump the AST and the generated instructions, and stop\n"
	      "  -v           verbose: print the verifier's log of every program\n"
	      "  --trace-self trace fptrace's own process too\n"
	      "  -h, --help   this help\n"
	      "\n"
	      "Maps print at exit as bpftrace prints them; calls the links missed\n"
	      "(bpf_link_info.fprobe_multi) are counted on stderr.\n", f);
}

/* -p's argument: the id of a process that exists */
static int parse_pid(const char *arg, pid_t *pid, FILE *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT_MAX) {
		fprintf(err, "ERROR: -p %s: not a process id\n", arg);
		return -1;
	}
	if (kill(v, 0) && errno == ESRCH) {
		fprintf(err, "ERROR: -p %s: no such process\n", arg);
		return -1;
	}
	*pid = v;
	return 0;
}

/* One option; 0, 1 after --help, or -1 (reported) if it is wrong. */
static int parse_opt(int c, struct fpt_cli *o, FILE *err)
{
	switch (c) {
	case 'e':
		if (o->expr) {
			fputs("ERROR: -e given twice: fptrace runs one program\n", err);
			return -1;
		}
		o->expr = optarg;
		return 0;
	case 'l':
		o->list = "*";
		return 0;
	case 'p':
		return parse_pid(optarg, &o->pid, err);
	case 'c':
		o->cmd = optarg;
		return 0;
	case 'd':
		o->dump = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_TRACE_SELF:
		o->trace_self = true;
		return 0;
	case 'f':
		if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
			fprintf(err, "ERROR: unknown output format '%s'\n", optarg);
			return -1;
		}
		o->fmt = strcmp(optarg, "json") ? FPT_FMT_TEXT : FPT_FMT_JSON;
		return 0;
	case 'h':
		print_usage(stdout);
		return 1;
	}
	print_usage(err);
	return -1;
}

/* What is left after the options: -l's SPEC, or FILE; -1 (reported) if wrong. */
static int parse_args(int argc, char **argv, struct fpt_cli *o, FILE *err)
{
	const char *first = optind < argc ? argv[optind] : NULL;

	if (o->list && first)
		o->list = argv[optind++];
	else if (!o->list && !o->expr && first)
		o->file = argv[optind++];
	if (optind < argc) {
		if (o->list)
			fprintf(err, "ERROR: -l takes one SPEC: unexpected '%s'\n", argv[optind]);
		else if (o->expr)
			fprintf(err, "ERROR: -e PROGRAM and FILE '%s' both given: %s\n",
				argv[optind], "give one program");
		else
			fprintf(err, "ERROR: unexpected argument '%s' after FILE '%s'\n",
				argv[optind], o->file);
		return -1;
	}
	if (!o->list && !o->expr && !o->file) {
		fputs("ERROR: give one of -e PROGRAM, FILE or -l\n", err);
		return -1;
	}
	if (o->pid && o->cmd) {
		fputs("ERROR: -p and -c cannot be used together\n", err);
		return -1;
	}
	return 0;
}

int fpt_cli_parse(int argc, char **argv, struct fpt_cli *o, FILE *err)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "trace-self", no_argument, NULL, OPT_TRACE_SELF },
		{ NULL, 0, NULL, 0 },
	};
	int c, res;

	optind = 0;		/* from the start, as often as called */
	while ((c = getopt_long(argc, argv, "e:lp:c:f:dvh", longs, NULL)) != -1) {
		res = parse_opt(c, o, err);
		if (res)
			return res;
	}
	return parse_args(argc, argv, o, err);
}

/* The whole of in, NUL-terminated; NULL with errno set if a read failed. */
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
	if (ferror(in)) {
		free(buf);
		errno = errno ? errno : EIO;
		return NULL;
	}
	buf[*len] = 0;
	return buf;
}

char *fpt_read_program(const char *file, FILE *in, size_t *len, FILE *err)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : in;
	char *text;

	if (!f) {
		fprintf(err, "ERROR: cannot open %s: %s\n", file, strerror(errno));
		return NULL;
	}
	errno = 0;
	text = read_all(f, len);
	if (!text)
		fprintf(err, "ERROR: cannot read %s: %s\n", file, strerror(errno));
	if (f != in)
		fclose(f);
	if (text && !strncmp(text, "#!", 2))
		memset(text, ' ', strcspn(text, "\n"));
	return text;
}

const char *fpt_list_provider(const char *spec, const char **glob)
{
	const char *colon = strchr(spec, ':');

	*glob = colon ? colon + 1 : spec;
	if (!colon)
		return list_providers[0];
	for (size_t i = 0; i < ARRAY_SIZE(list_providers); i++)
		if (strlen(list_providers[i]) == (size_t)(colon - spec) &&
		    !strncmp(spec, list_providers[i], colon - spec))
			return list_providers[i];
	return NULL;
}

int fpt_find_command(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *d;
	int err = -ENOENT;
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, X_OK) ? -errno : 0;
	}
	for (d = dirs ? dirs : "/bin:/usr/bin"; d; d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
		int n = (int)strcspn(d, ":");

		snprintf(path, len, "%.*s%s%s", n, d, n ? "/" : "", name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!access(path, X_OK))
			return 0;
		err = -EACCES;
	}
	return err;
}
