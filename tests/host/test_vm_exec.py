#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the guest to run one command (scripts/vmtest.sh -x) and a shell
(-m shell, on a terminal and with its input piped in, whose exit status
comes back), with the current directory shared.

Needs the built kernel and initramfs of the default flavour (make test
builds them first); without them the tests are skipped with a reason.
"""
import os
import pty
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
B = os.environ.get("BUILD", os.path.join(TOP, "build"))
VMTEST = os.path.join(TOP, "scripts", "vmtest.sh")
BUILT = (os.path.exists(os.path.join(B, "kbuild", "arch", "x86", "boot", "bzImage")) and
         os.path.exists(os.path.join(B, "initramfs-default.cpio.gz")))


@unittest.skipUnless(BUILT, "no kernel and initramfs in build/ (make all)")
class VmExecTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="fpm-exec-")
        self.log = os.path.join(self.dir, "guest.log")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def vmtest(self, *args, stdin=None):
        return subprocess.run([VMTEST, "-T", "300", "-l", self.log, *args], cwd=self.dir,
                              input=stdin, capture_output=True, text=True)

    def test_exec_status_output_and_shared_directory(self):
        with open(os.path.join(self.dir, "from-host.txt"), "w") as f:
            f.write("made on the host\n")
        p = self.vmtest("-x", "cat from-host.txt; echo made in the guest >from-guest.txt; "
                              "bpftool version | head -1; exit 7")
        self.assertEqual(p.returncode, 7, p.stdout[-2000:] + p.stderr)
        self.assertIn("made on the host\n", p.stdout)
        self.assertRegex(p.stdout, r"bpftool v\d")
        with open(os.path.join(self.dir, "from-guest.txt")) as f:
            self.assertEqual(f.read(), "made in the guest\n")

    def test_exec_success(self):
        p = self.vmtest("-x", "test \"$PWD\" = " + self.dir)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr)

    def test_shell_reads_its_input(self):
        p = self.vmtest("-m", "shell", stdin="echo shell-$((6 * 7)) in $PWD\nexit\n")
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr)
        self.assertIn(f"shell-42 in {self.dir}", p.stdout)

    def test_shell_input_exit_status(self):
        # piped input is one command: "exit 3" ends it, and its status is vmtest.sh's
        p = self.vmtest("-m", "shell",
                        stdin="echo before-$((1 + 1))\nexit 3\necho after-$((1 + 2))\n")
        self.assertEqual(p.returncode, 3, p.stdout[-2000:] + p.stderr)
        self.assertIn("before-2\n", p.stdout)
        self.assertNotIn("after-3", p.stdout)
        self.assertIn("fpm: exec exit 3\n", p.stdout)

    def test_interactive_shell_on_a_terminal(self):
        # a terminal, as make shell gets from the user: type after the prompt
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(self.dir)
            os.execv(VMTEST, [VMTEST, "-l", self.log, "-m", "shell"])
        out = b""

        def until(text, seconds=120):
            nonlocal out
            end = time.monotonic() + seconds
            while text.encode() not in out and time.monotonic() < end:
                if select.select([fd], [], [], 1)[0]:
                    try:
                        out += os.read(fd, 4096)
                    except OSError:
                        break
            return text.encode() in out

        try:
            self.assertTrue(until(self.dir + " # "), out[-2000:])
            os.write(fd, b"echo typed-$((40 + 2))\n")
            # the guest ends lines with \r\n, which the pty makes \r\r\n
            self.assertTrue(until("typed-42\r"), out[-2000:])
            os.write(fd, b"exit\n")
            self.assertTrue(until("fpm: done"), out[-2000:])
            _, status = os.waitpid(pid, 0)
        except BaseException:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        finally:
            os.close(fd)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, out[-2000:])

    def test_example_directory_copied_builds_and_runs(self):
        # copy-and-go: the example builds anywhere against this checkout
        ex = os.path.join(self.dir, "hello")
        shutil.copytree(os.path.join(TOP, "examples", "hello"), ex)
        b = subprocess.run(["make", "-C", ex, "FPM=" + TOP], capture_output=True, text=True)
        self.assertEqual(b.returncode, 0, b.stdout + b.stderr)
        p = self.vmtest("-x", "hello/hello")
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr)
        self.assertRegex(p.stdout, r"do_nanosleep: 3 calls, shortest \d{4,} us")


if __name__ == "__main__":
    unittest.main()
