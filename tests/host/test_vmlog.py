#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests for scripts/vmlog.py: each canned log must be judged right."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import vmlog  # noqa: E402

GOOD = """\
[    0.000000] Linux version 6.12.117
fpm: guest up, 2 cpus, kernel 6.12.117, mode test
ok kretprobe_parity/classic # 0.52 s
ok kretprobe_parity/multi
skip fprobe_events/entry_and_return
2 passed, 0 failed
fpm: runner exit 0
fpm: done
"""


def judge(text, mode="test"):
    return vmlog.judge(text.splitlines(True), mode)


class VmlogTest(unittest.TestCase):
    def test_clean_log_passes(self):
        results, problems = judge(GOOD)
        self.assertEqual(problems, [])
        self.assertEqual(results, [("ok", "kretprobe_parity/classic"),
                                   ("ok", "kretprobe_parity/multi"),
                                   ("skip", "fprobe_events/entry_and_return")])

    def test_failed_result_fails(self):
        log = GOOD.replace("ok kretprobe_parity/multi", "not ok kretprobe_parity/multi")
        log = log.replace("2 passed, 0 failed", "1 passed, 1 failed")
        _, problems = judge(log)
        self.assertEqual(problems, ["test failed: kretprobe_parity/multi"])

    def test_summary_mismatch_fails(self):
        _, problems = judge(GOOD.replace("2 passed", "3 passed"))
        self.assertEqual(problems, ["summary says 3 passed, 0 failed, "
                                    "result lines say 2 passed, 0 failed"])

    def test_missing_summary_fails(self):
        _, problems = judge(GOOD.replace("2 passed, 0 failed\n", ""))
        self.assertEqual(problems, ["no 'N passed, N failed' summary from the runner"])

    def test_warn_fails(self):
        warn = ("[   12.5] ------------[ cut here ]------------\n"
                "[   12.5] WARNING: CPU: 1 PID: 77 at kernel/trace/fprobe.c:42 "
                "fprobe_exit+0x1/0x2\n")
        _, problems = judge(GOOD.replace("ok kretprobe_parity/multi\n",
                                         "ok kretprobe_parity/multi\n" + warn))
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[1].startswith("kernel WARNING: "))

    def test_each_splat_kind_fails(self):
        for line in ["BUG: kernel NULL pointer dereference, address: 0000000000000008",
                     "BUG: KASAN: slab-use-after-free in fprobe_exit+0x10/0x20",
                     "WARNING: possible circular locking dependency detected",
                     "INFO: task runner:80 blocked for more than 30 seconds.",
                     "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [runner:80]",
                     "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                     "unreferenced object 0xffff888003a1c000 (size 64):",
                     "Kernel panic - not syncing: Fatal exception"]:
            _, problems = judge(GOOD.replace("fpm: done", "[  3.1] " + line + "\nfpm: done"))
            self.assertEqual(len(problems), 1, line)

    def test_crash_before_done_fails(self):
        _, problems = judge(GOOD.split("fpm: runner exit")[0])
        self.assertEqual(problems, ["the guest did not finish (crash or timeout)"])

    def test_no_boot_fails(self):
        _, problems = judge("SeaBIOS\nBooting from ROM..\n")
        self.assertIn("the guest never reached /init", problems)

    def test_demo_needs_no_summary(self):
        log = "fpm: guest up, 2 cpus, kernel x, mode demo\nfuncret: 3 events\nfpm: done\n"
        self.assertEqual(judge(log, "demo"), ([], []))


if __name__ == "__main__":
    unittest.main()
