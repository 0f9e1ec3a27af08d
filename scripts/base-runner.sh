#!/bin/sh
# The guest's test runner of "make BASE=VERSION test" (scripts/base-tests.sh):
# runs every /tests/NAME.sh whose NAME matches one of the globs of -t
# GLOB[,GLOB...] (all without -t), and prints "ok NAME", "skip NAME" (exit
# status 77) or "not ok NAME" for each; then the project's selftests built
# for this base (/bin/fpm-runner): those of -t's globs, or without -t the
# tests and subtests that bases/VERSION/selftests (/tests/selftests.list)
# names; then "N passed, N failed" over both, as the project's runner does
# for scripts/vmlog.py.
filter=
[ "${1:-}" = -t ] && filter=$2

wanted() {
	[ -z "$filter" ] && return 0
	for glob in $(echo "$filter" | tr ',' ' '); do
		# shellcheck disable=SC2254
		case $1 in $glob) return 0 ;; esac
	done
	return 1
}

passed=0
failed=0
for t in /tests/*.sh; do
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	echo "# $name"
	start=$(date +%s)
	bash "$t"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		echo "ok $name # $secs s"
		passed=$((passed + 1))
	elif [ $rc -eq 77 ]; then
		echo "skip $name"
	else
		echo "not ok $name # $secs s"
		failed=$((failed + 1))
	fi
done

sel=$filter
[ -n "$sel" ] ||
	sel=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' /tests/selftests.list | paste -sd,)
out=/tmp/fpm-runner.out
/bin/fpm-runner -t "$sel" | tee "$out"
passed=$((passed + $(grep -c '^ok ' "$out")))
failed=$((failed + $(grep -c '^not ok ' "$out")))
echo "$passed passed, $failed failed"
