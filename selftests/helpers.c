// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "helpers.h"
#include "test_progs.h"
#include "trigger.skel.h"

const char *const fentry_test_names[8] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
	"bpf_fentry_test4", "bpf_fentry_test5", "bpf_fentry_test6",
	"bpf_fentry_test7", "bpf_fentry_test8",
};

const int fentry_test_rets[8] = { 2, 5, 15, 34, 65, 111, 0, 0 };

const __u64 fentry_test_cookies[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* test8's argument, a stack address, is not listed: tests check it apart. */
const struct fentry_args fentry_test_args[8] = {
	{ 1, { 32 }, { 1 } },
	{ 2, { 32, 64 }, { 2, 3 } },
	{ 3, { 8, 32, 64 }, { 4, 5, 6 } },
	{ 4, { 64, 8, 32, 64 }, { 7, 8, 9, 10 } },
	{ 5, { 64, 64, 16, 32, 64 }, { 11, 12, 13, 14, 15 } },
	{ 6, { 64, 64, 16, 32, 64, 64 }, { 16, 17, 18, 19, 20, 21 } },
	{ 1, { 64 }, { 0 } },
	{ 0 },
};

const int fentry_test_nargs[8] = { 1, 2, 3, 4, 5, 6, 1, 1 };

__u64 fentry_arg_bits(__u64 v, int bits)
{
	return bits == 64 ? v : v & ((1ULL << bits) - 1);
}

/*
 * The core kernel's symbols never move, so /proc/kallsyms is read for them
 * once (under TCG one read takes about a second) and kept sorted by
 * address. Module and BPF symbols (a "[name]" column) come and go: they
 * are looked up in /proc/kallsyms each time.
 */
struct ksym {
	unsigned long addr;
	char type;
	char *name;
};

static struct {
	struct ksym *syms;
	size_t nr, cap;
	unsigned long etext;
	bool loaded;
} core_ksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool add_core_ksym(unsigned long addr, char type, const char *name)
{
	struct ksym *k;

	if (core_ksyms.nr == core_ksyms.cap) {
		size_t cap = core_ksyms.cap ? core_ksyms.cap * 2 : 4096;

		k = realloc(core_ksyms.syms, cap * sizeof(*k));
		if (!k)
			return false;
		core_ksyms.syms = k;
		core_ksyms.cap = cap;
	}
	k = &core_ksyms.syms[core_ksyms.nr];
	k->name = strdup(name);
	if (!k->name)
		return false;
	k->addr = addr;
	k->type = type;
	core_ksyms.nr++;
	if (!strcmp(name, "_etext"))
		core_ksyms.etext = addr;
	return true;
}

static void load_core_ksyms(void)
{
	char sym[256], mod[64], type;
	unsigned long addr;
	char line[512];
	FILE *f;

	if (core_ksyms.loaded)
		return;
	core_ksyms.loaded = true;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s %63s", &addr, &type, sym, mod) == 3 &&
		    !add_core_ksym(addr, type, sym))
			break;
	}
	fclose(f);
	qsort(core_ksyms.syms, core_ksyms.nr, sizeof(*core_ksyms.syms), ksym_cmp);
}

static unsigned long scan_ksym_addr(const char *name)
{
	unsigned long addr, found = 0;
	char sym[256], type;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, sym) == 3) {
		if (!strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

unsigned long ksym_addr(const char *name)
{
	size_t i;

	load_core_ksyms();
	for (i = 0; i < core_ksyms.nr; i++) {
		if (!strcmp(core_ksyms.syms[i].name, name))
			return core_ksyms.syms[i].addr;
	}
	return scan_ksym_addr(name);
}

static const char *scan_ksym_name(unsigned long addr, char *name, size_t size)
{
	unsigned long a, best = 0;
	char sym[256], type;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return name;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &a, &type, sym) == 3) {
		if ((type == 't' || type == 'T') && a <= addr && a > best) {
			best = a;
			snprintf(name, size, "%s", sym);
		}
	}
	fclose(f);
	return name;
}

const char *ksym_name(unsigned long addr, char *name, size_t size)
{
	size_t lo = 0, hi, mid;

	snprintf(name, size, "?");
	load_core_ksyms();
	if (!core_ksyms.etext || addr >= core_ksyms.etext)
		return scan_ksym_name(addr, name, size);
	/* the last text symbol at or below @addr */
	hi = core_ksyms.nr;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (core_ksyms.syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct ksym *k = &core_ksyms.syms[lo];

		if (k->type == 't' || k->type == 'T') {
			snprintf(name, size, "%s", k->name);
			break;
		}
	}
	return name;
}

unsigned long ftrace_addr(const char *name)
{
	unsigned long addr, found = 0;
	char sym[256];
	FILE *f;

	f = fopen(TRACEFS "available_filter_functions_addrs", "r");
	if (!f)
		return 0;
	while (fscanf(f, "%lx %255s%*[^\n]", &addr, sym) == 2) {
		if (!strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

int trigger_fentry_tests(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	static struct trigger_bpf *skel;
	int err;

	if (!skel) {
		skel = trigger_bpf__open_and_load();
		if (!skel)
			return -errno;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.trigger), &topts);
	if (err)
		return -errno;
	/* test_run sets retval 0 only when every bpf_fentry_testN returned its value */
	return topts.retval ? -EIO : 0;
}

struct bpf_link *attach_fentry_tests_multi(const struct bpf_program *prog, bool retprobe)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts,
		    .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies,
		    .cnt = NR_FENTRY_TESTS,
		    .retprobe = retprobe);

	return bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
}

#ifdef FPM_NO_FPROBE_MULTI
bool have_fprobe_multi(void)
{
	return false;
}

struct bpf_link *attach_fsession(const struct bpf_program *prog, const char * const *syms,
				 const __u64 *cookies, size_t cnt)
{
	errno = EOPNOTSUPP;
	return NULL;
}
#else
bool have_fprobe_multi(void)
{
	return true;
}

struct bpf_link *attach_fsession(const struct bpf_program *prog, const char * const *syms,
				 const __u64 *cookies, size_t cnt)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)syms,
		    .cookies = cookies, .cnt = cnt, .session = true);

	return bpf_program__attach_fprobe_multi_opts(prog, NULL, &opts);
}
#endif

int drop_fprobe_multi_progs(struct bpf_object *obj)
{
	struct bpf_program *prog;
	const char *sec;
	int err;

	if (have_fprobe_multi())
		return 0;
	bpf_object__for_each_program(prog, obj) {
		sec = bpf_program__section_name(prog);
		if (strncmp(sec, "fprobe.", 7) && strncmp(sec, "fretprobe.", 10))
			continue;
		err = bpf_program__set_autoload(prog, false);
		if (err)
			return err;
	}
	return 0;
}

bool skip_without_fprobe_multi(void)
{
	if (have_fprobe_multi())
		return false;
	test__skip("this base has no fprobe.multi links yet");
	return true;
}

int kernel_major(void)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	return atoi(u.release);
}

const char *graph_retval(char *buf, size_t size, const char *head, unsigned long v)
{
	snprintf(buf, size, kernel_major() >= 7 ? "%s ret=0x%lx */" : "%s = 0x%lx */", head, v);
	return buf;
}

int count_substr(const char *s, const char *needle)
{
	int n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static int put_file(const char *path, const void *buf, ssize_t len, int flags)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, flags, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n != len)
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

int write_file(const char *path, const char *buf)
{
	return put_file(path, buf, strlen(buf), O_WRONLY | O_TRUNC);
}

int append_file(const char *path, const char *buf)
{
	return put_file(path, buf, strlen(buf), O_WRONLY | O_APPEND);
}

int create_file(const char *path, const void *data, size_t size)
{
	return put_file(path, data, size, O_WRONLY | O_CREAT | O_TRUNC);
}

int run_cmd(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;
	int status;

	if (!f)
		return -errno;
	n = fread(out, 1, size - 1, f);
	out[n] = 0;
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (len < (ssize_t)size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			len = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (len >= 0)
		buf[len] = 0;
	return len;
}

int fpm_run(const char *cmd, char *buf, size_t size)
{
	ssize_t n;
	int err;

	err = write_file(FPM_RUN, cmd);
	if (err)
		return err;
	n = read_file(FPM_RUN, buf, size);
	if (n < 0)
		return n;
	return n ? 0 : -ENODATA;
}

long fpm_module_refcnt(void)
{
	char buf[32];

	if (read_file("/sys/module/fpm_test/refcnt", buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
}
