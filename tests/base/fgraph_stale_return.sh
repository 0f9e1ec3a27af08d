#!/bin/bash
# A return reaches only the fgraph user that entered the call, even when
# that user is gone and its slot has a new owner. A task sleeps in
# do_nanosleep() under an fprobe return event; the event is removed, and
# all 16 of fgraph's slots go to function_graph instances that trace only
# vfs_read(). One of them has the fprobe's old slot. When the sleeper is
# woken, the return of its do_nanosleep() must reach none of them: the
# frame's bit was the fprobe's, and its data the fprobe's too. An fprobe
# entry event shows that the sleeper's call was hooked.
. /tests/lib.inc

NR=16
I=$T/instances/fpmb_stale
sleeper=

instance_up() {
	mkdir "$I$1" || fail "cannot make instance $1"
	echo 64 >"$I$1/buffer_size_kb"
	echo 1 >"$I$1/options/funcgraph-tail"
	echo vfs_read >"$I$1/set_ftrace_filter" || fail "cannot filter instance $1"
	echo function_graph >"$I$1/current_tracer" ||
		fail "instance $1 cannot start function_graph (a slot left?)"
}

cleanup() {
	local i

	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	if [ -d $T/events/fpmb ]; then
		echo 0 >$T/events/fpmb/enable
		echo "-:fpmb/nsleep" >>$T/dynamic_events
		echo "-:fpmb/nsleep_in" >>$T/dynamic_events
	fi
	for i in $(seq 1 $NR); do
		[ -d "$I$i" ] || continue
		echo nop >"$I$i/current_tracer"
		rmdir "$I$i"
	done
}
trap cleanup EXIT

[ -z "$(cat $T/dynamic_events)" ] ||
	fail "dynamic events are left from before: $(cat $T/dynamic_events)"
[ "$(cat $T/current_tracer)" = nop ] || fail "a tracer is running: $(cat $T/current_tracer)"

reset_trace
echo "f:fpmb/nsleep do_nanosleep%return" >>$T/dynamic_events ||
	fail "cannot add the fprobe return event on do_nanosleep"
echo 1 >$T/events/fpmb/nsleep/enable || fail "cannot enable the event"
# An entry event too, to show that the sleeper's call was hooked
echo "f:fpmb/nsleep_in do_nanosleep" >>$T/dynamic_events ||
	fail "cannot add the fprobe entry event on do_nanosleep"
echo 1 >$T/events/fpmb/nsleep_in/enable || fail "cannot enable the entry event"
sleep 1000 &
sleeper=$!
# Until the sleeper is in do_nanosleep(), 10 s at most. Its stack shows
# the caller: do_nanosleep() is in .sched.text, which stack traces skip.
for _ in $(seq 100); do
	grep -q hrtimer_nanosleep "/proc/$sleeper/stack" 2>/dev/null && break
	sleep 0.1
done
grep -q hrtimer_nanosleep "/proc/$sleeper/stack" ||
	fail "the sleeper is not asleep in nanosleep: $(cat "/proc/$sleeper/stack")"
n=$(grep -c -- "-$sleeper .* nsleep_in: " $T/trace)
[ "$n" -eq 1 ] || fail "the sleeper entered do_nanosleep() $n times under the fprobe, want 1"
echo "sleeper $sleeper asleep in do_nanosleep() under the fprobe"
echo 0 >$T/events/fpmb/enable
echo "-:fpmb/nsleep" >>$T/dynamic_events || fail "cannot remove the event"
echo "-:fpmb/nsleep_in" >>$T/dynamic_events || fail "cannot remove the entry event"

echo "fprobe event removed"
for i in $(seq 1 $NR); do
	instance_up "$i"
done
echo "$NR function_graph instances on vfs_read()"
kill "$sleeper"
wait "$sleeper"
sleeper=
echo "sleeper woken and gone"
# The instances trace vfs_read(), so reading their buffers would feed them.
for i in $(seq 1 $NR); do
	echo 0 >"$I$i/tracing_on"
done
total=0
for i in $(seq 1 $NR); do
	n=$(grep -c do_nanosleep "$I$i/trace")
	[ "$n" -eq 0 ] || echo "instance $i: $(grep do_nanosleep "$I$i/trace")"
	total=$((total + n))
done
echo "do_nanosleep() returns given to the instances: $total"
[ "$total" -eq 0 ] || fail "an instance was given the return of the fprobe's call"
