#!/bin/bash
# checkpatch.pl --strict, from the applied tree, over every patch in the
# series and every C source and header this project owns: the kernel
# overlay, selftests/, bpf-progs/, bench/ and examples/. Any error, warning
# or check fails.
# Then, unless -p, scripts/clang-check.sh: the kernel files the series
# changes, built with clang-19 at W=1 (a warning in a line the series added
# fails), and scripts/arch-check.sh: the series' code for arm64, riscv,
# s390, LoongArch, powerpc, arm and i386.
#
# usage: check.sh [-p] [-r RESULTS]   (appends "ok|not ok check:FILE" lines)
#   -p  checkpatch only (what "make test" runs)
#
# On a base the series is moving to ("make BASE=VERSION check": FPM_SRC is
# bases/VERSION), the patches are that base's series, checked without
# looking up the ids of Fixes: tags (its tree is a tarball, without
# mainline's history), and the project's own files are left to the default
# base's check, which checks them against the default tree.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
L=${BUILD:-$TOP/build}/linux
results=/dev/null
only_checkpatch=
while getopts "pr:" o; do
	case $o in
	p) only_checkpatch=1 ;;
	r) results=$OPTARG ;;
	*) echo "usage: $0 [-p] [-r RESULTS]" >&2; exit 2 ;;
	esac
done
CP="$L/scripts/checkpatch.pl --strict --quiet --no-summary --show-types --color=never"
# User-space code talks the uapi's language (__u64, not u64) and builds
# outside the kernel tree, so it is exempt from the kernel-types rules.
# "const volatile" is libbpf's idiom for rodata set before load.
USER_IGNORE=PREFER_KERNEL_TYPES,VOLATILE
BPF_HDR_IGNORE=AVOID_EXTERNS,WEAK_DECLARATION,COMPLEX_MACRO,MACRO_ARG_UNUSED
BPF_HDR_IGNORE+=,MULTISTATEMENT_MACRO_USE_DO_WHILE,MACRO_ARG_REUSE,MACRO_WITH_FLOW_CONTROL
BPF_HDR_IGNORE+=,CAMELCASE
# spdxcheck.py needs the system python3 and its python3-ply, python3-git.
export PATH=/usr/bin:$PATH

fail=0
check() {
	local name=$1 out
	shift
	out=$(cd "$L" && "$@" 2>&1)
	if [ -z "$out" ]; then
		echo "ok check:$name" >>"$results"
	else
		echo "$out" | sed "s|^|    |"
		echo "not ok check:$name" | tee -a "$results"
		fail=1
	fi
}

. "$TOP/scripts/checkpatch-idioms.sh"

SRC=${FPM_SRC:-$TOP}
CP_SERIES=$CP
[ -n "${FPM_SRC:-}" ] && CP_SERIES+=" --ignore GIT_COMMIT_ID,UNKNOWN_COMMIT_ID"
# A patch that deletes files and adds none gets checkpatch's question "does
# MAINTAINERS need updating?" for its deletions, whatever MAINTAINERS says:
# it is not asked of such a patch. A patch that adds files is still asked.
deletes_only() {
	grep -q '^deleted file mode' "$1" && ! grep -q '^new file mode' "$1"
}
n=0
while read -r p; do
	ignore=
	deletes_only "$SRC/patches/$p" && ignore="--ignore FILE_PATH_CHANGES"
	check "${SRC#"$TOP"/}/patches/$p" libbpf_idioms $CP_SERIES $ignore "$SRC/patches/$p"
	n=$((n + 1))
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SRC/patches/series" 2>/dev/null)

# The project's own C sources and headers: the kernel overlay and the test
# module as kernel code, the user-space code with its exemptions.
project_files() {
	local f

	cd "$TOP" || return
	for f in $(git ls-files --cached --others --exclude-standard -- \
		'arch/*.[ch]' 'kernel/*.[ch]' 'include/*.h' 'lib/*.[ch]' 'samples/*.[ch]' \
		'tools/*.[ch]' 'net/*.[ch]' 'mm/*.[ch]' 'selftests/kmod/*.[ch]'); do
		check "$f" $CP -f "$TOP/$f"
		n=$((n + 1))
	done
	for f in $(git ls-files --cached --others --exclude-standard -- \
		'selftests/*.[ch]' 'bpf-progs/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' \
		'examples/*.[ch]' ':!selftests/kmod'); do
		case $f in
		# kfunc declarations are extern and __weak by design (bpf_ksym_exists()).
		# BPF_FPROBE() is built like libbpf's BPF_KPROBE(): it expands to a
		# function definition, with _Pragma, and its helpers drop an argument.
		*/include/*.h) check "$f" $CP --ignore "$USER_IGNORE,$BPF_HDR_IGNORE" -f "$TOP/$f" ;;
		*) check "$f" $CP --ignore "$USER_IGNORE" -f "$TOP/$f" ;;
		esac
		n=$((n + 1))
	done
}
[ -n "${FPM_SRC:-}" ] || project_files
echo "check: $n file(s), $([ $fail -eq 0 ] && echo clean || echo FAILED)"

[ -n "$only_checkpatch" ] && exit $fail

# The kernel files the series changes, built with clang-19 at W=1.
"$TOP/scripts/clang-check.sh" -r "$results" || fail=1

# The series' code for the other architectures (objects only).
"$TOP/scripts/arch-check.sh" -r "$results" || fail=1
exit $fail
