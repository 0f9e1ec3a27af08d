#!/bin/bash
# Generate the kernel .config: tinyconfig, then the fragments, then
# olddefconfig. olddefconfig silently drops options whose dependencies are
# not met, so every line of every fragment is checked against the result.
#
# usage: config.sh KBUILD_DIR FRAGMENT...
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
L=${LINUX_TREE:-${BUILD:-$TOP/build}/linux}
O=$(realpath -m "$1")
shift

mkdir -p "$O"
make -s -C "$L" O="$O" tinyconfig >/dev/null
"$L/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "$@" >/dev/null
make -s -C "$L" O="$O" olddefconfig >/dev/null

bad=0
for frag in "$@"; do
	while read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*}
			got=$(grep -E "^$opt=|^# $opt is not set" "$O/.config" || echo "$opt is absent")
			[ "$got" = "$line" ] && continue
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -qE "^$opt=" "$O/.config" || continue
			got=$(grep -E "^$opt=" "$O/.config")
			;;
		*) continue ;;
		esac
		echo "config: ERROR: $(basename "$frag") asks for '$line', got '$got'" >&2
		bad=1
	done <"$frag"
done
[ $bad -eq 0 ] || { echo "config: unmet options; fix the fragment's dependencies" >&2; exit 1; }
echo "config: $O/.config has every option of: $(basename -a "$@" | tr '\n' ' ')"
