// SPDX-License-Identifier: GPL-2.0
/*
 * entry_and_return: tracefs fprobe events: "f:" on entry with $argN and
 * "f%return" with
 * $retval and an entry argument fetched at exit, on bpf_fentry_test2(2, 3),
 * which returns 5. The trace buffer must hold exactly one line of each,
 * with those values. The entry event reports the ftrace call site, which
 * sits after the ENDBR when IBT is on.
 *
 * module_unload: "f:" and "f%return" events stay enabled on
 * fpm_test_recurse() while the test module is unloaded and loaded again,
 * at the same address. The events must not fire on the new module's
 * function: that is not the function they were made for, and before the
 * fprobes dropped the functions of a going module, their stale filter
 * and table entries probed it. Removing the events afterwards must work.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include "test_progs.h"
#include "helpers.h"

static const char *const defs[] = {
	"f:fpm/t2 bpf_fentry_test2 a=$arg1:s32 b=$arg2:u64",
	"f:fpm/t2r bpf_fentry_test2%return ret=$retval:s32 a=$arg1:s32",
};

/* Add the events of @defs; return how many were added. */
static int add_events(const char *const *defs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!ASSERT_OK(append_file(TRACEFS "dynamic_events", defs[i]), defs[i]))
			break;
	return i;
}

/* Remove the first @added events of @defs, last first. */
static void remove_events(const char *const *defs, int added)
{
	while (added--) {
		char del[64];
		const char *name = defs[added] + 2;

		snprintf(del, sizeof(del), "-:%.*s", (int)strcspn(name, " "), name);
		ASSERT_OK(append_file(TRACEFS "dynamic_events", del), "remove fprobe event");
	}
}

static void run(void)
{
	static char trace[16384];
	unsigned long site, func;
	int added;
	char want[96];

	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	added = add_events(defs, ARRAY_SIZE(defs));
	if (added < (int)ARRAY_SIZE(defs))
		goto cleanup;
	if (!ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer"))
		goto cleanup;
	if (!ASSERT_OK(write_file(TRACEFS "events/fpm/enable", "1"), "enable fpm events"))
		goto cleanup;
	ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8");
	ASSERT_OK(write_file(TRACEFS "events/fpm/enable", "0"), "disable fpm events");
	if (!ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0, "read trace"))
		goto cleanup;

	ASSERT_EQ(count_substr(trace, " t2: "), 1, "f: event lines");
	ASSERT_EQ(count_substr(trace, " t2r: "), 1, "f%return event lines");
	func = ksym_addr("bpf_fentry_test2");
	site = ftrace_addr("bpf_fentry_test2");
	ASSERT_NEQ(site, 0, "bpf_fentry_test2 in available_filter_functions_addrs");
	snprintf(want, sizeof(want), " t2: (bpf_fentry_test2+0x%lx/", site - func);
	ASSERT_HAS(trace, want, "f: event names the function's ftrace site");
	ASSERT_HAS(trace, ") a=2 b=3\n", "f: event $arg1 and $arg2");
	ASSERT_HAS(trace, " t2r: (bpf_prog_test_run_tracing+",
		   "f%return event names the caller");
	ASSERT_HAS(trace, " <- bpf_fentry_test2) ret=5 a=2\n",
		   "f%return event $retval and entry $arg1");
cleanup:
	remove_events(defs, added);
}

static const char *const mod_defs[] = {
	"f:fpmmod/rec fpm_test_recurse",
	"f:fpmmod/recr fpm_test_recurse%return",
};

#define FPM_KO "/lib/fpm_test.ko"

static int load_fpm_test(void)
{
	int fd, err;

	fd = open(FPM_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return err;
}

/* fpm_test_recurse(2) from the test module: 3 calls. */
static int count_rec_events(int *entries, int *exits)
{
	static char trace[16384];
	char buf[64];
	int err;

	err = write_file(TRACEFS "trace", "");
	if (!err)
		err = fpm_run("call 2", buf, sizeof(buf));
	if (!err && read_file(TRACEFS "trace", trace, sizeof(trace)) < 0)
		err = -EIO;
	*entries = err ? -1 : count_substr(trace, " rec: ");
	*exits = err ? -1 : count_substr(trace, " recr: ");
	return err;
}

static void unload_and_reload(unsigned long before)
{
	int entries, exits;

	if (!ASSERT_OK(syscall(SYS_delete_module, "fpm_test", O_NONBLOCK),
		       "unload fpm_test with the events enabled"))
		return;
	if (!ASSERT_OK(load_fpm_test(), "load fpm_test again"))
		return;
	ASSERT_EQ(ksym_addr("fpm_test_recurse"), before,
		  "fpm_test_recurse() is back at the same address");
	ASSERT_OK(count_rec_events(&entries, &exits), "call 2 after the reload");
	ASSERT_EQ(entries, 0, "no f: event on the new module's function");
	ASSERT_EQ(exits, 0, "no f%return event on the new module's function");
}

static void module_unload(void)
{
	unsigned long before = ksym_addr("fpm_test_recurse");
	int added, entries, exits;

	if (!ASSERT_NEQ(before, 0, "fpm_test loaded") ||
	    !ASSERT_EQ(fpm_module_refcnt(), 0, "fpm_test unused"))
		return;
	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	added = add_events(mod_defs, ARRAY_SIZE(mod_defs));
	if (added < (int)ARRAY_SIZE(mod_defs) ||
	    !ASSERT_OK(write_file(TRACEFS "events/fpmmod/enable", "1"), "enable the events"))
		goto cleanup;
	ASSERT_OK(count_rec_events(&entries, &exits), "call 2");
	ASSERT_EQ(entries, 3, "f: events before the unload");
	ASSERT_EQ(exits, 3, "f%return events before the unload");
	unload_and_reload(before);
	ASSERT_OK(write_file(TRACEFS "events/fpmmod/enable", "0"), "disable the events");
cleanup:
	remove_events(mod_defs, added);
	if (fpm_module_refcnt() < 0)
		ASSERT_OK(load_fpm_test(), "load fpm_test back");
}

void test_fprobe_events(void)
{
	if (test__start_subtest("entry_and_return"))
		run();
	if (test__start_subtest("module_unload"))
		module_unload();
}
