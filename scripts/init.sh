#!/bin/busybox sh
# Guest /init. The kernel command line selects what runs:
#   fpm.mode=test   run the selftest runner (fpm.filter=GLOB[,GLOB...])
#   fpm.mode=demo   run the example tracer against a small workload
#   fpm.mode=probe  only prove that the guest boots (KVM probe)
#   fpm.mode=bench  run fpm_bench once per step of fpm.bench=STEP[,STEP...],
#                   where STEP is percall, attach or memory:KIND, and
#                   STEP/ARG/ARG... passes arguments to it
#   fpm.mode=exec   run the command of the virtio-9p share "fpmcmd" (a file
#                   named cmd) with sh, in the host's directory, then print
#                   "fpm: exec exit STATUS"
#   fpm.mode=shell  a root shell on the console, in the host's directory
#   fpm.dir=DIR     the host's directory (virtio-9p share "host"), mounted
#                   read-write at the same path (exec and shell)
#   fpm.kmod=0      do not load the test module
# The host parses this console output; see scripts/vmlog.py.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
ulimit -l unlimited

mode=test
filter=
bench=
dir=
kmod=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	fpm.mode=*) mode=${arg#fpm.mode=} ;;
	fpm.filter=*) filter=${arg#fpm.filter=} ;;
	fpm.kmod=*) kmod=${arg#fpm.kmod=} ;;
	fpm.bench=*) bench=${arg#fpm.bench=} ;;
	fpm.dir=*) dir=${arg#fpm.dir=} ;;
	esac
done
# fpm.kmod=0: a kernel the test module was not built for (the base kernel)
if [ "$kmod" = 1 ]; then
	insmod /lib/fpm_test.ko || echo "fpm: ERROR: cannot load fpm_test.ko"
fi
echo "fpm: guest up, $(nproc) cpus, kernel $(uname -r), mode $mode"

# The host's directory at the same path as on the host, so that its paths
# work in the guest; the root file system is the initramfs, in memory.
share_host() {
	[ -n "$dir" ] || return 0
	mkdir -p "$dir" &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host "$dir" &&
		cd "$dir" || echo "fpm: ERROR: cannot mount the host's $dir"
}

case $mode in
test)
	/bin/runner ${filter:+-t "$filter"}
	echo "fpm: runner exit $?"
	;;
demo)
	/bin/demo.sh
	;;
probe)
	echo "fpm: probe ok"
	;;
exec | shell)
	share_host
	if [ "$mode" = exec ]; then
		mkdir -p /run/fpmcmd
		mount -t 9p -o trans=virtio,version=9p2000.L fpmcmd /run/fpmcmd
		sh /run/fpmcmd/cmd
		echo "fpm: exec exit $?"
	else
		echo "fpm: shell in $PWD; bpftool, the examples and the runner are on PATH; exit ends it"
		setsid cttyhack sh -l
	fi
	;;
bench)
	# kmemleak's periodic scan runs beside the benchmark, and under icount
	# the other vCPU's instructions count in its time: the debug flavour's
	# rows varied by up to 10% between runs. Only the final scan runs.
	if [ -e /sys/kernel/debug/kmemleak ]; then
		echo scan=off >/sys/kernel/debug/kmemleak
	fi
	for step in $(echo "$bench" | tr ',' ' '); do
		case $step in
		memory:*) /bin/fpm_bench memory "${step#memory:}" ;;
		*) /bin/fpm_bench $(echo "$step" | tr '/' ' ') ;;
		esac
		echo "fpm: bench $step exit $?"
	done
	;;
esac
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
echo "fpm: done"
reboot -f
