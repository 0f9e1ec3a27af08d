#!/bin/bash
# Host-side unit tests, one result line per test case: "ok host:FILE.CASE"
# or "not ok host:FILE.CASE". tests/host/test_*.py run with python3; the
# libbpf tests (tests/host/libbpf_fprobe.c) and fptrace's unit tests
# (tests/host/fptrace/) run from the userspace build directory of the
# flavour, build/user-FLAVOUR.
#
# usage: host-tests.sh [-r RESULTS] [-u USERDIR]
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
results=/dev/null
U=${BUILD:-$TOP/build}/user-default
while getopts "r:u:" opt; do
	case $opt in
	r) results=$OPTARG ;;
	u) U=$OPTARG ;;
	*) echo "usage: $0 [-r RESULTS] [-u USERDIR]" >&2; exit 2 ;;
	esac
done
rc=0
for t in "$TOP"/tests/host/test_*.py; do
	name=$(basename "$t" .py)
	out=$(python3 "$t" -v 2>&1) || rc=1
	echo "$out" | sed -n -E "s/^(test_[A-Za-z0-9_]+) \(.*\) \.\.\. (ok|FAIL|ERROR)\$/\2 host:$name.\1/p" |
		sed -E -e 's/^(FAIL|ERROR) /not ok /' | tee -a "$results"
	[ $rc -eq 0 ] || echo "$out"
done

# C tests print "ok NAME" / "not ok NAME" themselves: run_c NAME ARG...
# runs $U/host/NAME and reports each case as host:NAME.CASE.
run_c() {
	local name=$1 out crc=0
	shift
	if [ ! -x "$U/host/$name" ]; then
		echo "not ok host:$name (not built: $U/host/$name)" | tee -a "$results"
		rc=1
		return
	fi
	out=$("$U/host/$name" "$@" 2>&1) || crc=1
	echo "$out" | sed -n -E "s/^(ok|not ok) ([A-Za-z0-9_]+)\$/\1 host:$name.\2/p" |
		tee -a "$results"
	[ $crc -eq 0 ] || { echo "$out"; rc=1; }
}

run_c libbpf_fprobe "$U/host/fprobe_sections.bpf.o"
# fptrace's front end and printing, then its type pass and code generator,
# each against the goldens of tests/host/fptrace
run_c fptrace_unit "$TOP/tests/host/fptrace/golden"
run_c fptrace_codegen "$TOP/tests/host/fptrace/golden"
exit $rc
