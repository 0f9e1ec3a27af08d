#!/bin/bash
# An ftrace_ops registered a second time: kprobes' kprobe_ftrace_ops (a
# kprobe, then a kretprobe, on one function) and fgraph's graph_ops (an
# fprobe return event, removed, then another). A static ops keeps its
# trampoline when it is unregistered, and the second registration patches
# the trampoline's call to the ops callback. On 7.3 without patch 0001 of
# bases/7.3, that call became a jmp to the callback's address minus one
# whenever the callback sat at an odd address (gcc 12 with -Os does not
# align functions), and the kernel died at RIP 0.
. /tests/lib.inc

# Whether this build exercises the bug: the callbacks' address parity.
for f in kprobe_ftrace_handler ftrace_graph_func; do
	a=$(grep " [tT] $f\$" /proc/kallsyms | cut -d' ' -f1)
	echo "$f at $a ($(((0x${a: -1} & 1) ? 1 : 0)) = address bit 0)"
done

reset_trace
add_event "p:fpmb/kp ksys_write count=%dx:u64" "count == $SIZE"
write_calls 3
expect_hits fpmb/kp 3
del_event fpmb/kp
add_event "r:fpmb/krp ksys_write ret=\$retval:s64" "ret == $SIZE"
write_calls 4
expect_hits fpmb/krp 4
del_event fpmb/krp

for round in 1 2; do
	reset_trace
	echo "f:fpmb/fret ksys_write%return ret=\$retval:s64" >>$T/dynamic_events ||
		fail "cannot add the fprobe return event (round $round)"
	echo "ret == $SIZE" >$T/events/fpmb/fret/filter
	echo 1 >$T/events/fpmb/fret/enable
	write_calls 5
	expect_hits fpmb/fret 5
	echo 0 >$T/events/fpmb/fret/enable
	echo "-:fpmb/fret" >>$T/dynamic_events || fail "cannot remove fpmb/fret"
done
