#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a guest serial log.

The guest runner prints "ok NAME", "not ok NAME" or "skip NAME" for each
result, optionally followed by "# SECONDS s", and "N passed, N failed" last. The log fails when a result failed,
when the summary is missing or disagrees with the result lines, or when the
kernel printed any splat (oops, BUG, WARNING, KASAN, lockdep, hung task,
soft lockup, RCU stall, kmemleak report), wherever it appears.

usage: vmlog.py LOG [--results FILE] [--mode test|demo|probe|bench|exec|shell]
Only test mode expects results; every mode needs a clean log and "fpm: done".
Exit status: 0 when the log passes, 1 otherwise.
"""
import argparse
import re
import sys

SPLATS = [
    (re.compile(r"\bWARNING: .*(at|CPU: \d+)"), "kernel WARNING"),
    (re.compile(r"------------\[ cut here \]------------"), "kernel warning or BUG"),
    (re.compile(r"\bBUG: "), "kernel BUG"),
    (re.compile(r"\bOops: "), "kernel oops"),
    (re.compile(r"Kernel panic - not syncing"), "kernel panic"),
    (re.compile(r"general protection fault"), "general protection fault"),
    (re.compile(r"\bKASAN\b"), "KASAN report"),
    (re.compile(r"\bUBSAN\b"), "UBSAN report"),
    (re.compile(r"WARNING: (possible|inconsistent|suspicious)"), "lockdep report"),
    (re.compile(r"INFO: task .* blocked for more than"), "hung task"),
    (re.compile(r"watchdog: BUG: soft lockup"), "soft lockup"),
    (re.compile(r"rcu: INFO: .* detected stalls"), "RCU stall"),
    (re.compile(r"unreferenced object 0x"), "kmemleak report"),
    (re.compile(r"kmemleak: \d+ new suspected memory leaks"), "kmemleak report"),
]
RESULT = re.compile(r"^(ok|not ok|skip) (\S+)(?:\s+# [0-9.]+ s)?\s*$")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed\s*$")


def judge(lines, mode="test"):
    """Return (results, problems): results is a list of (status, name)."""
    results, problems, summary = [], [], None
    booted = done = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        # The kernel's timestamp prefix never precedes runner output.
        for pat, what in SPLATS:
            if pat.search(line):
                problems.append(f"{what}: {line.strip()}")
                break
        if line.startswith("fpm: guest up"):
            booted = True
        elif line.startswith("fpm: done"):
            done = True
        m = RESULT.match(line)
        if m:
            results.append((m.group(1), m.group(2)))
            continue
        m = SUMMARY.match(line)
        if m:
            summary = (int(m.group(1)), int(m.group(2)))
    if not booted:
        problems.append("the guest never reached /init")
    elif not done:
        problems.append("the guest did not finish (crash or timeout)")
    if mode == "test":
        passed = sum(1 for s, _ in results if s == "ok")
        failed = sum(1 for s, _ in results if s == "not ok")
        if summary is None:
            problems.append("no 'N passed, N failed' summary from the runner")
        elif summary != (passed, failed):
            problems.append(f"summary says {summary[0]} passed, {summary[1]} failed, "
                            f"result lines say {passed} passed, {failed} failed")
        if summary is not None and not results:
            problems.append("the runner reported no results")
        for s, n in results:
            if s == "not ok":
                problems.append(f"test failed: {n}")
    return results, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--results", help="append result lines here")
    ap.add_argument("--mode", default="test")
    args = ap.parse_args()
    with open(args.log, errors="replace") as f:
        results, problems = judge(f, args.mode)
    if args.results:
        with open(args.results, "a") as out:
            for s, n in results:
                out.write(f"{s} vm:{n}\n")
            # A kernel problem is a result of its own, so it always counts.
            out.write(("not ok" if problems else "ok") + " vm:clean-log\n")
    for p in problems:
        print(f"vmlog: {p}")
    print(f"vmlog: {args.log}: {len(results)} results, "
          f"{'FAILED' if problems else 'clean'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
