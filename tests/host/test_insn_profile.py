#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests for scripts/insn-profile.py, on a made-up System.map."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "scripts", "insn-profile.py")

SYSTEM_MAP = """ffffffff81000000 T _stext
ffffffff81000100 t fprobe_entry
ffffffff81000200 T fprobe_return
ffffffff81000300 d some_data
ffffffff81000400 T _etext
"""


class InsnProfileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def path(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], check=True,
                              capture_output=True, text=True).stdout.splitlines()

    def test_per_function_and_per_call(self):
        smap = self.path("System.map", SYSTEM_MAP)
        # a block of 3 instructions in fprobe_entry run 10 times, one of 2
        # in fprobe_return run 5 times, one outside the text run 7 times
        prof = self.path("p.txt", "10 ffffffff81000100 ffffffff81000104 ffffffff81000108\n"
                                  "5 ffffffff81000200 ffffffff81000204\n"
                                  "7 ffffffffa0000000\n")
        out = self.run_script(prof, smap, "--calls", "10")
        self.assertEqual(out[0], "47 kernel instructions, 4.7 per call")
        self.assertEqual(out[1].split(), ["30", "3.0/call", "fprobe_entry"])
        self.assertEqual(out[2].split(), ["10", "1.0/call", "fprobe_return"])
        self.assertEqual(out[3].split(), ["7", "0.7/call", "[other]"])

    def test_minus_cancels_what_both_runs_did(self):
        smap = self.path("System.map", SYSTEM_MAP)
        # the boot (fprobe_return, 1000 times in both) cancels out; the
        # 200 more calls of the longer run cost 3 instructions each
        short = self.path("a.txt", "100 ffffffff81000100 ffffffff81000104 ffffffff81000108\n"
                                   "1000 ffffffff81000200\n")
        long = self.path("b.txt", "300 ffffffff81000100 ffffffff81000104 ffffffff81000108\n"
                                  "1000 ffffffff81000200\n")
        out = self.run_script(long, smap, "--minus", short, "--calls", "200")
        self.assertEqual(out, ["600 kernel instructions, 3.0 per call",
                               "           600        3.0/call fprobe_entry"])


if __name__ == "__main__":
    unittest.main()
