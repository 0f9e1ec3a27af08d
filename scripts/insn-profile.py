#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum a bench/qemu/insn_profile.c dump per kernel function.

usage: insn-profile.py PROFILE SYSTEM_MAP [--calls N] [--top K]
Prints the functions that executed the most guest instructions, with the
count per call when --calls gives the number of probed calls the run made.
Addresses outside vmlinux's text (BPF JIT images, modules) show as [other].
"""
import argparse
import bisect
import collections


def load_map(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("system_map")
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    addrs, names = load_map(args.system_map)
    end = addrs[-1]
    per_func = collections.Counter()
    total = 0
    with open(args.profile) as f:
        for line in f:
            fields = line.split()
            count = int(fields[0])
            for pc in fields[1:]:
                pc = int(pc, 16)
                i = bisect.bisect_right(addrs, pc) - 1
                name = names[i] if 0 <= i and pc <= end else "[other]"
                per_func[name] += count
                total += count
    print(f"{total} kernel instructions")
    for name, n in per_func.most_common(args.top):
        per = f"{n / args.calls:10.1f}/call" if args.calls else ""
        print(f"{n:14d} {per} {name}")


if __name__ == "__main__":
    main()
