#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum a bench/qemu/insn_profile.c dump per kernel function.

usage: insn-profile.py PROFILE SYSTEM_MAP [--minus PROFILE2] [--calls N] [--top K]
Prints the functions that executed the most guest instructions, with the
count per call when --calls gives the number of probed calls the run made.
Addresses outside vmlinux's text (BPF JIT images, modules) show as [other].

--minus subtracts a second profile of the same kernel and row, made with
fewer calls: what boot, attach and detach cost cancels out, and --calls is
then the difference in calls between the two runs. Functions that differ by
less than half an instruction per call are left out.
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


def per_function(path, addrs, names):
    """function name -> instructions executed, from one dump"""
    end = addrs[-1]
    per_func = collections.Counter()
    with open(path) as f:
        for line in f:
            fields = line.split()
            count = int(fields[0])
            for pc in fields[1:]:
                pc = int(pc, 16)
                i = bisect.bisect_right(addrs, pc) - 1
                name = names[i] if 0 <= i and pc <= end else "[other]"
                per_func[name] += count
    return per_func


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("system_map")
    ap.add_argument("--minus")
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    addrs, names = load_map(args.system_map)
    per_func = per_function(args.profile, addrs, names)
    if args.minus:
        per_func.subtract(per_function(args.minus, addrs, names))
        floor = args.calls / 2 if args.calls else 1
        per_func = collections.Counter({k: v for k, v in per_func.items()
                                        if abs(v) >= floor})
    total = sum(per_func.values())
    print(f"{total} kernel instructions"
          + (f", {total / args.calls:.1f} per call" if args.calls else ""))
    for name, n in per_func.most_common(args.top):
        per = f"{n / args.calls:10.1f}/call" if args.calls else ""
        print(f"{n:14d} {per} {name}")


if __name__ == "__main__":
    main()
