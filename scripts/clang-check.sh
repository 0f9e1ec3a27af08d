#!/bin/bash
# Compile the kernel C files that the series changes with clang-19 at W=1,
# in their own build directory (build/kbuild-clang, configured like the
# default flavour). gcc at the kernel's default warning level misses, for
# example, a variable that is used uninitialised on one path only. Fails
# on any compiler error, and on any warning in a line that the series
# added (warnings in lines of the base kernel are not ours to fix).
#
# usage: clang-check.sh [-r RESULTS]   (appends "ok|not ok clang-w1:FILE")
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
L=$B/linux
O=$B/kbuild-clang
results=/dev/null
[ "${1:-}" = -r ] && results=$2
export LLVM=-19

"$TOP/scripts/kernel.sh" config "$O" "$TOP/configs/fprobe-multi.config" >/dev/null || exit 1
make -s -C "$L" O="$O" -j"$(nproc)" prepare >"$O/prepare.log" 2>&1 ||
	{ tail -20 "$O/prepare.log"; exit 1; }

# The .c files the series changes that kbuild compiles on its own, and
# that the configuration builds: the default flavour's build has their
# objects (trace_sched_wakeup.c, say, needs a tracer the config leaves out).
files=
for f in $(git -C "$L" diff --name-only base HEAD -- 'arch/x86/*.c' 'kernel/*.c' 'lib/*.c' |
	grep -v '^kernel/trace/trace_selftest.c$'); do
	if [ -d "$B/kbuild" ] && [ ! -f "$B/kbuild/${f%.c}.o" ]; then
		echo "clang-w1: $f is not in the configuration, skipped"
		continue
	fi
	files+=" $f"
done

fail=0
for f in $files; do
	log=$O/${f//\//_}.log
	rm -f "$O/${f%.c}.o"
	make -C "$L" O="$O" W=1 "${f%.c}.o" >"$log" 2>&1
	rc=$?
	bad=$(python3 "$TOP/scripts/added-line-warnings.py" "$L" "$O" <"$log")
	if [ $rc -ne 0 ] || [ -n "$bad" ]; then
		[ $rc -ne 0 ] && grep -E 'error' "$log" | head -20
		[ -n "$bad" ] && echo "$bad"
		echo "not ok clang-w1:$f" | tee -a "$results"
		fail=1
	else
		echo "ok clang-w1:$f" >>"$results"
	fi
done
echo "clang-w1: $(echo "$files" | wc -w) file(s), $([ $fail -eq 0 ] && echo clean || echo FAILED)"
exit $fail
