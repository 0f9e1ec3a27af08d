#!/bin/bash
# A kretprobe alone: every return of the probed calls is recorded, with
# the return value.
. /tests/lib.inc

reset_trace
add_event "r:fpmb/krp ksys_write ret=\$retval:s64" "ret == $SIZE"
write_calls 7
expect_hits fpmb/krp 7
grep -q " krp: .* ret=$SIZE\$" $T/trace || fail "no record with ret=$SIZE"
del_event fpmb/krp
