// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe.multi link operations: one case per attach error with its errno
 * (and nothing left hooked after them), link_info and fdinfo, detach,
 * unprivileged callers, and a module function that stays pinned while
 * attached, including recursion deep enough to fill the shadow stack; and
 * the room on the shadow stack that the links on one function share.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_rec.h"
#include "fprobe_multi.skel.h"

/* noinstr in arch/x86/kernel/tsc.c: in kallsyms, never in ftrace. */
#define NOTRACE_FUNC "native_sched_clock"

struct err_case {
	const char *name;
	int err;
	__u32 flags;
	__u32 cnt;
	int syms;	/* 1: fentry tests, 2: unknown, 3: notrace, 4: test1 twice */
	int addrs;	/* 1: fentry tests, 3: notrace, 4: test1 twice */
	bool cookies;
	__u32 session_size;
	__u32 saved_args;
	__u32 link_flags;
};

static const struct err_case err_cases[] = {
	{ "cnt_zero", EINVAL, .cnt = 0, .syms = 1 },
	{ "cnt_over_limit", E2BIG, .cnt = (1 << 20) + 1, .syms = 1 },
	{ "unknown_symbol", ENOENT, .cnt = 1, .syms = 2 },
	{ "syms_and_addrs", EINVAL, .cnt = 8, .syms = 1, .addrs = 1 },
	{ "cookies_alone", EINVAL, .cnt = 8, .cookies = true },
	{ "notrace_symbol", EOPNOTSUPP, .cnt = 1, .syms = 3 },
	{ "notrace_address", EOPNOTSUPP, .cnt = 1, .addrs = 3 },
	{ "duplicate_symbol", EEXIST, .cnt = 2, .syms = 4 },
	{ "duplicate_address", EEXIST, .cnt = 2, .addrs = 4 },
	{ "unknown_flag", EINVAL, .flags = 1 << 2, .cnt = 8, .syms = 1 },
	{ "return_and_session", EINVAL,
	  .flags = BPF_F_FPROBE_MULTI_RETURN | BPF_F_FPROBE_MULTI_SESSION, .cnt = 8, .syms = 1 },
	{ "link_create_flags", EINVAL, .cnt = 8, .syms = 1, .link_flags = 1 },
	{ "session_size_over_max", E2BIG, .flags = BPF_F_FPROBE_MULTI_SESSION, .cnt = 8,
	  .syms = 1, .session_size = BPF_FPROBE_MULTI_SESSION_MAX + 1 },
	{ "session_size_without_session", EINVAL, .flags = BPF_F_FPROBE_MULTI_RETURN,
	  .cnt = 8, .syms = 1, .session_size = 8 },
	{ "saved_args_over_max", E2BIG, .flags = BPF_F_FPROBE_MULTI_SESSION, .cnt = 8,
	  .syms = 1, .saved_args = BPF_FPROBE_MULTI_ARGS_MAX + 1 },
	{ "saved_args_at_entry_only", EINVAL, .cnt = 8, .syms = 1, .saved_args = 1 },
};

static int link_create_case(int prog_fd, const struct err_case *c)
{
	static const char * const unknown[] = { "fpm_no_such_function" };
	static const char * const notrace[] = { NOTRACE_FUNC };
	static const char * const twice[] = { "bpf_fentry_test1", "bpf_fentry_test1" };

	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = c->link_flags);
	unsigned long addrs[8];
	int i;

	opts.fprobe_multi.flags = c->flags;
	opts.fprobe_multi.cnt = c->cnt;
	opts.fprobe_multi.session_size = c->session_size;
	opts.fprobe_multi.saved_args = c->saved_args;
	if (c->cookies)
		opts.fprobe_multi.cookies = fentry_test_cookies;
	switch (c->syms) {
	case 1:
		opts.fprobe_multi.syms = (const char **)fentry_test_names;
		break;
	case 2:
		opts.fprobe_multi.syms = (const char **)unknown;
		break;
	case 3:
		opts.fprobe_multi.syms = (const char **)notrace;
		break;
	case 4:
		opts.fprobe_multi.syms = (const char **)twice;
		break;
	}
	switch (c->addrs) {
	case 1:
		for (i = 0; i < 8; i++)
			addrs[i] = ksym_addr(fentry_test_names[i]);
		opts.fprobe_multi.addrs = addrs;
		break;
	case 3:
		addrs[0] = ksym_addr(NOTRACE_FUNC);
		opts.fprobe_multi.addrs = addrs;
		break;
	case 4:
		addrs[0] = ksym_addr("bpf_fentry_test1");
		addrs[1] = addrs[0];
		opts.fprobe_multi.addrs = addrs;
		break;
	}
	return bpf_link_create(prog_fd, 0, BPF_TRACE_FPROBE_MULTI, &opts);
}

/* perf_event_open() of a kprobe on @func through the kprobe PMU. */
static int perf_kprobe_open(const char *func)
{
	struct perf_event_attr attr = {};
	char buf[16];
	int type;

	if (read_file("/sys/bus/event_source/devices/kprobe/type", buf, sizeof(buf)) <= 0)
		return -1;
	type = atoi(buf);
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	return syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

static void test_errors(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct fprobe_multi_bpf *skel;
	static char buf[1 << 16];
	int prog_fd, fd;
	size_t i;

	ASSERT_NEQ(ksym_addr(NOTRACE_FUNC), 0, NOTRACE_FUNC " is in kallsyms");
	ASSERT_EQ(ftrace_addr(NOTRACE_FUNC), 0, NOTRACE_FUNC " is not traceable");

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	prog_fd = bpf_program__fd(skel->progs.fpm_entry);
	for (i = 0; i < ARRAY_SIZE(err_cases); i++) {
		fd = link_create_case(prog_fd, &err_cases[i]);
		ASSERT_ERRNO(fd, err_cases[i].err, err_cases[i].name);
		if (fd >= 0)
			close(fd);
	}

	/* The attach type must match the program's, both ways. */
	opts.fprobe_multi.syms = (const char **)fentry_test_names;
	opts.fprobe_multi.cnt = 8;
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &opts);
	ASSERT_ERRNO(fd, EINVAL, "fprobe.multi program as kprobe.multi");
	if (fd >= 0)
		close(fd);
	/* Nor may a kprobe perf event run it. */
	fd = perf_kprobe_open("bpf_fentry_test1");
	if (ASSERT_GE(fd, 0, "perf_event_open kprobe")) {
		ASSERT_ERRNO(ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd), EINVAL,
			     "PERF_EVENT_IOC_SET_BPF with an fprobe.multi program");
		close(fd);
	}

	/* No failed attach left a function hooked. */
	if (ASSERT_GE(read_file(TRACEFS "enabled_functions", buf, sizeof(buf)), 0,
		      "read enabled_functions"))
		ASSERT_EQ(count_substr(buf, "bpf_fentry_test"), 0,
			  "no bpf_fentry_test function left hooked");
	fprobe_multi_bpf__destroy(skel);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	}
	return false;
}

static void test_link_info(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .cnt = 8, .session = true,
		    .session_size = 16, .saved_args = 2);
	__u64 cookies[8], info_addrs[8], info_cookies[8];
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link = NULL;
	char path[64], line[64];
	static char buf[4096];
	int i, j, fd, err;
	const char *syms[8];

	/* Functions in reverse order: the kernel sorts them by address. */
	opts.syms = syms;
	opts.cookies = cookies;
	for (i = 0; i < 8; i++) {
		syms[i] = fentry_test_names[7 - i];
		cookies[i] = 8 - i;
	}
	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.session"))
		goto out;
	fd = bpf_link__fd(link);

	/* Without arrays, the count; with arrays too short, -ENOSPC. */
	memset(&info, 0, sizeof(info));
	if (ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "link_info, counts only"))
		ASSERT_EQ(info.fprobe_multi.count, 8, "count");
	memset(&info, 0, sizeof(info));
	info.fprobe_multi.addrs = (__u64)(unsigned long)info_addrs;
	info.fprobe_multi.cookies = (__u64)(unsigned long)info_cookies;
	info.fprobe_multi.count = 4;
	len = sizeof(info);
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	ASSERT_ERRNO(err, ENOSPC, "link_info with room for 4 of 8 functions");

	memset(&info, 0, sizeof(info));
	info.fprobe_multi.addrs = (__u64)(unsigned long)info_addrs;
	info.fprobe_multi.cookies = (__u64)(unsigned long)info_cookies;
	info.fprobe_multi.count = 8;
	len = sizeof(info);
	if (!ASSERT_OK(bpf_link_get_info_by_fd(fd, &info, &len), "link_info"))
		goto out;
	ASSERT_EQ(info.type, BPF_LINK_TYPE_FPROBE_MULTI, "link type");
	ASSERT_EQ(info.fprobe_multi.count, 8, "count");
	ASSERT_EQ(info.fprobe_multi.flags, BPF_F_FPROBE_MULTI_SESSION, "flags");
	ASSERT_EQ(info.fprobe_multi.session_size, 16, "session_size");
	ASSERT_EQ(info.fprobe_multi.saved_args, 2, "saved_args");
	ASSERT_EQ(info.fprobe_multi.missed, 0, "missed");
	ASSERT_EQ(info.fprobe_multi.missed_stack, 0, "missed_stack");
	for (i = 0; i < 8; i++) {
		if (i)
			ASSERT_TRUE(info_addrs[i - 1] < info_addrs[i], "addresses sorted");
		for (j = 0; j < 8; j++) {
			if (info_addrs[i] == ksym_addr(fentry_test_names[j]))
				break;
		}
		snprintf(line, sizeof(line), "address %d is a bpf_fentry_test function", i);
		if (ASSERT_TRUE(j < 8, line)) {
			snprintf(line, sizeof(line), "cookie of %s", fentry_test_names[j]);
			ASSERT_EQ(info_cookies[i], j + 1, line);
		}
	}

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!ASSERT_GE(read_file(path, buf, sizeof(buf)), 1, "read fdinfo"))
		goto out;
	ASSERT_TRUE(has_line(buf, "link_type:\tfprobe_multi"), "fdinfo link_type");
	ASSERT_TRUE(has_line(buf, "session_size:\t16"), "fdinfo session_size");
	ASSERT_TRUE(has_line(buf, "saved_args:\t2"), "fdinfo saved_args");
	if (kernel_major() >= 7) {
		/* the 7.x series' layout: a line per function, its cookie after */
		ASSERT_TRUE(has_line(buf, "mode:\tsession"), "fdinfo mode");
		ASSERT_TRUE(has_line(buf, "functions:\t8"), "fdinfo functions");
		ASSERT_TRUE(has_line(buf, "missed:\t0 (stack 0, recursion 0, other 0)"),
			    "fdinfo missed, by cause");
		for (i = 0; i < 8; i++) {
			snprintf(line, sizeof(line), "func:\t%s\tcookie %d",
				 fentry_test_names[i], i + 1);
			ASSERT_TRUE(has_line(buf, line), line);
		}
		goto out;
	}
	ASSERT_TRUE(has_line(buf, "fprobe_cnt:\t8"), "fdinfo fprobe_cnt");
	ASSERT_TRUE(has_line(buf, "flags:\tsession"), "fdinfo flags");
	ASSERT_TRUE(has_line(buf, "missed:\t0"), "fdinfo missed");
	ASSERT_TRUE(has_line(buf, "missed_stack:\t0"), "fdinfo missed_stack");
	ASSERT_TRUE(has_line(buf, "missed_recursion:\t0"), "fdinfo missed_recursion");
	for (i = 0; i < 8; i++) {
		snprintf(line, sizeof(line), "%d\t%s", i + 1, fentry_test_names[i]);
		ASSERT_TRUE(has_line(buf, line), line);
	}
out:
	bpf_link__destroy(link);
	fprobe_multi_bpf__destroy(skel);
}

static void test_detach(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies, .cnt = 8);
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link = NULL;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_entry, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.multi"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger before detach"))
		goto out;
	ASSERT_EQ(skel->bss->rec[1].entry.runs, 1, "bpf_fentry_test1 run before detach");
	ASSERT_OK(bpf_link__detach(link), "detach");
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger after detach"))
		goto out;
	ASSERT_EQ(skel->bss->rec[1].entry.runs, 1, "no run after detach");
	ASSERT_OK(bpf_link__detach(link), "a second detach");
	ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len),
		  "link_info after detach");
	ASSERT_EQ(info.fprobe_multi.count, 8, "count after detach");
out:
	bpf_link__destroy(link);
	fprobe_multi_bpf__destroy(skel);
}

/* In a child without any capability: attach and load must both fail. */
static void test_unprivileged(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	const struct err_case ok = { .cnt = 8, .syms = 1 };
	struct fprobe_multi_bpf *skel;
	int status, prog_fd;
	pid_t pid;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	prog_fd = bpf_program__fd(skel->progs.fpm_entry);
	pid = fork();
	if (pid == 0) {
		struct fprobe_multi_bpf *skel2;
		int fd;

		if (syscall(SYS_capset, &hdr, data))
			_exit(10);
		fd = link_create_case(prog_fd, &ok);
		if (fd >= 0 || errno != EPERM)
			_exit(11);
		skel2 = fprobe_multi_bpf__open_and_load();
		if (skel2 || errno != EPERM)
			_exit(12);
		_exit(0);
	}
	if (ASSERT_GE(pid, 0, "fork") && ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid")) {
		ASSERT_TRUE(WIFEXITED(status), "child exited");
		/* 10: capset failed; 11: attach not -EPERM; 12: load not -EPERM */
		ASSERT_EQ(WEXITSTATUS(status), 0,
			  "attach and load without capabilities fail with -EPERM");
	}
	fprobe_multi_bpf__destroy(skel);
}

static const char * const module_func[] = { "fpm_test_recurse" };

static void test_module(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)module_func, .cnt = 1,
		    .session = true, .saved_args = 1);
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link = NULL;
	long refcnt;
	char buf[64];
	int d;

	refcnt = fpm_module_refcnt();
	if (!ASSERT_GE(refcnt, 0, "fpm_test is loaded"))
		return;
	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_module, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach to a module function"))
		goto out;
	ASSERT_EQ(fpm_module_refcnt(), refcnt + 1, "the link holds the module");
	ASSERT_ERRNO(syscall(SYS_delete_module, "fpm_test", O_NONBLOCK), EWOULDBLOCK,
		     "the module cannot be removed while attached");

	if (!ASSERT_OK(fpm_run("call 3", buf, sizeof(buf)), "call 3"))
		goto out;
	ASSERT_STREQ(buf, "ret=3\n", "fpm_test_recurse(3)");
	ASSERT_EQ(skel->bss->mod_entries, 4, "entries, depth 3 to 0");
	ASSERT_EQ(skel->bss->mod_exits, 4, "exits");
	ASSERT_EQ(skel->bss->mod_func_ip, ksym_addr("fpm_test_recurse"), "func_ip at exit");
	for (d = 0; d < 4; d++) {
		snprintf(buf, sizeof(buf), "return value at depth %d", d);
		ASSERT_EQ(skel->bss->mod_ret[d], d, buf);
	}

	/* Fill the shadow stack: what is lost is counted, nothing else. */
	skel->bss->mod_entries = 0;
	skel->bss->mod_exits = 0;
	if (!ASSERT_OK(fpm_run("call 400", buf, sizeof(buf)), "call 400"))
		goto out;
	ASSERT_STREQ(buf, "ret=400\n", "fpm_test_recurse(400)");
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link_info")) {
		ASSERT_GE(info.fprobe_multi.missed, 1, "some calls did not fit");
		ASSERT_EQ(skel->bss->mod_entries + info.fprobe_multi.missed, 401,
			  "every call was run or counted as missed");
		ASSERT_EQ(skel->bss->mod_exits, skel->bss->mod_entries, "every entry has its exit");
		ASSERT_EQ(info.fprobe_multi.missed_stack, info.fprobe_multi.missed,
			  "the misses are for lack of stack");
		test__log("  recursion 400: %llu runs, %llu missed (stack)\n",
			  (unsigned long long)skel->bss->mod_entries,
			  (unsigned long long)info.fprobe_multi.missed);
	}
out:
	bpf_link__destroy(link);
	link = NULL;
	ASSERT_EQ(fpm_module_refcnt(), refcnt, "the module is released with the link");
	fprobe_multi_bpf__destroy(skel);
}

static __u64 link_missed(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return -1;
	return info.fprobe_multi.missed;
}

/*
 * Three sessions on bpf_fentry_test1, each saving 6 arguments and 64 bytes
 * of session data: 15 words each, in a block of its own in the call's
 * frame. All three attach and see every call with their own data.
 */
static void test_shadow_stack_room(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)fentry_test_names,
		    .cnt = 1, .session = true, .session_size = 64, .saved_args = 6);
	struct bpf_link *links[3] = {};
	struct fprobe_multi_bpf *skel;
	char label[64];
	__u64 cookie;
	int i;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	skel->bss->target_tgid = getpid();
	opts.cookies = &cookie;
	for (i = 0; i < 3; i++) {
		cookie = i + 1;
		links[i] = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_session,
								 NULL, &opts);
	}
	if (!ASSERT_OK_PTR(links[0], "attach the first session") ||
	    !ASSERT_OK_PTR(links[1], "attach the second session") ||
	    !ASSERT_OK_PTR(links[2], "attach the third session"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	for (i = 1; i <= 3; i++) {
		const struct fprobe_rec *r = &skel->bss->rec[i];

		snprintf(label, sizeof(label), "session %d: entry and exit runs", i);
		ASSERT_EQ(r->entry.runs * 10 + r->exit.runs, 11, label);
		snprintf(label, sizeof(label), "session %d: argument 1 saved", i);
		ASSERT_EQ(r->exit.args[0], 1, label);
		snprintf(label, sizeof(label), "session %d: its own data at exit", i);
		ASSERT_EQ(r->exit.data_words[7], i * 100 + 7, label);
		snprintf(label, sizeof(label), "session %d: missed", i);
		ASSERT_EQ(link_missed(links[i - 1]), 0, label);
	}
out:
	for (i = 0; i < 3; i++)
		bpf_link__destroy(links[i]);
	fprobe_multi_bpf__destroy(skel);
}

void test_fprobe_multi_attach(void)
{
	if (test__start_subtest("errors"))
		test_errors();
	if (test__start_subtest("link_info"))
		test_link_info();
	if (test__start_subtest("detach"))
		test_detach();
	if (test__start_subtest("unprivileged"))
		test_unprivileged();
	if (test__start_subtest("shadow_stack_room"))
		test_shadow_stack_room();
	if (test__start_subtest("module"))
		test_module();
}
