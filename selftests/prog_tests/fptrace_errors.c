// SPDX-License-Identifier: GPL-2.0
/*
 * fptrace's errors in the guest, against the running kernel's functions
 * and BTF: each bad one-liner must fail with exit status 1 and print, on
 * stderr, exactly its bpftrace-style message (file, line, columns), the
 * line and a marker under the range, before anything is loaded.
 */
#include <string.h>
#include "test_progs.h"
#include "helpers.h"

struct bad_script {
	const char *name;
	const char *prog;	/* in single quotes: no ' inside */
	const char *msg;	/* the whole output */
};

/* Messages too long for one line of source */
#define RETVAL_AT_ENTRY	"The retval builtin can only be used with fretprobe and kretprobe probes"
#define PLUS_ON_STRING	"The + operator can not be used on expressions of types string[16], int64"
#define MISMATCH	"Type mismatch for @x: trying to assign value of type 'int64' "
#define MISMATCH_COUNT	"when map already contains a value of type 'count_t'"

static const struct bad_script bad[] = {
	{ "unknown_function", "fprobe:no_such_function_xyz { @ = count(); }",
	  "stdin:1:1-28: ERROR: function 'no_such_function_xyz' is not traceable\n"
	  "fprobe:no_such_function_xyz { @ = count(); }\n"
	  "^~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "notrace_function", "fprobe:fpm_test_recurse_notrace { @ = count(); }",
	  "stdin:1:1-32: ERROR: function 'fpm_test_recurse_notrace' is not traceable\n"
	  "fprobe:fpm_test_recurse_notrace { @ = count(); }\n"
	  "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n" },
	{ "pattern_matches_nothing", "fprobe:zzq_nothing_* { @ = count(); }",
	  "stdin:1:1-21: ERROR: pattern 'zzq_nothing_*' matches no traceable function\n"
	  "fprobe:zzq_nothing_* { @ = count(); }\n"
	  "^~~~~~~~~~~~~~~~~~~~\n" },
	{ "retval_at_entry", "fprobe:ksys_read { @ = hist(retval); }",
	  "stdin:1:29-35: ERROR: " RETVAL_AT_ENTRY "\n"
	  "fprobe:ksys_read { @ = hist(retval); }\n"
	  "                            ^~~~~~\n" },
	{ "no_such_argument", "fprobe:ksys_read { @[args.nosuch] = count(); }",
	  "stdin:1:22-33: ERROR: Can't find function parameter 'nosuch' of 'ksys_read'\n"
	  "fprobe:ksys_read { @[args.nosuch] = count(); }\n"
	  "                     ^~~~~~~~~~~\n" },
	{ "string_arithmetic", "fprobe:ksys_read { @x = comm + 1; }",
	  "stdin:1:25-33: ERROR: " PLUS_ON_STRING "\n"
	  "fprobe:ksys_read { @x = comm + 1; }\n"
	  "                        ^~~~~~~~\n" },
	{ "map_type_mismatch", "fprobe:ksys_read { @x = count(); @x = 1; }",
	  "stdin:1:39-40: ERROR: " MISMATCH MISMATCH_COUNT "\n"
	  "fprobe:ksys_read { @x = count(); @x = 1; }\n"
	  "                                      ^\n" },
};

static char out[4096];

static void check(const struct bad_script *b)
{
	char cmd[512], links[512];
	int status;

	snprintf(cmd, sizeof(cmd), "/bin/fptrace -e '%s' 2>&1 >/dev/null", b->prog);
	status = run_cmd(cmd, out, sizeof(out));
	ASSERT_EQ(status, 1, "exit status 1");
	ASSERT_STREQ(out, b->msg, "the message, the line and the marker");
	/* refused before anything was attached */
	ASSERT_EQ(run_cmd("/bin/bpftool link show", links, sizeof(links)), 0, "bpftool link show");
	ASSERT_STREQ(links, "", "no link left");
}

/* -p takes the id of a process that exists; anything else is refused */
static void check_pid(const char *arg, const char *msg)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "timeout 10 /bin/fptrace -p %s -e '%s' 2>&1 >/dev/null",
		 arg, "fprobe:ksys_read { @ = count(); }");
	ASSERT_EQ(run_cmd(cmd, out, sizeof(out)), 1, "exit status 1");
	ASSERT_STREQ(out, msg, "the message");
}

void test_fptrace_errors(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (test__start_subtest(bad[i].name))
			check(&bad[i]);
	if (test__start_subtest("bad_pid")) {
		check_pid("abc", "ERROR: -p abc: not a process id\n");
		check_pid("0", "ERROR: -p 0: not a process id\n");
		check_pid("12x", "ERROR: -p 12x: not a process id\n");
		check_pid("4000000", "ERROR: -p 4000000: no such process\n");
	}
}
