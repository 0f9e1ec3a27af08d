// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe-multi selftest runner, in the manner of test_progs.
 *
 *   runner [-v] [-l] [-t FILTER[,FILTER...]]
 *
 * FILTER is a glob matched against "test" or "test/subtest". Results go to
 * stdout, one line each ("ok NAME # 1.25 s": the seconds it took), then
 * "N passed, N failed" as the last line. The exit status is 1 when any
 * result failed.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <time.h>
#include "test_progs.h"

struct test_def {
	const char *name;
	void (*fn)(void);
};

/* Generated: a prototype for each test and FPM_TESTS, the table rows. */
#include "tests.h"

static const struct test_def tests[] = { FPM_TESTS };

static struct {
	char **filters;
	int nr_filters;
	bool list;
	bool verbose;
} env;

static struct {
	const char *test;
	char sub[128];
	bool in_sub;
	bool failed;
	bool skipped;
	struct timespec start;
	int nr_subs;
	int passed, failed_total, skipped_total;
} cur;

static bool match(const char *test, const char *sub)
{
	char full[256];
	int i;

	if (!env.nr_filters)
		return true;
	snprintf(full, sizeof(full), "%s/%s", test, sub ? sub : "*");
	for (i = 0; i < env.nr_filters; i++) {
		const char *f = env.filters[i];

		if (!fnmatch(f, test, 0))
			return true;
		/* "test/sub" filters select subtests; a bare "test/x" also selects the test */
		if (strchr(f, '/') && !fnmatch(f, full, 0))
			return true;
		if (!sub && strchr(f, '/') && !strncmp(f, test, strlen(test)) &&
		    f[strlen(test)] == '/')
			return true;
	}
	return false;
}

void test__log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void test__fail(void)
{
	cur.failed = true;
}

void test__skip(const char *why)
{
	cur.skipped = true;
	test__log("  skipped: %s\n", why);
}

static void mark_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &cur.start);
}

static double seconds_since_start(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - cur.start.tv_sec) +
	       (now.tv_nsec - cur.start.tv_nsec) / 1e9;
}

static void report(const char *name)
{
	const char *status = "ok";

	if (cur.failed) {
		status = "not ok";
		cur.failed_total++;
	} else if (cur.skipped) {
		status = "skip";
		cur.skipped_total++;
	} else {
		cur.passed++;
	}
	printf("%s %s # %.2f s\n", status, name, seconds_since_start());
	fflush(stdout);
	cur.failed = false;
	cur.skipped = false;
	mark_start();
}

static void end_subtest(void)
{
	char name[256];

	if (!cur.in_sub)
		return;
	snprintf(name, sizeof(name), "%s/%s", cur.test, cur.sub);
	report(name);
	cur.in_sub = false;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (!match(cur.test, name))
		return false;
	cur.nr_subs++;
	cur.in_sub = true;
	snprintf(cur.sub, sizeof(cur.sub), "%s", name);
	if (env.list) {
		printf("%s/%s\n", cur.test, name);
		cur.in_sub = false;
		return false;
	}
	if (env.verbose)
		printf("# %s/%s\n", cur.test, name);
	mark_start();
	return true;
}

static void run_test(const struct test_def *t)
{
	bool failed_outside;

	memset(cur.sub, 0, sizeof(cur.sub));
	cur.test = t->name;
	cur.nr_subs = 0;
	cur.failed = false;
	cur.skipped = false;
	if (env.verbose)
		printf("# %s\n", t->name);
	mark_start();
	t->fn();
	end_subtest();
	if (env.list) {
		if (!cur.nr_subs)
			printf("%s\n", t->name);
		return;
	}
	/* A failure outside any subtest (setup, cleanup) fails the test itself. */
	failed_outside = cur.failed;
	if (!cur.nr_subs || failed_outside)
		report(t->name);
}

static void parse_filters(char *arg)
{
	char *tok;

	for (tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		env.filters = realloc(env.filters, (env.nr_filters + 1) * sizeof(char *));
		if (!env.filters)
			exit(2);
		env.filters[env.nr_filters++] = tok;
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stdout, fmt, ap);
}

int main(int argc, char **argv)
{
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "t:lv")) != -1) {
		switch (opt) {
		case 't':
			parse_filters(optarg);
			break;
		case 'l':
			env.list = true;
			break;
		case 'v':
			env.verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-v] [-l] [-t FILTER[,FILTER...]]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!match(tests[i].name, NULL))
			continue;
		run_test(&tests[i]);
	}
	if (env.list)
		return 0;
	if (cur.skipped_total)
		printf("%d skipped\n", cur.skipped_total);
	printf("%d passed, %d failed\n", cur.passed, cur.failed_total);
	return cur.failed_total ? 1 : 0;
}
