#!/bin/bash
# make bench: build the pristine base kernel and the patched one with the
# same config, boot each the same way, and compare probe costs, attach
# times and memory. Results: build/bench/ (results.json, table.txt,
# percall.png, attach.png, the guest logs); the table is printed last.
#
# Every kernel gets these boots, all with the test module left out
# (fpm.kmod=0) and every per-call row run 3 times:
#   icount-a  per-call cost, then attach and detach times (attach-all last:
#             if a kernel dies there, the earlier results are already out)
#   icount-b  per-call cost again, to check that the rows repeat
#   memory-*  three fresh guests per link kind: slab, vmalloc and per-CPU
#             memory of one link on 1,000 functions with 100 extra tasks
#             (and of 1,000 classic kretprobes, one perf event each);
#             the report takes the median guest (the shadow stacks of the
#             tasks that happen to run a probed function meanwhile vary)
#   plain     per-call cost without icount, for context (host dependent)
# and the patched kernel's icount-a, icount-b and plain boots measure
# fptrace too (fpm_bench fptrace): its count() and hist(latency) one-liners
# against hand-written programs, and its start-up on 1,000 functions. The
# size of its binary, as built and stripped, is in fptrace-binary.
#
# With -f debug, both kernels are the debug flavour (KASAN, lockdep,
# kmemleak: configs/debug.config) and only the two icount boots run:
# the per-call cost of the same rows, in build/bench-debug/.
#
# usage: bench.sh [-f default|debug] [-n CALLS] [-r RUNS]
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
calls=200000 runs=3 flavour=default
while getopts "f:n:r:" o; do
	case $o in
	f) flavour=$OPTARG ;;
	n) calls=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
case $flavour in
default) OUT=$B/bench sfx= ;;
debug) OUT=$B/bench-debug sfx=-debug ;;
*) echo "bench.sh: unknown flavour '$flavour'" >&2; exit 2 ;;
esac

STAGE=$TOP/scripts/stage.sh
"$STAGE" "base-kernel$sfx" -- "$TOP/scripts/base-kernel.sh" "$flavour"

rm -rf "$OUT"
mkdir -p "$OUT/logs"
echo "$flavour" >"$OUT/flavour"
# The base's version: the report's targets depend on it (6.12 or mainline)
(. "${FPM_SRC:-$TOP}/BASE" && echo "$BASE_VERSION") >"$OUT/base"
initrd=${BENCH_INITRD:-$B/initramfs-$flavour.cpio.gz}
# fptrace and the fprobe.session memory run on fprobe.multi links: only a
# series that has them (not yet the one on 7.3) is measured with them.
fpm=
grep -qs BPF_TRACE_FPROBE_MULTI "$B/linux/include/uapi/linux/bpf.h" && fpm=1
percall="percall/-r/$runs/-n/$calls"
fptrace="fptrace/-r/$runs/-n/$calls"

# boot KERNEL NAME STEPS [vmtest options]: one guest, log in $OUT/logs
boot() {
	local kernel=$1 name=$2 steps=$3 kb
	shift 3
	kb=$B/kbuild$sfx
	[ "$kernel" = base ] && kb=$B/kbuild-base$sfx
	# A kernel that dies is a finding for the report, not a bench failure.
	"$STAGE" "$kernel-$name" -- "$TOP/scripts/vmtest.sh" -m bench -T 1800 \
		-k "$kb" -i "$initrd" -l "$OUT/logs/$kernel-$name.log" \
		-a "fpm.kmod=0 fpm.bench=$steps" "$@" || true
}

for kernel in base patched; do
	if [ "$flavour" = debug ]; then
		boot $kernel icount-a "$percall" -c
		boot $kernel icount-b "$percall" -c
		continue
	fi
	for i in 1 2 3; do
		boot $kernel memory-kretprobe.multi-$i memory:kretprobe.multi -c
		boot $kernel memory-kretprobe-$i memory:kretprobe -c
		[ $kernel = patched ] && [ -n "$fpm" ] &&
			boot $kernel memory-fprobe.session-$i memory:fprobe.session -c
	done
	# fptrace runs on fprobe.multi links, which the base kernel lacks
	fpt=
	[ $kernel = patched ] && [ -n "$fpm" ] && fpt=",$fptrace"
	boot $kernel icount-a "$percall$fpt,attach" -c
	boot $kernel icount-b "$percall$fpt" -c
	boot $kernel plain "$percall$fpt"
done

# "BYTES STRIPPED_BYTES" of the fptrace binary that the initramfs holds
# (GNU strip: llvm-strip-19 refuses the static glibc binary's .rela.plt)
fpt_bin=$B/user-$flavour/fptrace/fptrace
if [ "$flavour" = default ] && [ -f "$fpt_bin" ]; then
	strip -o "$OUT/fptrace.stripped" "$fpt_bin"
	echo "$(stat -c %s "$fpt_bin") $(stat -c %s "$OUT/fptrace.stripped")" >"$OUT/fptrace-binary"
	rm -f "$OUT/fptrace.stripped"
fi

"$TOP/scripts/bench-report.py" "$OUT"
