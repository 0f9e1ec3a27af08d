#!/bin/bash
# Configure and build the kernel out of tree (O=KBUILD), incrementally.
#
#   kernel.sh config KBUILD FRAGMENT...   regenerate .config when the
#                                         fragments or the tree changed
#   kernel.sh build KBUILD                kbuild, skipped when the tree,
#                                         its edits and .config are as
#                                         at the last good build
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$TOP/build}
L=$B/linux
. "$TOP/scripts/ccache.sh"
# kbuild runs with its own -j, not with the jobserver of a calling make.
unset MAKEFLAGS MFLAGS
cmd=$1
O=$(realpath -m "$2")
shift 2
mkdir -p "$O"

# Content, not history: the same files give the same id, committed or not.
tree_id() {
	git -C "$L" rev-parse 'HEAD^{tree}'
	git -C "$L" diff HEAD | sha256sum
}

# Only Kconfig files can change what olddefconfig makes of the fragments.
kconfig_id() {
	git -C "$L" ls-files -s -- '*Kconfig*'
	git -C "$L" diff HEAD -- '*Kconfig*'
}

case $cmd in
config)
	id=$({ kconfig_id; cat "$@"; } | sha256sum)
	if [ -f "$O/.config" ] && [ "$id" = "$(cat "$O/.fpm-config-id" 2>/dev/null)" ]; then
		echo "kernel: .config is up to date"
		exit 0
	fi
	"$TOP/scripts/config.sh" "$O" "$@"
	echo "$id" >"$O/.fpm-config-id"
	;;
build)
	id=$({ tree_id; cat "$O/.config"; } | sha256sum)
	if [ -f "$O/arch/x86/boot/bzImage" ] &&
		[ "$id" = "$(cat "$O/.fpm-build-id" 2>/dev/null)" ]; then
		echo "kernel: up to date"
		exit 0
	fi
	rm -f "$O/.fpm-build-id"
	log=$B/logs/kernel-$(basename "$O").log
	"$TOP/scripts/stage.sh" kbuild -q "$log" -- \
		make -C "$L" O="$O" "${KCC[@]}" -j"$(nproc)" bzImage modules
	echo "$id" >"$O/.fpm-build-id"
	;;
*)
	echo "usage: $0 config|build KBUILD [FRAGMENT...]" >&2
	exit 2
	;;
esac
