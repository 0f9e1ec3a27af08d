#!/bin/bash
# The test command: build everything, then run the VM selftests and,
# meanwhile, checkpatch, the host unit tests and the exported series'
# per-patch builds; then the tests of every base the series is moving to
# (scripts/base-tests.sh). Every result is one "ok NAME" / "not ok NAME"
# line in build/results-FLAVOUR.txt; the last line printed is
# "N passed, N failed" over all of them.
#
# usage: run-tests.sh FLAVOUR [VM_FILTER] [VM_TIMEOUT_S]
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
flavour=${1:-default}
filter=${2:-}
timeout=${3:-1800}
B=${BUILD:-$TOP/build}
R=$B/results-$flavour.txt
STAGE=$TOP/scripts/stage.sh
mkdir -p "$B"
: >"$R"

. "$TOP/scripts/results.sh"

start=$(date +%s)
if ! make --no-print-directory FLAVOUR="$flavour" all; then
	echo "not ok build" >>"$R"
	summary "$R"
	exit 1
fi
echo "ok build" >>"$R"

kb=$B/kbuild
[ "$flavour" = debug ] && kb=$B/kbuild-debug

# The VM tests run on one host CPU (one TCG thread), so the checks run on
# the other one meanwhile. The VM's output goes to its log; its results
# are added to $R when it is done.
: >"$R.vm"
"$STAGE" vm-tests -q "$B/logs/vm-tests-$flavour.out" -- \
	scripts/vmtest.sh -m test ${filter:+-t "$filter"} -T "$timeout" \
	-k "$kb" -i "$B/initramfs-$flavour.cpio.gz" -l "$B/logs/vm-test-$flavour.log" \
	-r "$R.vm" &
vm=$!

# checkpatch.pl over the series and the overlay (clang W=1 and the other
# architectures are "make check").
"$STAGE" checkpatch -- scripts/check.sh -p -r "$R"

"$STAGE" host-tests -- scripts/host-tests.sh -r "$R" -u "$B/user-$flavour"

# The series as exported: git am on the pristine base, every patch built.
if [ "$flavour" = default ]; then
	if "$STAGE" export -- scripts/export.sh format; then
		"$STAGE" export-check -- scripts/export.sh check -r "$R"
	else
		echo "not ok export:format" >>"$R"
	fi
fi

wait "$vm"
grep -E '^[0-9]+ passed, [0-9]+ failed' "$B/logs/vm-test-$flavour.log" | sed 's/^/vm-tests: /'
cat "$R.vm" >>"$R"
rm -f "$R.vm"

# The bases the series is moving to (bases/VERSION): their kernels and
# tests, after the rest, which they would slow down. Not with a filter.
if [ -z "$filter" ] && [ "$flavour" = default ]; then
	for b in "$TOP"/bases/*/BASE; do
		[ -f "$b" ] || continue
		v=$(basename "$(dirname "$b")")
		"$STAGE" "base-$v" -- scripts/base-tests.sh "$v" | sed "s/^/base-$v: /"
		cat "$B/$v/results.txt" >>"$R" 2>/dev/null ||
			echo "not ok base-$v:results" >>"$R"
	done
fi
echo "tests: $(($(date +%s) - start)) s in all; results in $R"
summary "$R"
