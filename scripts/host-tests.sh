#!/bin/bash
# Host-side unit tests (tests/host/test_*.py), one result line per test
# case: "ok host:FILE.CASE" or "not ok host:FILE.CASE".
#
# usage: host-tests.sh [-r RESULTS]
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
results=/dev/null
[ "${1:-}" = -r ] && results=$2
rc=0
for t in "$TOP"/tests/host/test_*.py; do
	name=$(basename "$t" .py)
	out=$(python3 "$t" -v 2>&1) || rc=1
	echo "$out" | sed -n -E "s/^(test_[A-Za-z0-9_]+) \(.*\) \.\.\. (ok|FAIL|ERROR)\$/\2 host:$name.\1/p" |
		sed -E -e 's/^(FAIL|ERROR) /not ok /' | tee -a "$results"
	[ $rc -eq 0 ] || echo "$out"
done
exit $rc
