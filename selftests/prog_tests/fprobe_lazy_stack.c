// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe asks fgraph for lazy shadow stacks: a task that existed before
 * the link gets its stack on its first probed call, from a small pool that
 * a worker refills, and a call that finds the pool empty is counted as a
 * stack miss. Tasks forked before the attachment call the probed function
 * one at a time and then all at once: every call is either seen at entry
 * and at exit, or counted in missed_stack.
 */
#include <sys/wait.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_lazy_stack.skel.h"

#define NR_TASKS 24

struct child {
	pid_t pid;
	int go;		/* write end: one byte releases the child */
};

/* The child waits for its byte, then calls bpf_fentry_test1..8 once. */
static int spawn(struct child *c)
{
	int fds[2];
	char b;

	if (pipe(fds))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(fds[1]);
		if (read(fds[0], &b, 1) != 1)
			_exit(2);
		_exit(trigger_fentry_tests() ? 1 : 0);
	}
	close(fds[0]);
	c->go = fds[1];
	return 0;
}

static int reap(struct child *c)
{
	int status;

	if (waitpid(c->pid, &status, 0) != c->pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check(struct fprobe_lazy_stack_bpf *skel, struct bpf_link *link, int calls,
		  const char *what)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char label[96];

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link info"))
		return;
	snprintf(label, sizeof(label), "%s: an exit for every entry", what);
	ASSERT_EQ(skel->bss->exits, skel->bss->entries, label);
	snprintf(label, sizeof(label), "%s: every call seen or counted", what);
	ASSERT_EQ(skel->bss->entries + info.fprobe_multi.missed, calls, label);
	snprintf(label, sizeof(label), "%s: the misses are stack misses", what);
	ASSERT_EQ(info.fprobe_multi.missed_stack, info.fprobe_multi.missed, label);
	test__log("  %s: %d tasks, %llu seen, %llu missed\n", what, calls,
		  (unsigned long long)skel->bss->entries,
		  (unsigned long long)info.fprobe_multi.missed);
}

void test_fprobe_lazy_stack(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .session = true);
	const char *sym = "bpf_fentry_test1";
	struct child kids[NR_TASKS] = {};
	struct fprobe_lazy_stack_bpf *skel;
	struct bpf_link *link = NULL;
	int i, n = 0;

	skel = fprobe_lazy_stack_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_lazy_stack"))
		return;
	/* load the trigger program before the fork, for the children */
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger before attaching"))
		goto out;
	for (n = 0; n < NR_TASKS; n++) {
		if (!ASSERT_OK(spawn(&kids[n]), "fork a task"))
			goto out;
	}
	opts.syms = &sym;
	opts.cnt = 1;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.lazy_session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach a session to bpf_fentry_test1"))
		goto out;

	for (i = 0; i < NR_TASKS / 2; i++) {
		ASSERT_EQ(write(kids[i].go, "g", 1), 1, "release one task");
		ASSERT_EQ(reap(&kids[i]), 0, "the task triggered the functions");
		kids[i].pid = 0;
	}
	check(skel, link, NR_TASKS / 2, "one at a time");

	for (i = NR_TASKS / 2; i < NR_TASKS; i++)
		ASSERT_EQ(write(kids[i].go, "g", 1), 1, "release a task");
	for (i = NR_TASKS / 2; i < NR_TASKS; i++) {
		ASSERT_EQ(reap(&kids[i]), 0, "the task triggered the functions");
		kids[i].pid = 0;
	}
	check(skel, link, NR_TASKS, "then all at once");
out:
	for (i = 0; i < n; i++) {
		close(kids[i].go);
		if (kids[i].pid)
			reap(&kids[i]);
	}
	bpf_link__destroy(link);
	fprobe_lazy_stack_bpf__destroy(skel);
}
