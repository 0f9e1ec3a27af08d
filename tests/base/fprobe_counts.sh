#!/bin/bash
# An fprobe event and its return event on one function (fprobe on the
# function graph shadow stack in mainline): each call is recorded once at
# entry and once at return.
. /tests/lib.inc

reset_trace
echo "f:fpmb/fent ksys_write count=\$arg3:u64" >>$T/dynamic_events ||
	fail "cannot add the fprobe entry event"
echo "f:fpmb/fret ksys_write%return ret=\$retval:s64" >>$T/dynamic_events ||
	fail "cannot add the fprobe return event"
echo "count == $SIZE" >$T/events/fpmb/fent/filter
echo "ret == $SIZE" >$T/events/fpmb/fret/filter
echo 1 >$T/events/fpmb/fent/enable
echo 1 >$T/events/fpmb/fret/enable
write_calls 9
expect_hits fpmb/fent 9
expect_hits fpmb/fret 9
echo 0 >$T/events/fpmb/enable
echo "-:fpmb/fent" >>$T/dynamic_events
echo "-:fpmb/fret" >>$T/dynamic_events
