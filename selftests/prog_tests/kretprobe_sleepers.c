// SPDX-License-Identifier: GPL-2.0
/*
 * A thousand threads asleep in do_nanosleep() under a kretprobe.multi
 * link, then all woken at once by a signal: every sleep must be seen at
 * entry and at return, with -ERESTART_RESTARTBLOCK, and none missed. A
 * review run of this scenario once left the guest idle (about 1 run in
 * 12), so it runs several rounds, each bounded by a deadline.
 *
 * The first round's threads exist before the links, so they have no
 * shadow stack: they all go to sleep at once and take stacks from the
 * small lazy pool, and a sleep that finds it empty is a counted miss.
 * The later rounds' threads are forked after the links: they get no
 * stack at fork either, but each fork adds one to the pool, so each finds
 * one there, and none is missed.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include "test_progs.h"
#include "helpers.h"
#include "kretprobe_sleepers.skel.h"

#define NR_SLEEPERS	1000
#define NR_ROUNDS	4
#define DEADLINE_S	300

struct sleeper {
	pthread_t thread;
	pid_t tid;
	int err;	/* errno of nanosleep(), 0 if it returned 0 */
	int done;	/* set when the thread is about to exit */
};

static struct sleeper sleepers[NR_SLEEPERS];
static int gate[2] = { -1, -1 };	/* a byte each lets the threads sleep */

static void on_usr1(int sig)
{
}

static void *sleep_long(void *arg)
{
	struct sleeper *s = arg;
	struct timespec ts = { .tv_sec = 3600 };

	char b;

	__atomic_store_n(&s->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (gate[0] >= 0 && read(gate[0], &b, 1) != 1)
		s->err = -1;
	else
		s->err = nanosleep(&ts, NULL) ? errno : 0;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether thread @tid is asleep ("S" in its stat line) */
static bool asleep(pid_t tid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Wait until every sleeper entered do_nanosleep() and is asleep there. */
static bool wait_all_asleep(struct kretprobe_sleepers_bpf *skel)
{
	time_t end = time(NULL) + DEADLINE_S;
	int i = 0;

	while (__atomic_load_n(&skel->bss->entries, __ATOMIC_ACQUIRE) < NR_SLEEPERS) {
		if (time(NULL) > end)
			return false;
		usleep(10000);
	}
	while (i < NR_SLEEPERS) {
		if (asleep(sleepers[i].tid)) {
			i++;
			continue;
		}
		if (time(NULL) > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* Start the sleepers; returns how many threads were created. */
static int start_sleepers(void)
{
	pthread_attr_t attr;
	int i, err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < NR_SLEEPERS && !err; i++) {
		sleepers[i] = (struct sleeper){};
		err = pthread_create(&sleepers[i].thread, &attr, sleep_long, &sleepers[i]);
	}
	pthread_attr_destroy(&attr);
	return err ? i - 1 : i;
}

/*
 * Wake every sleeper with SIGUSR1 and reap it; returns how many slept to
 * EINTR. A thread that got the signal before it slept (on a failed round)
 * gets it again until it is done.
 */
static int wake_all(int started)
{
	int i, left, eintr = 0;

	do {
		for (i = 0, left = 0; i < started; i++) {
			if (__atomic_load_n(&sleepers[i].done, __ATOMIC_ACQUIRE))
				continue;
			pthread_kill(sleepers[i].thread, SIGUSR1);
			left++;
		}
		if (left)
			usleep(10000);
	} while (left);
	for (i = 0; i < started; i++) {
		pthread_join(sleepers[i].thread, NULL);
		eintr += sleepers[i].err == EINTR;
	}
	return eintr;
}

/* Let the threads held at the gate go to sleep. */
static bool open_gate(void)
{
	static const char bytes[NR_SLEEPERS];

	return write(gate[1], bytes, sizeof(bytes)) == sizeof(bytes);
}

static __u64 link_missed(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link info"))
		return -1;
	return info.kprobe_multi.missed;
}

/*
 * One round: @started threads, created before the links when @gated, go
 * to sleep and are woken. A thread forked after the links finds a stack
 * in the pool that its fork filled, and misses no return. @missed is the
 * link's count before the threads of the round were started.
 */
static void round_of_sleepers(struct kretprobe_sleepers_bpf *skel, struct bpf_link *link,
			      __u64 missed, int started, bool gated, int round)
{
	int woken;
	bool all_asleep;

	if (!ASSERT_EQ(started, NR_SLEEPERS, "threads started"))
		goto wake;
	if (gated && !ASSERT_TRUE(open_gate(), "open the gate"))
		goto wake;
	all_asleep = wait_all_asleep(skel);
	ASSERT_TRUE(all_asleep, "every thread asleep in do_nanosleep() before the deadline");
	ASSERT_EQ(skel->bss->exits, 0, "no return before the wake-up");
wake:
	woken = wake_all(started);
	ASSERT_EQ(woken, started, "every nanosleep() cut short with EINTR");
	missed = link_missed(link) - missed;
	ASSERT_EQ(skel->bss->entries, NR_SLEEPERS, "entries seen");
	ASSERT_EQ(skel->bss->exits + missed, NR_SLEEPERS, "returns seen or counted missed");
	ASSERT_EQ(skel->bss->interrupted, skel->bss->exits, "returns with -ERESTART_RESTARTBLOCK");
	if (!gated)
		ASSERT_EQ(missed, 0, "returns missed by threads forked after the links");
	test__log("  round %d (%s): %llu entries, %llu returns, %llu missed\n", round,
		  gated ? "threads older than the links" : "threads newer than the links",
		  (unsigned long long)skel->bss->entries, (unsigned long long)skel->bss->exits,
		  (unsigned long long)missed);
	skel->bss->entries = 0;
	skel->bss->exits = 0;
	skel->bss->interrupted = 0;
}

void test_kretprobe_sleepers(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct kretprobe_sleepers_bpf *skel;
	struct bpf_link *enter = NULL, *leave = NULL;
	int round, started = 0;
	__u64 missed;

	skel = kretprobe_sleepers_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kretprobe_sleepers"))
		return;
	skel->bss->target_tgid = getpid();
	skel->bss->waker_tid = syscall(SYS_gettid);
	if (!ASSERT_OK(sigaction(SIGUSR1, &sa, &old), "SIGUSR1 handler"))
		goto out;
	if (!ASSERT_OK(pipe(gate), "gate pipe"))
		goto out;
	started = start_sleepers();
	enter = bpf_program__attach(skel->progs.sleep_enter);
	if (!ASSERT_OK_PTR(enter, "attach kprobe.multi to do_nanosleep"))
		goto out;
	leave = bpf_program__attach(skel->progs.sleep_exit);
	if (!ASSERT_OK_PTR(leave, "attach kretprobe.multi to do_nanosleep"))
		goto out;
	round_of_sleepers(skel, leave, link_missed(leave), started, true, 0);
	started = 0;
	close(gate[0]);
	close(gate[1]);
	gate[0] = -1;
	gate[1] = -1;
	for (round = 1; round <= NR_ROUNDS; round++) {
		/* read first: a thread misses its return as it starts */
		missed = link_missed(leave);
		round_of_sleepers(skel, leave, missed, start_sleepers(), false, round);
	}
out:
	if (started) {
		/* a failed attach: let the gated threads sleep, then wake them */
		open_gate();
		wake_all(started);
	}
	sigaction(SIGUSR1, &old, NULL);
	bpf_link__destroy(leave);
	bpf_link__destroy(enter);
	kretprobe_sleepers_bpf__destroy(skel);
}
