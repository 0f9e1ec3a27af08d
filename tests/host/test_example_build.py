#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""examples/hello/ copied out of the checkout: without FPM, or with an FPM
that is not a built checkout, make stops with one line that says what to
set or build, before clang looks for vmlinux.h. "make clean" needs neither.

Runs on the host only; building the example for real, and running it in
the guest, is test_vm_exec.py's.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class ExampleBuildTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="fpm-example-")
        self.ex = os.path.join(self.dir, "hello")
        shutil.copytree(os.path.join(TOP, "examples", "hello"), self.ex)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def make(self, *args):
        env = dict(os.environ)
        env.pop("FPM", None)
        env.pop("FLAVOUR", None)
        return subprocess.run(["make", "--no-print-directory", "-C", self.ex, *args],
                              capture_output=True, text=True, env=env)

    def stop_message(self, p):
        # make's one line, "Makefile:LINE: *** MESSAGE", whatever LINE is
        m = re.fullmatch(r"Makefile:[0-9]+: \*\*\* (.*)\n", p.stderr)
        self.assertIsNotNone(m, p.stderr)
        return m.group(1)

    def test_no_fpm(self):
        # the default, two directories up, is the temporary directory
        p = self.make()
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(self.stop_message(p), "FPM=" + os.path.dirname(self.dir) +
                         " is not a fprobe-multi checkout: set FPM to the fprobe-multi "
                         "checkout, as in \"make FPM=/path/to/fprobe-multi\".  Stop.")
        self.assertFalse(os.path.exists(os.path.join(self.ex, "hello.bpf.o")))

    def test_wrong_fpm(self):
        p = self.make("FPM=" + self.dir)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(self.stop_message(p), "FPM=" + self.dir +
                         " is not a fprobe-multi checkout: set FPM to the fprobe-multi "
                         "checkout, as in \"make FPM=/path/to/fprobe-multi\".  Stop.")

    def test_checkout_not_built(self):
        # a checkout whose flavour has no build: say to run make there
        p = self.make("FPM=" + TOP, "FLAVOUR=unbuilt")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(self.stop_message(p), TOP + "/build/user-unbuilt/include/"
                         "vmlinux.h is missing: run \"make\" in " + TOP +
                         " first (FLAVOUR=unbuilt).  Stop.")

    def test_clean_needs_no_fpm(self):
        p = self.make("clean")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
