/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fprobe-multi selftest runner: test registration, subtests and ASSERT_*.
 *
 * A test is "void test_NAME(void)" in prog_tests/NAME.c. The build lists
 * every such file in tests.h. A test may split itself into subtests with
 * test__start_subtest(); each subtest, or a test without any, is one
 * result. Results are printed as "ok NAME" / "not ok NAME" / "skip NAME"
 * lines, each followed by "# SECONDS s", and the run ends with
 * "N passed, N failed".
 *
 * Every ASSERT_* takes a label that says what is checked; on failure it
 * prints the label with the actual and expected values and marks the
 * current (sub)test failed. Each returns true when the check held.
 */
#ifndef __FPM_TEST_PROGS_H
#define __FPM_TEST_PROGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

bool test__start_subtest(const char *name);
void test__fail(void);
void test__skip(const char *why);
void test__log(const char *fmt, ...) __printf(1, 2);

#define __ASSERT(ok, label, fmt, ...) ({				\
	bool ___ok = (ok);						\
	if (!___ok) {							\
		test__log("%s:%d: %s: " fmt "\n", __FILE__, __LINE__,	\
			  (label), ##__VA_ARGS__);			\
		test__fail();						\
	}								\
	___ok;								\
})

#define ASSERT_EQ(actual, expected, label) ({				\
	long long ___a = (long long)(actual);				\
	long long ___e = (long long)(expected);				\
	__ASSERT(___a == ___e, label, "actual %lld (%#llx) != expected %lld (%#llx)", \
		 ___a, ___a, ___e, ___e);				\
})

#define ASSERT_NEQ(actual, unexpected, label) ({			\
	long long ___a = (long long)(actual);				\
	long long ___u = (long long)(unexpected);			\
	__ASSERT(___a != ___u, label, "unexpected value %lld", ___a);	\
})

#define ASSERT_GE(actual, bound, label) ({				\
	long long ___a = (long long)(actual);				\
	long long ___b = (long long)(bound);				\
	__ASSERT(___a >= ___b, label, "actual %lld < %lld", ___a, ___b); \
})

#define ASSERT_LE(actual, bound, label) ({				\
	long long ___a = (long long)(actual);				\
	long long ___b = (long long)(bound);				\
	__ASSERT(___a <= ___b, label, "actual %lld > %lld", ___a, ___b); \
})

#define ASSERT_LT(actual, bound, label) ({				\
	long long ___a = (long long)(actual);				\
	long long ___b = (long long)(bound);				\
	__ASSERT(___a < ___b, label, "actual %lld >= %lld", ___a, ___b); \
})

#define ASSERT_TRUE(cond, label)					\
	__ASSERT(!!(cond), label, "expected true")

#define ASSERT_FALSE(cond, label)					\
	__ASSERT(!(cond), label, "expected false")

#define ASSERT_STREQ(actual, expected, label) ({			\
	const char *___a = (actual), *___e = (expected);		\
	__ASSERT(!strcmp(___a, ___e), label, "actual '%s' != expected '%s'", \
		 ___a, ___e);						\
})

#define ASSERT_HAS(haystack, needle, label) ({				\
	const char *___h = (haystack), *___n = (needle);		\
	__ASSERT(strstr(___h, ___n), label, "'%s' not found in:\n%s",	\
		 ___n, ___h);						\
})

/* err: 0 on success, negative errno or -1 with errno set on failure. */
#define ASSERT_OK(err, label) ({					\
	long long ___r = (long long)(err);				\
	__ASSERT(!___r, label, "failed: %lld (errno %d: %s)", ___r,	\
		 errno, strerror(errno));				\
})

#define ASSERT_ERRNO(err, expected_errno, label) ({			\
	long long ___r = (long long)(err);				\
	int ___e = ___r < -1 ? (int)-___r : errno;			\
	__ASSERT(___r < 0 && ___e == (expected_errno), label,		\
		 "returned %lld errno %d (%s), expected -%s",		\
		 ___r, ___r < 0 ? ___e : 0, strerror(___r < 0 ? ___e : 0), \
		 #expected_errno);					\
})

#define ASSERT_OK_PTR(ptr, label) ({					\
	const void *___p = (ptr);					\
	int ___e = libbpf_get_error(___p);				\
	__ASSERT(!___e && ___p, label, "NULL or error pointer (%d: %s)", \
		 ___e ? ___e : -errno, strerror(___e ? -___e : errno));	\
})

#define ASSERT_ERR_PTR(ptr, expected_errno, label) ({			\
	const void *___p = (ptr);					\
	int ___e = ___p ? -libbpf_get_error(___p) : errno;		\
	__ASSERT(!___p && ___e == (expected_errno), label,		\
		 "returned %p errno %d (%s), expected -%s", ___p, ___e,	\
		 strerror(___e), #expected_errno);			\
})

#endif /* __FPM_TEST_PROGS_H */
