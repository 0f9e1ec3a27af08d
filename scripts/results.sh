# shellcheck shell=bash
# Sourced by the test scripts (run-tests.sh, base-tests.sh).
# summary RESULTS: the failed results of RESULTS ("ok NAME" / "not ok NAME"
# lines), then "N passed, N failed"; false when any failed.
summary() {
	local passed failed
	passed=$(grep -c '^ok ' "$1")
	failed=$(grep -c '^not ok ' "$1")
	if [ "$failed" -gt 0 ]; then
		echo "failed:"
		sed -n 's/^not ok /  /p' "$1"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
