# shellcheck shell=bash
# Sourced by the scripts that build a kernel. When ccache is installed,
# compile through it, with its cache outside the repository so that a
# fresh clone (a CI run) finds the objects an earlier build made: paths
# are hashed relative to the repository (CCACHE_BASEDIR) and without the
# working directory, so the clone's location does not matter. The objects'
# debug info then names the first clone's paths, which nothing here reads.
#
# Sets KCC: the make arguments that select the compiler ("CC=ccache gcc"),
# and KHOSTCC, the host compiler's ("HOSTCC=ccache gcc"), both empty
# without ccache. FPM_CCACHE=0 turns it off.
KCC=()
KHOSTCC=()
if [ "${FPM_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null &&
	[ -n "${CCACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-}}}" ]; then
	export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fprobe-multi/ccache}
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	KCC=("CC=ccache gcc")
	KHOSTCC=("HOSTCC=ccache gcc")
fi
