#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The applied tree's libbpf keeps upstream's version and symbol nodes.

This project adds libbpf API, but its libbpf is not upstream's next release:
it must not take a version node that upstream uses (LIBBPF_1.6.0 holds other
functions there), nor claim upstream's next version number. Its additions go
in LIBBPF_<base version>_FPROBE_MULTI, and the library stays at the base's
version, which libbpf's Makefile checks against libbpf_version.h.
"""
import os
import re
import subprocess
import unittest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
LINUX = os.path.join(os.environ.get("BUILD", os.path.join(TOP, "build")), "linux")
LIBBPF = "tools/lib/bpf"


def at_base(path):
    return subprocess.run(["git", "-C", LINUX, "show", "base:" + path],
                          check=True, capture_output=True, text=True).stdout


def applied(path):
    with open(os.path.join(LINUX, path)) as f:
        return f.read()


def nodes(text):
    """Version nodes of a version script: name -> (text of the node)."""
    return dict(re.findall(r"^(\w[\w.]*) \{(.*?)^\}", text, re.M | re.S))


def version(text):
    return tuple(int(v) for v in re.findall(
        r"^#define LIBBPF_(?:MAJOR|MINOR)_VERSION (\d+)$", text, re.M))


def numbered(name):
    m = re.fullmatch(r"LIBBPF_(\d+)\.(\d+)\.(\d+)", name)
    return tuple(int(v) for v in m.groups()) if m else None


class LibbpfVersionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = nodes(at_base(LIBBPF + "/libbpf.map"))
        cls.ours = nodes(applied(LIBBPF + "/libbpf.map"))

    def test_upstream_nodes_unchanged(self):
        for name, body in self.base.items():
            self.assertEqual(self.ours.get(name), body, name)

    def test_added_nodes_are_the_projects(self):
        top = max(v for v in map(numbered, self.base) if v)
        added = sorted(set(self.ours) - set(self.base))
        want = "LIBBPF_%d.%d.%d_FPROBE_MULTI" % top
        self.assertEqual(added, [want])
        self.assertIn("bpf_program__attach_fprobe_multi_opts;", self.ours[want])

    def test_no_upstream_version_claimed(self):
        self.assertEqual(version(applied(LIBBPF + "/libbpf_version.h")),
                         version(at_base(LIBBPF + "/libbpf_version.h")))
        out = subprocess.run(["make", "-s", "-C", os.path.join(LINUX, LIBBPF),
                              "check_version"], capture_output=True, text=True)
        self.assertEqual((out.returncode, out.stderr), (0, ""))


if __name__ == "__main__":
    unittest.main()
