#!/bin/bash
# Build the pristine base kernel (tag "base" of build/linux, no patches, no
# overlay; for a base whose BASE file says so, its first patches) with the
# same config fragments as the test kernel, for comparisons: memory,
# attach time and the benchmarks.
#
# usage: base-kernel.sh [default|debug]
#   output: build/kbuild-base/arch/x86/boot/bzImage, or build/kbuild-base-debug
#   with configs/debug.config merged in as well.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
W=$B/linux-base
FLAVOUR=${1:-default}
FRAGS=$TOP/configs/fprobe-multi.config
case $FLAVOUR in
default) O=$B/kbuild-base ;;
debug) O=$B/kbuild-base-debug FRAGS="$FRAGS $TOP/configs/debug.config" ;;
*) echo "base-kernel.sh: unknown flavour '$FLAVOUR'" >&2; exit 2 ;;
esac

[ -d "$W/.git" ] || [ -f "$W/.git" ] ||
	git -C "$B/linux" worktree add -q --detach "$W" base
# A base whose BASE file sets BENCH_BASE_PATCHES=N gets the first N
# patches of its series: mainline 7.3 dies without its patch 0001 as soon
# as a probe kind is attached a second time in one guest.
# shellcheck disable=SC1091
N=$(. "${FPM_SRC:-$TOP}/BASE" && echo "${BENCH_BASE_PATCHES:-0}")
want=base
[ "$N" -gt 0 ] && want=$(git -C "$B/linux" rev-list --reverse base..HEAD | sed -n "${N}p")
[ -n "$want" ] || { echo "base-kernel.sh: the series has fewer than $N patches" >&2; exit 1; }
[ "$(git -C "$W" rev-parse HEAD)" = "$(git -C "$B/linux" rev-parse "$want^{commit}")" ] ||
	git -C "$W" checkout -q --detach "$want"
# Configured again whenever the fragments change, like the test kernel.
# shellcheck disable=SC2086
LINUX_TREE=$W "$TOP/scripts/kernel.sh" config "$O" $FRAGS
. "$TOP/scripts/ccache.sh"
"$TOP/scripts/stage.sh" "${O##*/}" -q "$B/logs/kernel-${O##*/}.log" -- \
	make -C "$W" O="$O" "${KCC[@]}" -j"$(nproc)" bzImage
