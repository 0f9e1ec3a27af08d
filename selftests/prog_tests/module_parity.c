// SPDX-License-Identifier: GPL-2.0
/*
 * Parity on test-module functions, in one run: a classic kretprobe, a
 * kretprobe.multi link and a fprobe.multi session on fpm_test_recurse(),
 * called 8 deep, and on fpm_test_sleep(), which sleeps and wakes up on
 * the other CPU, see the same returns with the same values and IPs. On a
 * base without fprobe.multi links, the first two.
 */
#include "test_progs.h"
#include "helpers.h"
#include "module_parity.h"
#include "module_parity.skel.h"

/*
 * Nine nested calls: a classic kretprobe keeps 10 instances on 2 CPUs, and
 * at 16 deep it loses the 7 innermost returns, which is what the others
 * fix, not what this test compares.
 */
#define DEPTH 8

static const char * const funcs[] = { "fpm_test_recurse", "fpm_test_sleep" };
static const __u64 cookies[] = { 1, 2 };

/* The tables of one probe kind: [0] unused, [1] recurse, [2] sleep. */
static int read_tables(struct module_parity_bpf *skel, int probe, struct ret_table *t)
{
	__u32 key;
	int i;

	memset(t, 0, 3 * sizeof(*t));
	for (i = 1; i <= 2; i++) {
		key = probe * 3 + i;
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.tables), &key, &t[i]))
			return -errno;
	}
	return 0;
}

static void check_table(const struct ret_table *t, const char *who)
{
	char l[96];
	int v;

	snprintf(l, sizeof(l), "%s: returns of fpm_test_recurse", who);
	ASSERT_EQ(t[1].returns, DEPTH + 1, l);
	for (v = 0; v <= DEPTH; v++) {
		snprintf(l, sizeof(l), "%s: fpm_test_recurse returned %d once", who, v);
		ASSERT_EQ(t[1].by_value[v], 1, l);
	}
	snprintf(l, sizeof(l), "%s: fpm_test_recurse IP", who);
	ASSERT_EQ(t[1].func_ip, ksym_addr("fpm_test_recurse"), l);
	snprintf(l, sizeof(l), "%s: returns of fpm_test_sleep", who);
	ASSERT_EQ(t[2].returns, 1, l);
	snprintf(l, sizeof(l), "%s: fpm_test_sleep returned 42", who);
	ASSERT_EQ(t[2].by_value[42], 1, l);
	snprintf(l, sizeof(l), "%s: fpm_test_sleep IP", who);
	ASSERT_EQ(t[2].func_ip, ksym_addr("fpm_test_sleep"), l);
	snprintf(l, sizeof(l), "%s: no other return value", who);
	ASSERT_EQ(t[1].other + t[2].other, 0, l);
}

void test_module_parity(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mopts, .syms = (const char **)funcs,
		    .cookies = cookies, .cnt = 2, .retprobe = true);
	struct ret_table classic_t[3], multi_t[3], fsession_t[3];
	struct bpf_link *classic[2] = {}, *multi = NULL, *fsession = NULL;
	struct module_parity_bpf *skel;
	char buf[96], cmd[32];
	int i;

	skel = open_and_load_on_base(module_parity_bpf);
	if (!ASSERT_OK_PTR(skel, "open and load module_parity"))
		return;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, kopts, .retprobe = true, .bpf_cookie = cookies[i]);

		classic[i] = bpf_program__attach_kprobe_opts(skel->progs.classic_ret, funcs[i],
							     &kopts);
		if (!ASSERT_OK_PTR(classic[i], "attach classic kretprobe"))
			goto out;
	}
	multi = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_ret, NULL, &mopts);
	if (!ASSERT_OK_PTR(multi, "attach kretprobe.multi"))
		goto out;
	if (have_fprobe_multi()) {
		fsession = attach_fsession(skel->progs.fsession_ret, funcs, cookies, 2);
		if (!ASSERT_OK_PTR(fsession, "attach fprobe.session"))
			goto out;
	} else {
		test__log("  no fprobe.multi links on this base: the session left out\n");
	}

	snprintf(cmd, sizeof(cmd), "call %d", DEPTH);
	if (!ASSERT_OK(fpm_run(cmd, buf, sizeof(buf)), cmd))
		goto out;
	ASSERT_STREQ(buf, "ret=8\n", "fpm_test_recurse(8)");
	if (!ASSERT_OK(fpm_run("sleep 41", buf, sizeof(buf)), "sleep 41"))
		goto out;
	ASSERT_STREQ(buf, "ret=42 cpu_before=0 cpu_after=1\n",
		     "fpm_test_sleep(41) migrated from CPU 0 to 1");

	if (!ASSERT_OK(read_tables(skel, PROBE_CLASSIC, classic_t), "read kretprobe tables") ||
	    !ASSERT_OK(read_tables(skel, PROBE_MULTI, multi_t), "read kretprobe.multi tables") ||
	    !ASSERT_OK(read_tables(skel, PROBE_FSESSION, fsession_t), "read fprobe.session tables"))
		goto out;
	check_table(classic_t, "kretprobe");
	check_table(multi_t, "kretprobe.multi");
	ASSERT_OK(memcmp(classic_t, multi_t, sizeof(multi_t)),
		  "kretprobe and kretprobe.multi tables are identical");
	if (!fsession)
		goto out;
	check_table(fsession_t, "fprobe.session");
	ASSERT_OK(memcmp(classic_t, fsession_t, sizeof(fsession_t)),
		  "kretprobe and fprobe.session tables are identical");
out:
	bpf_link__destroy(fsession);
	bpf_link__destroy(multi);
	for (i = 0; i < 2; i++)
		bpf_link__destroy(classic[i]);
	module_parity_bpf__destroy(skel);
}
