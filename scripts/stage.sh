#!/bin/bash
# Run one build stage with a banner and its duration.
#
# usage: stage.sh NAME [-q LOG] -- COMMAND...
#   -q LOG  send the command's output to LOG and print a progress line
#           (the log's last line) every 20 s instead; on failure, show
#           the log's tail.
set -uo pipefail

name=$1
shift
quiet=
if [ "${1:-}" = -q ]; then
	quiet=$2
	shift 2
fi
[ "${1:-}" = -- ] && shift

start=$(date +%s)
echo "==> [$name]"
if [ -z "$quiet" ]; then
	"$@"
	rc=$?
else
	mkdir -p "$(dirname "$quiet")"
	"$@" >"$quiet" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		for _ in $(seq 20); do
			sleep 1
			kill -0 "$pid" 2>/dev/null || break
		done
		kill -0 "$pid" 2>/dev/null &&
			echo "    [$name] $(($(date +%s) - start)) s: $(tail -n 1 "$quiet" | cut -c1-100)"
	done
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || { tail -n 40 "$quiet"; echo "    [$name] full log: $quiet"; }
fi
status=done
[ $rc -eq 0 ] || status="FAILED ($rc)"
echo "<== [$name] $status in $(($(date +%s) - start)) s"
exit $rc
