// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libbpf's fprobe.multi support, which need no kernel:
 * section names and their types, the name tables, and the option checks
 * of bpf_program__attach_fprobe_multi_opts() and bpf_link_create(), each
 * with its errno and libbpf's message.
 *
 * usage: libbpf_fprobe OBJECT   (fprobe_sections.bpf.o)
 * Prints "ok NAME" / "not ok NAME" per case; exits 1 if any failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char logbuf[8192];
static int failed;
static const char *cur;
static int cur_failed;

static int on_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	size_t len = strlen(logbuf);

	if (len < sizeof(logbuf) - 1)
		vsnprintf(logbuf + len, sizeof(logbuf) - len, fmt, args);
	return 0;
}

static void start(const char *name)
{
	cur = name;
	cur_failed = 0;
	logbuf[0] = 0;
}

static void end(void)
{
	printf("%s %s\n", cur_failed ? "not ok" : "ok", cur);
	failed |= cur_failed;
}

#define CHECK(cond, fmt, ...) do {						\
	if (!(cond)) {								\
		fprintf(stderr, "%s: %s:%d: " fmt "\n", cur, __FILE__, __LINE__,	\
			##__VA_ARGS__);						\
		cur_failed = 1;							\
	}									\
} while (0)

static void check_types(struct bpf_object *obj)
{
	static const char * const progs[] = {
		"entry_pattern", "exit_pattern", "session_pattern", "no_pattern", "bad_pattern",
	};
	struct bpf_program *p;
	size_t i;

	start("section_types");
	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		p = bpf_object__find_program_by_name(obj, progs[i]);
		CHECK(p, "%s: not found", progs[i]);
		if (!p)
			continue;
		CHECK(bpf_program__type(p) == BPF_PROG_TYPE_KPROBE, "%s: type %d", progs[i],
		      bpf_program__type(p));
		CHECK(bpf_program__expected_attach_type(p) == BPF_TRACE_FPROBE_MULTI,
		      "%s: attach type %d", progs[i], bpf_program__expected_attach_type(p));
	}
	end();
}

static void check_by_name(void)
{
	static const char * const names[] = {
		"fprobe.multi", "fprobe.multi/x", "fretprobe.multi", "fretprobe.multi/x*",
		"fprobe.session", "fprobe.session/x?",
	};
	enum bpf_attach_type at;
	enum bpf_prog_type pt;
	size_t i;
	int err;

	start("prog_type_by_name");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		err = libbpf_prog_type_by_name(names[i], &pt, &at);
		CHECK(!err && pt == BPF_PROG_TYPE_KPROBE && at == BPF_TRACE_FPROBE_MULTI,
		      "%s: err %d type %d attach type %d", names[i], err, pt, at);
	}
	err = libbpf_prog_type_by_name("fprobe.multix/x", &pt, &at);
	CHECK(err == -ESRCH, "fprobe.multix/x: err %d, want -ESRCH", err);
	end();

	start("type_names");
	CHECK(!strcmp(libbpf_bpf_attach_type_str(BPF_TRACE_FPROBE_MULTI) ?: "",
		      "trace_fprobe_multi"), "attach type name");
	CHECK(!strcmp(libbpf_bpf_link_type_str(BPF_LINK_TYPE_FPROBE_MULTI) ?: "",
		      "fprobe_multi"), "link type name");
	CHECK(!libbpf_bpf_link_type_str(BPF_LINK_TYPE_SOCKMAP + 1),
	      "no name for an unused link type");
	end();
}

struct opts_case {
	const char *name;
	const char *pattern;
	const char *msg;
	int syms, addrs, cookies, cnt, retprobe, session;
	__u32 session_size, saved_args;
	int err;	/* 0: EINVAL */
};

static const struct opts_case opts_cases[] = {
	{ "pattern_and_syms", "vfs_*", "a pattern excludes syms, addrs, cookies and cnt",
	  .syms = 1, .cnt = 1 },
	{ "pattern_and_cookies", "vfs_*", "a pattern excludes syms, addrs, cookies and cnt",
	  .cookies = 1 },
	{ "pattern_and_cnt", "vfs_*", "a pattern excludes syms, addrs, cookies and cnt",
	  .cnt = 1 },
	{ "nothing", NULL, "no pattern, syms or addrs" },
	{ "cookies_alone", NULL, "no pattern, syms or addrs", .cookies = 1, .cnt = 1 },
	{ "syms_and_addrs", NULL, "syms and addrs exclude each other",
	  .syms = 1, .addrs = 1, .cnt = 1 },
	{ "cnt_zero", NULL, "cnt is 0", .syms = 1 },
	{ "retprobe_and_session", "vfs_*", "retprobe and session exclude each other",
	  .retprobe = 1, .session = 1 },
	{ "session_size_without_session", "vfs_*", "session_size needs session",
	  .retprobe = 1, .session_size = 8 },
	{ "saved_args_at_entry", "vfs_*", "saved_args needs retprobe or session",
	  .saved_args = 1 },
	{ "session_size_over", "vfs_*", "session_size 72 is over the kernel's limit of 64 bytes",
	  .session = 1, .session_size = 72, .err = E2BIG },
	{ "saved_args_over", "vfs_*", "saved_args 7 is over the kernel's limit of 6",
	  .retprobe = 1, .saved_args = 7, .err = E2BIG },
	/* valid options: the next check is the missing program fd */
	{ "not_loaded", "vfs_*", "can't attach BPF program without FD" },
};

static void check_opts(struct bpf_object *obj)
{
	static const char * const syms[] = { "vfs_read" };
	static const unsigned long addrs[] = { 0xffffffff81000000UL };
	static const __u64 cookies[] = { 1 };
	struct bpf_program *p = bpf_object__find_program_by_name(obj, "entry_pattern");
	struct bpf_link *link;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts_cases); i++) {
		LIBBPF_OPTS(bpf_fprobe_multi_opts, opts);
		const struct opts_case *c = &opts_cases[i];
		char name[64];

		opts.syms = c->syms ? (const char **)syms : NULL;
		opts.addrs = c->addrs ? addrs : NULL;
		opts.cookies = c->cookies ? cookies : NULL;
		opts.cnt = c->cnt;
		opts.retprobe = c->retprobe;
		opts.session = c->session;
		opts.session_size = c->session_size;
		opts.saved_args = c->saved_args;
		snprintf(name, sizeof(name), "attach_opts_%s", c->name);
		start(name);
		link = bpf_program__attach_fprobe_multi_opts(p, c->pattern, &opts);
		CHECK(!link && errno == (c->err ?: EINVAL), "errno %d, want %d", errno,
		      c->err ?: EINVAL);
		CHECK(strstr(logbuf, c->msg), "'%s' not in log: %s", c->msg, logbuf);
		end();
	}

	start("attach_opts_unknown_field");
	{
		struct {
			struct bpf_fprobe_multi_opts opts;
			long future;
		} big = { .opts.sz = sizeof(big), .future = 1 };

		link = bpf_program__attach_fprobe_multi_opts(p, "vfs_*", &big.opts);
		CHECK(!link && errno == EINVAL, "errno %d, want EINVAL", errno);
		CHECK(strstr(logbuf, "has non-zero extra bytes"), "log: %s", logbuf);
	}
	end();

	start("link_create_opts_beyond_fprobe_multi");
	{
		/* uprobe_multi.pid lies past fprobe_multi in the union */
		LIBBPF_OPTS(bpf_link_create_opts, lopts);
		int fd;

		lopts.uprobe_multi.pid = 1;
		fd = bpf_link_create(-1, 0, BPF_TRACE_FPROBE_MULTI, &lopts);
		CHECK(fd == -EINVAL && errno == EINVAL, "fd %d errno %d, want -EINVAL", fd, errno);
	}
	end();
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT\n", argv[0]);
		return 2;
	}
	libbpf_set_print(on_print);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n%s", argv[1], strerror(errno), logbuf);
		return 1;
	}
	check_types(obj);
	check_by_name();
	check_opts(obj);
	bpf_object__close(obj);
	return failed;
}
