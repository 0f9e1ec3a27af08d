#!/usr/bin/env python3
# Print the compiler warnings (a kbuild log, on stdin) that point at a line
# which the series added: a "+" line of "git diff base HEAD" in the tree.
#
# usage: added-line-warnings.py LINUX_TREE KBUILD_DIR < build.log
import os
import re
import subprocess
import sys

tree, objdir = (os.path.realpath(a) for a in sys.argv[1:3])
diff = subprocess.run(["git", "-C", tree, "diff", "-U0", "base", "HEAD"],
                      capture_output=True, text=True, check=True).stdout
added = set()
path = None
for line in diff.splitlines():
    if line.startswith("+++ "):
        path = line[6:] if line.startswith("+++ b/") else None
        continue
    m = re.match(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
    if m and path:
        start, count = int(m.group(1)), int(m.group(2) or 1)
        added.update((path, n) for n in range(start, start + count))

warning = re.compile(r"^(\S+?):(\d+):\d+: warning: ")
for line in sys.stdin:
    m = warning.match(line)
    if not m:
        continue
    where = os.path.relpath(os.path.normpath(os.path.join(objdir, m.group(1))), tree)
    if (where, int(m.group(2))) in added:
        print(line.rstrip())
