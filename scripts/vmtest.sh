#!/bin/bash
# Boot the test kernel with the initramfs under QEMU and judge the log.
#
# usage: vmtest.sh [-m test|demo|probe|shell] [-x CMD] [-t FILTER] [-T TIMEOUT_S]
#                  [-l LOG] [-r RESULTS] [-k KBUILD] [-i INITRAMFS] [-a EXTRA_APPEND] [-c]
#   -c      icount mode (-icount shift=0,sleep=off): guest time counts
#           instructions, for the benchmarks.
#   -m shell  a root shell on the console; the current directory is shared
#           into the guest read-write (virtio-9p) at the same path. Input
#           that is not a terminal runs as with -x.
#   -x CMD  run CMD with sh in the guest, in the shared current directory,
#           and exit with its status (125 if the guest gave none, or its
#           log shows a kernel problem).
# FPM_QEMU_ARGS in the environment adds QEMU options (a TCG plugin, say).
# Exit status: 0 when the log passes scripts/vmlog.py, 1 otherwise.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
mode=test filter= timeout=1200 log= results= icount= append= cmd=
kbuild=$B/kbuild initrd=$B/initramfs-default.cpio.gz
while getopts "m:x:t:T:l:r:k:i:a:c" o; do
	case $o in
	m) mode=$OPTARG ;;
	x) mode=exec cmd=$OPTARG ;;
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
# A shell whose input is not a terminal runs that input as one command:
# typed ahead into the serial port while the guest boots, it was garbled.
if [ "$mode" = shell ] && ! [ -t 0 ]; then
	cmd=$(cat)
	mode=exec
fi

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

# exec and shell: the current directory, and for exec the command, shared
# over virtio-9p (the kernel command line cannot carry a path with spaces)
stdin=/dev/null
if [ "$mode" = exec ] || [ "$mode" = shell ]; then
	case $PWD in
	*[[:space:]]*)
		echo "vmtest: the current directory has a space in its path: '$PWD'" >&2
		exit 125
		;;
	esac
	opts+=(-virtfs "local,path=$PWD,mount_tag=host,security_model=none,id=host")
	cmdline+=" fpm.dir=$PWD"
fi
if [ "$mode" = exec ]; then
	cmddir=$(mktemp -d)
	trap 'rm -rf "$cmddir"' EXIT
	printf '%s\n' "$cmd" >"$cmddir/cmd"
	opts+=(-virtfs "local,path=$cmddir,mount_tag=fpmcmd,security_model=none,id=fpmcmd,readonly=on")
fi
if [ "$mode" = shell ]; then
	stdin=/dev/stdin
	# Ctrl-C goes to the guest's shell, not to QEMU
	opts+=(-chardev stdio,id=con,signal=off -serial chardev:con)
fi

echo "vmtest: booting ($accel${icount:+, icount}) mode=$mode${filter:+ filter=$filter}, log $log"
serial=(-serial stdio) tmo=(timeout -k 5 "$timeout")
# a shell has no time limit, and timeout(1) would put QEMU in a background
# process group, which the terminal stops when it reads
[ "$mode" = shell ] && serial=() tmo=()
set +e
"${tmo[@]}" qemu-system-x86_64 "${opts[@]}" \
	-kernel "$kbuild/arch/x86/boot/bzImage" -initrd "$initrd" \
	-append "$cmdline" -display none "${serial[@]}" -monitor none \
	-no-reboot <"$stdin" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 124 ] && echo "vmtest: ERROR: timed out after ${timeout}s" | tee -a "$log"
if [ "$mode" != exec ]; then
	"$TOP/scripts/vmlog.py" "$log" --mode "$mode" ${results:+--results "$results"}
	exit
fi
# -x: the command's status, if the guest gave one and its log is clean
status=$(sed -n 's/^fpm: exec exit \([0-9]*\).*/\1/p' "$log" | tail -1)
if ! "$TOP/scripts/vmlog.py" "$log" --mode exec >&2 || [ -z "$status" ]; then
	exit 125
fi
exit "$status"
