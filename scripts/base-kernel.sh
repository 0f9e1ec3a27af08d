#!/bin/bash
# Build the pristine base kernel (tag "base" of build/linux, no patches, no
# overlay) with the same config fragments as the test kernel, for
# comparisons: memory, attach time and the benchmarks.
#
# usage: base-kernel.sh   (output: build/kbuild-base/arch/x86/boot/bzImage)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
W=$B/linux-base
O=$B/kbuild-base

[ -d "$W/.git" ] || [ -f "$W/.git" ] ||
	git -C "$B/linux" worktree add -q --detach "$W" base
if [ ! -f "$O/.config" ]; then
	LINUX_TREE=$W "$TOP/scripts/config.sh" "$O" "$TOP/configs/fprobe-multi.config"
fi
"$TOP/scripts/stage.sh" kbuild-base -q "$B/logs/kernel-kbuild-base.log" -- \
	make -C "$W" O="$O" -j"$(nproc)" bzImage
