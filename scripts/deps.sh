#!/bin/bash
# Install the host packages the build, the VM and the tests need.
# Runs apt-get only for what is missing, so a prepared machine pays nothing.
set -euo pipefail

. "$(dirname "$0")/../BASE"

PKGS=(
	"$BASE_PACKAGE=$BASE_VERSION"
	clang-19 llvm-19 lld-19 dwarves bc flex bison make gcc git
	libelf-dev libssl-dev libcap-dev zlib1g-dev libzstd-dev
	cpio busybox-static bash-static qemu-system-x86 python3 perl ccache
	xz-utils kmod gnuplot-nox python3-ply python3-git
	# scripts/arch-check.sh (LoongArch builds with clang-19)
	gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-s390x-linux-gnu
	gcc-powerpc64le-linux-gnu gcc-arm-linux-gnueabihf
)

installed() {
	local name=${1%%=*} want=${1#*=} have
	have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null) || return 1
	case $have in
	"install ok installed "*) ;;
	*) return 1 ;;
	esac
	[ "$want" = "$1" ] || [ "${have##* }" = "$want" ]
}

missing=()
for p in "${PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
	if ! apt-cache madison "$BASE_PACKAGE" | grep -qF " $BASE_VERSION "; then
		echo "deps: ERROR: $BASE_PACKAGE $BASE_VERSION is no longer in the archive;" >&2
		echo "deps:        update BASE (version and sha256) to a version apt-cache madison lists" >&2
	fi
	echo "deps: ERROR: apt-get install failed" >&2
	exit 1
fi
