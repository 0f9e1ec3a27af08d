#!/bin/bash
# The exit of a tail-called function reports where the call returns to.
# __x64_sys_write() ends in a jump to ksys_write() (a tail call, in this
# build; the test skips where it is not one), so ksys_write() returns
# straight to __x64_sys_write()'s caller.
# With fprobe return events on both, fgraph pushes ksys_write()'s frame
# over a return address that __x64_sys_write()'s frame had already
# replaced: its exit used to report return_to_handler as its return
# address. Both events must name the same caller, the real one.
. /tests/lib.inc

# Removing an event clears the trace buffer, so that comes last.
cleanup() {
	echo 1 >$T/tracing_on
	echo 0 >$T/events/fpmb/enable
	echo "-:fpmb/sysw" >>$T/dynamic_events
	echo "-:fpmb/ksysw" >>$T/dynamic_events
}
trap cleanup EXIT

reset_trace
echo "f:fpmb/sysw __x64_sys_write%return ret=\$retval:s64" >>$T/dynamic_events ||
	fail "cannot add the fprobe return event on __x64_sys_write"
echo "f:fpmb/ksysw ksys_write%return ret=\$retval:s64" >>$T/dynamic_events ||
	fail "cannot add the fprobe return event on ksys_write"
echo "ret == $SIZE" >$T/events/fpmb/sysw/filter
echo "ret == $SIZE" >$T/events/fpmb/ksysw/filter
echo 1 >$T/events/fpmb/sysw/enable
echo 1 >$T/events/fpmb/ksysw/enable
write_calls 3
echo 0 >$T/tracing_on
expect_hits fpmb/sysw 3
expect_hits fpmb/ksysw 3

# "ksysw: (x64_sys_call+0x1234/0x2000 <- ksys_write) ret=12345": the caller
caller() {
	sed -n "s/.* $1: (\([^ ]*\) <- .*/\1/p" $T/trace | sort -u
}
sys=$(caller sysw)
ksys=$(caller ksysw)
echo "__x64_sys_write returns to: $sys"
echo "ksys_write returns to: $ksys"
[ "$(echo "$sys" | wc -l)" -eq 1 ] || fail "__x64_sys_write returned to several places"
case $sys in
return_to_handler*) fail "__x64_sys_write's exit names return_to_handler" ;;
esac
# A compiler that does not make that call a tail call: nothing to check.
case $ksys in
__x64_sys_write+*)
	echo "SKIP: __x64_sys_write() does not tail-call ksys_write() in this build"
	exit 77 ;;
esac
[ "$ksys" = "$sys" ] ||
	fail "ksys_write's exit names '$ksys', not its real caller '$sys'"
