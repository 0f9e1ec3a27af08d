#!/usr/bin/env python3
"""scripts/base-import.py: the commit it makes of a tarball is the one
"git add -A -f . && git commit" makes of the unpacked tarball, to the hash;
a tarball it cannot represent is refused."""
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMPORT = os.path.join(TOP, "scripts", "base-import.py")
AUTHOR = "Debian <debian-kernel@lists.debian.org>"
COMMITTER = "fprobe-multi apply <apply@fprobe-multi.invalid>"
MESSAGE = "base: pkg 1.0\n\nsha256 0123"
ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
           LC_ALL="C")


def git(d, *args, **kw):
    return subprocess.run(["git", "-C", d, *args], env={**ENV, **kw.pop("env", {})},
                          check=True, capture_output=True, **kw).stdout


def add(tar, name, data=b"", mode=0o644, kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname, info.size = kind, mode, link, len(data)
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def tarball(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for m in members:
            add(tar, *m[:1], **m[1])
    return buf.getvalue()


# what a kernel tarball holds: directories, sources, scripts, empty files,
# symbolic links (to files and directories), names with spaces and UTF-8
KERNEL_LIKE = [
    ("top", dict(kind=tarfile.DIRTYPE, mode=0o755)),
    ("top/Makefile", dict(data=b"all:\n")),
    ("top/kernel", dict(kind=tarfile.DIRTYPE, mode=0o755)),
    ("top/kernel/fork.c", dict(data=b"int x;\n" * 1000)),
    ("top/kernel/empty.h", dict()),
    ("top/scripts/run.sh", dict(data=b"#!/bin/sh\n", mode=0o755)),
    ("top/scripts/group-x.sh", dict(data=b"#!/bin/sh\n", mode=0o654)),
    ("top/arch/x86/boot/dts", dict(kind=tarfile.SYMTYPE, link="../../arm/boot/dts")),
    ("top/arch/arm/boot/dts/a b.dts", dict(data=b"/ {};\n")),
    ("top/Documentation/tr\u00e9s.rst", dict(data="\u00e9\n".encode())),
    ("top/link-to-file", dict(kind=tarfile.SYMTYPE, link="Makefile")),
    ("other/outside.c", dict(data=b"not in TOPDIR\n")),
]


class BaseImport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_import(self, data, top="top"):
        repo = os.path.join(self.d, "imported")
        git(self.d, "init", "-q", "-b", "work", repo)
        p = subprocess.run([sys.executable, IMPORT, top, AUTHOR, COMMITTER,
                            "946684800 +0000", MESSAGE], input=data,
                           capture_output=True)
        if p.returncode:
            return None, p.stderr.decode()
        git(repo, "fast-import", "--quiet", input=p.stdout)
        return git(repo, "rev-parse", "base").decode().strip(), ""

    def git_add_commit(self, data):
        """The commit tree.sh made before: tar -x, git add, git commit."""
        repo = os.path.join(self.d, "added")
        os.mkdir(repo)
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for m in tar.getmembers():
                if m.name.startswith("top/"):
                    m.name = m.name[len("top/"):]
                    tar.extract(m, repo, filter="tar")
        git(repo, "init", "-q", "-b", "work")
        git(repo, "add", "-A", "-f", ".")
        when = {"GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
                "GIT_COMMITTER_NAME": "fprobe-multi apply",
                "GIT_COMMITTER_EMAIL": "apply@fprobe-multi.invalid"}
        git(repo, "commit", "-q", "--author=" + AUTHOR,
            "-m", "base: pkg 1.0", "-m", "sha256 0123", env=when)
        return git(repo, "rev-parse", "HEAD").decode().strip()

    def test_same_commit_as_git_add(self):
        data = tarball(KERNEL_LIKE)
        imported, err = self.run_import(data)
        self.assertEqual(err, "")
        self.assertEqual(imported, self.git_add_commit(data))
        listing = git(os.path.join(self.d, "imported"), "ls-tree", "-r", "base").decode()
        self.assertIn("100755 blob", [ln[:11] for ln in listing.splitlines()
                                      if ln.endswith("\tscripts/run.sh")])
        self.assertNotIn("outside.c", listing)
        self.assertEqual(len(listing.splitlines()), 9)

    def test_wrong_topdir_is_refused(self):
        commit, err = self.run_import(tarball(KERNEL_LIKE), top="linux-source-6.12")
        self.assertIsNone(commit)
        self.assertIn("no file under linux-source-6.12/ in the tarball", err)

    def test_hard_link_is_refused(self):
        data = tarball([("top/a", dict(data=b"x")),
                        ("top/b", dict(kind=tarfile.LNKTYPE, link="top/a"))])
        commit, err = self.run_import(data)
        self.assertIsNone(commit)
        self.assertIn("top/b: neither a file nor a link", err)


if __name__ == "__main__":
    unittest.main()
