/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FPM_HELPERS_H
#define __FPM_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "fentry_test_values.h"

/* Address of a kernel symbol from /proc/kallsyms, 0 if absent. */
unsigned long ksym_addr(const char *name);
/*
 * The kallsyms name of the function containing @addr, in @name; "?" when
 * no text symbol lies at or below it. Returns @name.
 */
const char *ksym_name(unsigned long addr, char *name, size_t size);

/*
 * Address of the ftrace call site of a function, from
 * available_filter_functions_addrs (after the ENDBR under IBT); 0 if absent.
 */
unsigned long ftrace_addr(const char *name);

/* Call bpf_fentry_test1..8 once each (see progs/fentry_test_values.h). */
int trigger_fentry_tests(void);

/* Names bpf_fentry_test1..8, index 0..7. */
extern const char *const fentry_test_names[8];
/* Return values of bpf_fentry_test1..8. */
extern const int fentry_test_rets[8];
/*
 * Arguments net/bpf/test_run.c passes to bpf_fentry_test1..8, with the
 * width of each one's C type: the upper bits of a narrower register
 * argument are undefined. test8's is a stack address and is not listed.
 */
struct fentry_args {
	int nr;
	int bits[6];
	__u64 val[6];
};

extern const struct fentry_args fentry_test_args[8];
/* Their argument counts by BTF (bpf_get_func_arg_cnt()). */
extern const int fentry_test_nargs[8];
/* The low @bits bits of @v. */
__u64 fentry_arg_bits(__u64 v, int bits);

/* Attach cookies the tests give bpf_fentry_test1..8: 1..8. */
extern const __u64 fentry_test_cookies[8];

/*
 * Attach @prog as a kprobe.multi (or with @retprobe, kretprobe.multi) link
 * on bpf_fentry_test1..8, with cookies 1..8.
 */
struct bpf_link *attach_fentry_tests_multi(const struct bpf_program *prog, bool retprobe);

/*
 * Built against a base the series has not yet brought fprobe.multi links
 * to (mk/user.mk defines FPM_NO_FPROBE_MULTI there), a test that compares
 * them with other probes leaves that part out: have_fprobe_multi() is
 * false there, and skip_without_fprobe_multi() then marks the current
 * (sub)test skipped and returns true.
 */
bool have_fprobe_multi(void);
bool skip_without_fprobe_multi(void);

/*
 * Before the load of an object opened with NAME__open(): on such a base,
 * leave out its fprobe.multi programs (sections "fprobe.", "fretprobe."),
 * which its libbpf does not know. Returns 0 or -errno.
 */
int drop_fprobe_multi_progs(struct bpf_object *obj);

/* SKEL__open(), drop_fprobe_multi_progs(), SKEL__load(): the skeleton or NULL */
#define open_and_load_on_base(SKEL) ({					\
	typeof(SKEL##__open()) ___s = SKEL##__open();			\
	if (___s && (drop_fprobe_multi_progs(___s->obj) || SKEL##__load(___s))) { \
		SKEL##__destroy(___s);					\
		___s = NULL;						\
	}								\
	___s;								\
})

/*
 * Attach @prog as a fprobe.multi session on the @cnt functions @syms, with
 * @cookies; NULL with errno EOPNOTSUPP where the base has no such links.
 */
struct bpf_link *attach_fsession(const struct bpf_program *prog, const char * const *syms,
				 const __u64 *cookies, size_t cnt);

/* The running kernel's major version (7 for 7.3.4), or -1 */
int kernel_major(void);

/*
 * The function_graph tracer's funcgraph-retval text for a call shown as
 * @head that returned @v, as the running kernel prints it: "@head = 0x2"
 * up to 6.x, "@head ret=0x2" on 7.x, then the end of the comment. Written
 * to @buf, which is returned.
 */
const char *graph_retval(char *buf, size_t size, const char *head, unsigned long v);

/* How many times @needle occurs in @s. */
int count_substr(const char *s, const char *needle);

/* Whole-file helpers for procfs and tracefs; return 0 or -errno. */
int write_file(const char *path, const char *buf);
int append_file(const char *path, const char *buf);
/* Read up to size - 1 bytes, NUL-terminated; returns length or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);
/* Create (or truncate) @path with the @size bytes at @data; 0 or -errno. */
int create_file(const char *path, const void *data, size_t size);

/*
 * Run @cmd with sh; its output (stdout, and stderr if @cmd joins it) goes
 * to @out, at most size - 1 bytes, NUL-terminated. Returns its exit status,
 * -1 if it did not exit, or -errno.
 */
int run_cmd(const char *cmd, char *out, size_t size);

#define TRACEFS "/sys/kernel/tracing/"

/* The test module's scenario file, see selftests/kmod/fpm_test.c. */
#define FPM_RUN "/sys/kernel/debug/fpm_test/run"
/* Run fpm_test scenario @cmd and read its result line; 0 or -errno. */
int fpm_run(const char *cmd, char *buf, size_t size);
/* The test module's reference count; -1 when it is not loaded. */
long fpm_module_refcnt(void);

#endif
