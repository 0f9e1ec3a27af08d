// SPDX-License-Identifier: GPL-2.0
/*
 * The examples of the documentation, run as written. The build copies each
 * shell block of README.md marked "<!-- example: NAME -->" into
 * doc_examples.h, and a subtest runs it with "set -e" in /tmp, with the
 * files it names put there first. It compiles each BPF program of
 * Documentation/ marked ".. example: NAME" as it is shown, and a subtest
 * loads, attaches and runs it.
 */
#include <fcntl.h>
#include "test_progs.h"
#include "helpers.h"
#include "doc_examples.h"
#include "bpftool_autoattach.skel.h"
#include "read_latency.skel.h"

static char out[16384];

/* Run @script with sh in /tmp; returns its exit status, output in out[]. */
static int run_example(const char *script)
{
	char text[4096];
	int err;

	snprintf(text, sizeof(text), "set -e\ncd /tmp\n%s", script);
	err = create_file("/tmp/example.sh", text, strlen(text));
	if (err)
		return err;
	return run_cmd("PATH=/bin sh /tmp/example.sh 2>&1", out, sizeof(out));
}

/* "bpftool link attach" on a session program, in "BPF fprobe.multi programs" */
static void test_readme_bpftool_attach(void)
{
	size_t size;
	const void *elf = bpftool_autoattach_bpf__elf_bytes(&size);

	unlink("/sys/fs/bpf/session");
	if (!ASSERT_OK(create_file("/tmp/session.bpf.o", elf, size), "session.bpf.o"))
		return;
	if (!ASSERT_EQ(run_example(doc_example_readme_bpftool_attach), 0, "the README example"))
		test__log("%s", out);
	ASSERT_HAS(out, "\tfprobe.session  func_cnt ", "link show of the session");
	ASSERT_HAS(out, "  session_size 8  saved_args 2  ", "its sizes");
	ASSERT_EQ(access("/sys/fs/bpf/session_link", F_OK), -1, "the link's pin removed");
	unlink("/sys/fs/bpf/session");
	unlink("/tmp/session.bpf.o");
	unlink("/tmp/example.sh");
}

/* The trace buffer's text, in out[]. */
static bool read_trace(void)
{
	ssize_t n = read_file("/sys/kernel/tracing/trace", out, sizeof(out));

	return n > 0;
}

/*
 * fprobe_multi.rst's session on vfs_read(): one read of 100 bytes, asked
 * for 4096, prints its line with both numbers.
 */
static void test_rst_read_latency(void)
{
	struct read_latency_bpf *skel;
	char buf[4096];
	int fd;

	skel = read_latency_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "load the example"))
		return;
	if (!ASSERT_OK(read_latency_bpf__attach(skel), "auto-attach the example"))
		goto out;
	memset(buf, 'x', 100);
	if (!ASSERT_OK(write_file("/sys/kernel/tracing/trace", ""), "clear the trace") ||
	    !ASSERT_OK(create_file("/tmp/hundred", buf, 100), "a file of 100 bytes"))
		goto out;
	fd = open("/tmp/hundred", O_RDONLY);
	if (!ASSERT_GE(fd, 0, "open the file"))
		goto out;
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 100, "read it");
	close(fd);
	read_latency_bpf__detach(skel);
	if (ASSERT_TRUE(read_trace(), "read the trace"))
		ASSERT_HAS(out, "read 100 of 4096 bytes in ", "the example's line");
out:
	unlink("/tmp/hundred");
	read_latency_bpf__destroy(skel);
}

/*
 * fptrace's man page (tools/bpf/fptrace/Documentation/fptrace.rst): each
 * example as written, its output as shown where the page shows it.
 */
static void test_fptrace_count(void)
{
	const char *head = "Attaching 2 probes...\n\n\n";
	char script[1024];
	const char *p, *nl;
	int n = 0, dd = 0;

	/* the guest is idle: a reader runs alongside, as on a live system */
	snprintf(script, sizeof(script),
		 "(while :; do dd if=/proc/version of=/dev/null 2>/dev/null; sleep 0.2; done) & r=$!\n"
		 "%s\nkill $r", doc_example_fptrace_count);
	if (!ASSERT_EQ(run_example(script), 0, "the count example"))
		return;
	if (!ASSERT_TRUE(!strncmp(out, head, strlen(head)), "attached, then the map"))
		return;
	/* one "@[COMM]: N" line a command that read, and nothing else */
	for (p = out + strlen(head); *p; p = nl + 1) {
		char comm[16];
		unsigned long cnt;

		nl = strchr(p, '\n');
		if (!ASSERT_TRUE(nl, "a whole line") ||
		    !ASSERT_EQ(sscanf(p, "@[%15[^]]]: %lu", comm, &cnt), 2, "a count line"))
			break;
		ASSERT_GE(cnt, 1, "a command that read");
		dd += !strcmp(comm, "dd");
		n++;
	}
	ASSERT_EQ(dd, 1, "the reader's dd listed once");
}

/* README's fptrace commands: each one's mark in what they print */
static void test_readme_fptrace(void)
{
	if (!ASSERT_EQ(run_example(doc_example_readme_fptrace), 0, "the README's fptrace lines"))
		return;
	ASSERT_HAS(out, "Attaching 2 probes...\n", "the count one-liner attached");
	/* "\x20": bpftrace ends a histogram's header line with a space */
	ASSERT_HAS(out, "@bytes:\x20\n[512, 1K)             10 |", "dd's ten reads in the hist");
	ASSERT_HAS(out, "\nfprobe:vfs_read\n    struct file * file\n    char * buf\n"
		   "    size_t count\n    loff_t * pos\nfprobe:vfs_readlink\n",
		   "vfs_read listed with its parameters");
}

/*
 * README's workload for the idle guest: dd's reads of /proc/meminfo reach
 * vfs_read(), the text and then the end of the file; busybox's cat, which
 * copies with sendfile(), makes none.
 */
static void test_readme_guest_reads(void)
{
	const char *cat_reads =
		"fptrace -e 'fprobe:vfs_read /comm == \"cat\"/ { @reads = count(); }' \\\n"
		"	-c 'cat /proc/meminfo'";

	if (!ASSERT_EQ(run_example(doc_example_readme_guest_reads), 0, "the README's dd reads"))
		return;
	ASSERT_HAS(out, "\n@reads: 2\n", "dd's two reads counted");
	if (!ASSERT_EQ(run_example(cat_reads), 0, "cat of /proc/meminfo"))
		return;
	ASSERT_HAS(out, "MemTotal:", "cat copied the file");
	ASSERT_TRUE(!strstr(out, "@reads"), "cat made no vfs_read() call");
}

static void test_fptrace_hist(void)
{
	char want[512];

	if (!ASSERT_EQ(run_example(doc_example_fptrace_hist), 0, "the hist example"))
		return;
	/* the page leaves out the blank line that ends a histogram */
	snprintf(want, sizeof(want), "%s\n", doc_example_fptrace_hist_output);
	ASSERT_STREQ(out, want, "the output the page shows");
}

static void test_fptrace_list(void)
{
	if (!ASSERT_EQ(run_example(doc_example_fptrace_list), 0, "the -lv example"))
		return;
	ASSERT_STREQ(out, doc_example_fptrace_list_output, "the listing the page shows");
}

static void test_fptrace_session(void)
{
	if (!ASSERT_EQ(run_example(doc_example_fptrace_session), 0, "the session example"))
		return;
	ASSERT_HAS(out, "@calls[0]: 1\n@calls[1]: 1\n@calls[2]: 1\n@calls[3]: 1\n",
		   "one exit of each depth, with the depth saved at entry");
	ASSERT_HAS(out, "@ns:\x20\n[", "the latency histogram");
}

void test_doc_examples(void)
{
	if (test__start_subtest("readme_bpftool_attach"))
		test_readme_bpftool_attach();
	if (test__start_subtest("rst_read_latency"))
		test_rst_read_latency();
	if (test__start_subtest("readme_fptrace"))
		test_readme_fptrace();
	if (test__start_subtest("readme_guest_reads"))
		test_readme_guest_reads();
	if (test__start_subtest("fptrace_count"))
		test_fptrace_count();
	if (test__start_subtest("fptrace_hist"))
		test_fptrace_hist();
	if (test__start_subtest("fptrace_list"))
		test_fptrace_list();
	if (test__start_subtest("fptrace_session"))
		test_fptrace_session();
}
