#!/bin/bash
# Build the series' code for the other architectures: for each one, its
# defconfig plus configs/fprobe-multi.config, then kernel/trace/,
# kernel/bpf/ and the arch's ftrace objects (objects only, no vmlinux).
# Each architecture states whether it has FPROBE with this series, and the
# check fails if its .config says otherwise: the architectures that pass
# ftrace_regs and their ftrace_ops to fgraph from ftrace_graph_func() keep
# (or gain) fprobe, the others lose it, as the
# cover letter and kernel/trace/Kconfig say. On a base the series is
# moving to (FPM_SRC is bases/VERSION), that base's BASE file names the
# architectures with FPROBE (ARCH_FPROBE), and the series' objects are
# those its tree has.
#
# usage: arch-check.sh [-r RESULTS] [-s] [ARCH...]
#   -s  build only the series' objects (the kernel/ C files it changes, and
#       the arch's ftrace objects) instead of all of kernel/trace/ and
#       kernel/bpf/: a quick run while working on the series ("make check"
#       builds the whole directories)
# Output in build/arch/ARCH (kept: a second run rebuilds what changed).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
L=$B/linux
results=/dev/null
if [ "${1:-}" = -r ]; then
	results=$2
	shift 2
fi
SERIES=
if [ "${1:-}" = -s ]; then
	SERIES=1
	shift
fi

# The series' kernel/ objects, each with the option that builds it.
SERIES_OBJS="kernel/trace/fgraph.o:FUNCTION_GRAPH_TRACER
kernel/trace/ftrace.o:FUNCTION_TRACER
kernel/trace/trace_functions_graph.o:FUNCTION_GRAPH_TRACER
kernel/trace/bpf_trace.o:BPF_EVENTS
kernel/trace/fprobe.o:FPROBE
kernel/trace/trace_fprobe.o:FPROBE_EVENTS
kernel/trace/bpf_fprobe_link.o:FPROBE
kernel/bpf/btf.o:BPF_SYSCALL
kernel/bpf/syscall.o:BPF_SYSCALL
kernel/bpf/verifier.o:BPF_SYSCALL
kernel/events/core.o:PERF_EVENTS"

# The objects to build in $1 (a configured output directory).
targets() {
	local o sym
	if [ -z "$SERIES" ]; then
		echo kernel/trace/ kernel/bpf/
		return
	fi
	while IFS=: read -r o sym; do
		[ -f "$L/${o%.o}.c" ] || continue
		if grep -qx "CONFIG_$sym=y" "$1/.config"; then
			printf '%s ' "$o"
		fi
	done <<<"$SERIES_OBJS"
}

# name: make variables | defconfig | FPROBE expected (y/n) | arch objects
ARCHS=(
	"arm64|ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-|defconfig|y|arch/arm64/kernel/ftrace.o"
	"riscv|ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-|defconfig|y|arch/riscv/kernel/ftrace.o"
	"s390|ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-|defconfig|y|arch/s390/kernel/ftrace.o arch/s390/kernel/mcount.o"
	"loongarch|ARCH=loongarch LLVM=-19|defconfig|y|arch/loongarch/kernel/ftrace_dyn.o"
	"powerpc|ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-|ppc64le_defconfig|n|arch/powerpc/kernel/trace/"
	"arm|ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-|multi_v7_defconfig|n|arch/arm/kernel/ftrace.o"
	"i386|ARCH=i386|i386_defconfig|n|arch/x86/kernel/ftrace.o"
)

one() {
	local name=$1 vars=$2 defconfig=$3 want=$4 objs=$5 O=$B/arch/$1 log have
	log=$B/logs/arch-$name.log
	mkdir -p "$O" "$B/logs"
	: >"$log"
	# shellcheck disable=SC2086
	make -C "$L" O="$O" $vars -s "$defconfig" >>"$log" 2>&1 &&
		(cd "$O" && "$L/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" \
			"$TOP/configs/fprobe-multi.config") >>"$log" 2>&1 &&
		make -C "$L" O="$O" $vars -s olddefconfig >>"$log" 2>&1 || {
		echo "not ok arch:$name (config, see $log)" | tee -a "$results"
		return 1
	}
	have=n
	grep -qx 'CONFIG_FPROBE=y' "$O/.config" && have=y
	if [ "$have" != "$want" ]; then
		echo "not ok arch:$name/fprobe (FPROBE=$have, expected $want)" | tee -a "$results"
		return 1
	fi
	echo "ok arch:$name/fprobe" >>"$results"
	# shellcheck disable=SC2086
	if make -C "$L" O="$O" $vars -j"${ARCH_JOBS:-$(nproc)}" KCFLAGS=-Werror \
		$(targets "$O") $objs >>"$log" 2>&1; then
		echo "ok arch:$name/build" >>"$results"
		echo "arch: $name builds (FPROBE=$have)"
	else
		echo "not ok arch:$name/build (see $log)" | tee -a "$results"
		grep -E 'error|warning' "$log" | head -n 20 | sed 's/^/    /'
		return 1
	fi
}

# A base's own list of the architectures with FPROBE, if it has one, and
# of those it builds with clang-19 rather than the cross gcc.
base_list() {
	[ -n "${FPM_SRC:-}" ] && [ -f "$FPM_SRC/BASE" ] &&
		sed -n 's/^'"$1"'="\(.*\)"$/\1/p' "$FPM_SRC/BASE"
}
ARCH_FPROBE=$(base_list ARCH_FPROBE)
ARCH_LLVM=$(base_list ARCH_LLVM)

fail=0
for a in "${ARCHS[@]}"; do
	IFS='|' read -r name vars defconfig want objs <<<"$a"
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then
		continue
	fi
	if [ -n "$ARCH_FPROBE" ]; then
		want=n
		[[ " $ARCH_FPROBE " == *" $name "* ]] && want=y
	fi
	[[ " $ARCH_LLVM " == *" $name "* ]] && vars="${vars%% *} LLVM=-19"
	t0=$SECONDS
	one "$name" "$vars" "$defconfig" "$want" "$objs" || fail=1
	echo "arch: $name took $((SECONDS - t0)) s"
done
exit $fail
