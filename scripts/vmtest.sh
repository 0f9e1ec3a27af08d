#!/bin/bash
# Boot the test kernel with the initramfs under QEMU and judge the log.
#
# usage: vmtest.sh [-m test|demo|probe] [-t FILTER] [-T TIMEOUT_S] [-l LOG]
#                  [-r RESULTS] [-k KBUILD] [-i INITRAMFS] [-a EXTRA_APPEND] [-c]
#   -c  icount mode (-icount shift=0,sleep=off): guest time counts
#       instructions, for the benchmarks.
# FPM_QEMU_ARGS in the environment adds QEMU options (a TCG plugin, say).
# Exit status: 0 when the log passes scripts/vmlog.py, 1 otherwise.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
mode=test filter= timeout=1200 log= results= icount= append=
kbuild=$B/kbuild initrd=$B/initramfs-default.cpio.gz
while getopts "m:t:T:l:r:k:i:a:c" o; do
	case $o in
	m) mode=$OPTARG ;;
	t) filter=$OPTARG ;;
	T) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	r) results=$OPTARG ;;
	k) kbuild=$OPTARG ;;
	i) initrd=$OPTARG ;;
	a) append=$OPTARG ;;
	c) icount=1 ;;
	*) exit 2 ;;
	esac
done
mkdir -p "$B/logs"
log=${log:-$B/logs/vm-$mode.log}

# KVM only when a probe boot with it really reaches /init (it hangs on
# some hosts); the answer is cached per build directory.
accel=tcg
if [ -z "$icount" ] && [ "$mode" != probe ] && [ -w /dev/kvm ]; then
	if [ ! -f "$B/kvm-probe" ]; then
		if timeout 30 "$0" -m probe -T 25 -l "$B/logs/kvm-probe.log" \
			-k "$kbuild" -i "$initrd" -a "fpm.accel=kvm" >/dev/null 2>&1; then
			echo kvm >"$B/kvm-probe"
		else
			echo tcg >"$B/kvm-probe"
		fi
	fi
	accel=$(cat "$B/kvm-probe")
fi
case " $append " in *" fpm.accel=kvm "*) accel=kvm ;; esac

cpu=max
[ "$accel" = kvm ] && cpu=host
opts=(-machine "accel=$accel" -cpu "$cpu" -smp 2 -m 2G)
# Under multi-threaded TCG, a vCPU can still run an int3 that ftrace's
# live patching (text_poke_bp) has already removed on another vCPU: the
# base kernel and this one both died of "Oops: int3" at a function's
# fentry site while the function_graph tracer switched every function.
# One TCG thread for all vCPUs keeps code changes and execution in order.
[ "$accel" = tcg ] && opts=(-machine pc -accel tcg,thread=single -cpu "$cpu" -smp 2 -m 2G)
[ -n "$icount" ] && opts+=(-icount shift=0,sleep=off)
# shellcheck disable=SC2206
opts+=(${FPM_QEMU_ARGS:-})
cmdline="console=ttyS0 loglevel=5 panic=-1 oops=panic fpm.mode=$mode${filter:+ fpm.filter=$filter} $append"

echo "vmtest: booting ($accel${icount:+, icount}) mode=$mode${filter:+ filter=$filter}, log $log"
set +e
timeout -k 5 "$timeout" qemu-system-x86_64 "${opts[@]}" \
	-kernel "$kbuild/arch/x86/boot/bzImage" -initrd "$initrd" \
	-append "$cmdline" -display none -serial stdio -monitor none \
	-no-reboot </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 124 ] && echo "vmtest: ERROR: timed out after ${timeout}s" | tee -a "$log"
"$TOP/scripts/vmlog.py" "$log" --mode "$mode" ${results:+--results "$results"}
