#!/bin/bash
# Build the pristine base kernel (tag "base" of build/linux, no patches, no
# overlay) with the same config fragments as the test kernel, for
# comparisons: memory, attach time and the benchmarks.
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
# Configured again whenever the fragments change, like the test kernel.
# shellcheck disable=SC2086
LINUX_TREE=$W "$TOP/scripts/kernel.sh" config "$O" $FRAGS
. "$TOP/scripts/ccache.sh"
"$TOP/scripts/stage.sh" "${O##*/}" -q "$B/logs/kernel-${O##*/}.log" -- \
	make -C "$W" O="$O" "${KCC[@]}" -j"$(nproc)" bzImage
