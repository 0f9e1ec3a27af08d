#!/bin/bash
# Install the host packages the build, the VM and the tests need.
# Runs apt-get only for what is missing, so a prepared machine pays nothing.
#
# The base kernel of every base (BASE, and bases/*/BASE for the bases the
# series is moving to) is a pinned Debian package. A base from a suite
# this machine does not list (BASE_SUITE, e.g. trixie-backports) gets that
# suite as an apt source with pin priority 1: apt then installs nothing
# from it but the pinned package, asked for by its version.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/BASE"

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
SUITES=()
for f in "$TOP"/bases/*/BASE; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC1090
	PKGS+=("$(. "$f" && echo "$BASE_PACKAGE=$BASE_VERSION")")
	SUITES+=("$(. "$f" && echo "${BASE_SUITE:-}")")
done

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

# add_suite SUITE: Debian's SUITE as an apt source that installs only
# what is asked for by version
add_suite() {
	local src=/etc/apt/sources.list.d/fprobe-multi-$1.sources
	local pin=/etc/apt/preferences.d/fprobe-multi-$1

	[ -f "$src" ] && [ -f "$pin" ] && return 0
	echo "deps: adding Debian's $1 as an apt source, pinned to priority 1"
	printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$1" | $SUDO tee "$src" >/dev/null
	printf 'Package: *\nPin: release n=%s\nPin-Priority: 1\n' "$1" |
		$SUDO tee "$pin" >/dev/null
}

for s in "${SUITES[@]}"; do
	[ -z "$s" ] || add_suite "$s"
done
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
	for p in "${missing[@]}"; do
		case $p in linux-source-*=*) ;; *) continue ;; esac
		if ! apt-cache madison "${p%%=*}" | grep -qF " ${p#*=} "; then
			echo "deps: ERROR: ${p%%=*} ${p#*=} is no longer in the archive;" >&2
			echo "deps:        update its BASE (version and sha256) to a version apt-cache madison lists" >&2
		fi
	done
	echo "deps: ERROR: apt-get install failed" >&2
	exit 1
fi
