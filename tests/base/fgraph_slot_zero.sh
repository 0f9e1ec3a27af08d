#!/bin/bash
# A return goes only to the fgraph users that entered the call. fgraph set
# the bit of slot 0 on every frame, so the user holding slot 0 got the
# return of every call any user hooked.
#
# Here every one of fgraph's 16 slots is taken: 15 function_graph
# instances, each on ksys_write() and vfs_write() with ksys_write() in
# set_graph_notrace, and an fprobe return event on fdget_pos(), which
# ksys_write() calls before vfs_write(). An instance in set_graph_notrace
# state traces nothing until ksys_write() returns. The instance in slot 0
# was given fdget_pos()'s return, which cleared that state, so it traced
# the vfs_write() that followed. No instance may trace vfs_write() here.
#
# The fprobe could hold slot 0 itself, so the calls run twice, with the
# fprobe in two different slots: fgraph hands out the slots released last
# after the others, so releasing the fprobe's and then an instance's, and
# taking them back in the opposite order, moves the fprobe to the slot the
# instance had. The test first checks that no other fgraph user is about,
# and that the fprobe's slot is free once its event is gone. Every instance traces only the writer's own calls
# (set_ftrace_pid), so the counts do not depend on other tasks.
. /tests/lib.inc

NR=15
I=$T/instances/fpmb_slot

# instance_up N: instance N traces ksys_write() and vfs_write()
instance_up() {
	mkdir "$I$1" || fail "cannot make instance $1"
	echo 64 >"$I$1/buffer_size_kb"
	echo "ksys_write vfs_write" >"$I$1/set_ftrace_filter" ||
		fail "cannot filter instance $1"
	echo function_graph >"$I$1/current_tracer" ||
		fail "instance $1 cannot start function_graph (a slot left?)"
}

instance_down() {
	echo nop >"$I$1/current_tracer"
	rmdir "$I$1" || fail "cannot remove instance $1"
}

fprobe_up() {
	echo "f:fpmb/fdget fdget_pos%return" >>$T/dynamic_events ||
		fail "cannot add the fprobe return event"
	echo 1 >$T/events/fpmb/fdget/enable || fail "cannot enable the fprobe event"
}

fprobe_down() {
	echo 0 >$T/events/fpmb/fdget/enable
	echo "-:fpmb/fdget" >>$T/dynamic_events || fail "cannot remove the fprobe event"
}

# writes ROUND: 5 writes by a task that only the instances trace; adds
# the vfs_write() calls the instances traced to $traced
traced=0
writes() {
	local n i total=0

	# The writer: the instances trace only its pid from then on, and
	# their buffers are cleared after that.
	bash -c 'for i in $(seq 1 '$NR'); do
			echo $$ >'"$I"'$i/set_ftrace_pid || exit 1
		done
		for i in $(seq 1 '$NR'); do
			echo >'"$I"'$i/trace || exit 1
		done
		exec dd if=/dev/zero of=/dev/null bs='$SIZE' count=5 2>/dev/null' ||
		fail "the writer failed"
	for i in $(seq 1 $NR); do
		n=$(grep -c 'vfs_write' "$I$i/trace")
		[ "$n" -eq 0 ] || echo "round $1: instance $i traced vfs_write() $n times"
		total=$((total + n))
	done
	echo "round $1: $total vfs_write() calls traced in all"
	traced=$((traced + total))
}

# Leave no instance or event behind, even after a failure: they hold
# fgraph's slots.
cleanup() {
	local i

	[ -d $T/events/fpmb/fdget ] && fprobe_down
	for i in $(seq 1 $((NR + 1))); do
		[ -d "$I$i" ] && instance_down "$i"
	done
	echo >$T/set_graph_notrace
}
trap cleanup EXIT

# fgraph's users must be this test's alone, or the fprobe could keep
# one slot through both rounds.
[ -z "$(cat $T/dynamic_events)" ] ||
	fail "dynamic events are left from before: $(cat $T/dynamic_events)"
[ "$(cat $T/current_tracer)" = nop ] || fail "a tracer is running: $(cat $T/current_tracer)"
echo ksys_write >$T/set_graph_notrace || fail "cannot set set_graph_notrace"
for i in $(seq 1 $NR); do
	instance_up "$i"
done
fprobe_up
writes 1
fprobe_down
# The fprobe gave its slot back: one more instance can take it.
instance_up $((NR + 1))
instance_down $((NR + 1))
instance_down $NR
instance_up $NR
fprobe_up
writes 2
[ "$traced" -eq 0 ] ||
	fail "an instance was given returns of calls only the fprobe entered"
