#!/bin/bash
# A return reaches only the fgraph users that entered the call, also when
# such a user is gone and its slot has a new owner, and it still reaches
# a user that stayed while others came. A task sleeps in do_nanosleep()
# under an fprobe return event; function_graph instances that trace only
# vfs_read() come and go meanwhile, then the task is woken.
#
#   loop:    the event is removed and 16 instances take all of fgraph's
#            slots, one of them the fprobe's: none may get the return of
#            do_nanosleep() (the frame's bit and data were the fprobe's).
#            Their return goes through fgraph's loop over its users.
#   direct:  15 instances, then the fprobe in the last free slot; the
#            event and the instances are removed and one instance comes:
#            fgraph hands out the slots released first, so it gets the
#            fprobe's, and is fgraph's only user (its direct call).
#            (Only as long as fgraph hands out the slot released first:
#            were that to change, this case would stop testing anything.)
#   stayed:  the event stays while 15 instances come: its return event
#            must fire, once (the call entered through the direct call,
#            and returns through the loop).
#   left:    the event and one instance, the instance goes while the task
#            sleeps: the return event fires once (the call entered through
#            the loop, and returns through the direct call).
#
# Every instance must have traced vfs_read() (so it was live), and an
# fprobe entry event shows that the sleeper's call was hooked.
. /tests/lib.inc

I=$T/instances/fpmb_stale
MAX=16
sleeper=

instance_up() {
	mkdir "$I$1" || fail "cannot make instance $1"
	echo 64 >"$I$1/buffer_size_kb"
	echo 1 >"$I$1/options/funcgraph-tail"
	echo vfs_read >"$I$1/set_ftrace_filter" || fail "cannot filter instance $1"
	echo function_graph >"$I$1/current_tracer" ||
		fail "instance $1 cannot start function_graph (a slot left?)"
}

instance_down() {
	echo nop >"$I$1/current_tracer"
	rmdir "$I$1" || fail "cannot remove instance $1"
}

events_up() {
	echo "f:fpmb/nsleep do_nanosleep%return" >>$T/dynamic_events ||
		fail "cannot add the fprobe return event on do_nanosleep"
	echo "f:fpmb/nsleep_in do_nanosleep" >>$T/dynamic_events ||
		fail "cannot add the fprobe entry event on do_nanosleep"
	echo 1 >$T/events/fpmb/enable || fail "cannot enable the events"
}

events_down() {
	echo 0 >$T/events/fpmb/enable
	echo "-:fpmb/nsleep" >>$T/dynamic_events || fail "cannot remove the event"
	echo "-:fpmb/nsleep_in" >>$T/dynamic_events || fail "cannot remove the entry event"
}

cleanup() {
	local i

	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	[ -d $T/events/fpmb ] && events_down
	for i in $(seq 1 $MAX); do
		[ -d "$I$i" ] && instance_down "$i"
	done
}
trap cleanup EXIT

# sleeper_start: a task asleep in do_nanosleep(), its call hooked
sleeper_start() {
	local n

	reset_trace
	sleep 1000 &
	sleeper=$!
	# 10 s at most. The stack shows the caller: do_nanosleep() is in
	# .sched.text, which stack traces skip.
	for _ in $(seq 100); do
		grep -q hrtimer_nanosleep "/proc/$sleeper/stack" 2>/dev/null && break
		sleep 0.1
	done
	grep -q hrtimer_nanosleep "/proc/$sleeper/stack" ||
		fail "the sleeper is not asleep in nanosleep: $(cat "/proc/$sleeper/stack")"
	n=$(grep -c -- "-$sleeper .* nsleep_in: " $T/trace)
	[ "$n" -eq 1 ] || fail "the sleeper entered do_nanosleep() $n times, want 1"
}

sleeper_wake() {
	kill "$sleeper"
	wait "$sleeper"
	sleeper=
}

# wake_expecting_return CASE: wake the sleeper; the fprobe's return event
# must have fired once for it
wake_expecting_return() {
	local pid=$sleeper n

	sleeper_wake
	echo 0 >$T/tracing_on
	n=$(grep -c -- "-$pid .* nsleep: " $T/trace)
	echo 1 >$T/tracing_on
	echo "$1: the fprobe's return event fired $n times"
	[ "$n" -eq 1 ] || fail "$1: the return event fired $n times, want 1"
}

# instances_saw FIRST LAST: each live instance traced vfs_read(); prints
# how many do_nanosleep() returns they got in all
instances_saw() {
	local i n total=0

	cat /proc/version >/dev/null
	for i in $(seq "$1" "$2"); do
		echo 0 >"$I$i/tracing_on"
	done
	for i in $(seq "$1" "$2"); do
		grep -q vfs_read "$I$i/trace" || fail "instance $i traced no vfs_read()"
		n=$(grep -c do_nanosleep "$I$i/trace")
		[ "$n" -eq 0 ] || echo "instance $i: $(grep do_nanosleep "$I$i/trace")" >&2
		total=$((total + n))
	done
	echo $total
}

[ -z "$(cat $T/dynamic_events)" ] ||
	fail "dynamic events are left from before: $(cat $T/dynamic_events)"
[ "$(cat $T/current_tracer)" = nop ] || fail "a tracer is running: $(cat $T/current_tracer)"

# loop
events_up
sleeper_start
events_down
for i in $(seq 1 $MAX); do
	instance_up "$i"
done
sleeper_wake
n=$(instances_saw 1 $MAX)
echo "loop: do_nanosleep() returns given to $MAX new instances: $n"
[ "$n" -eq 0 ] || fail "loop: an instance was given the return of the fprobe's call"
for i in $(seq 1 $MAX); do
	instance_down "$i"
done

# direct
for i in $(seq 1 15); do
	instance_up "$i"
done
events_up
sleeper_start
events_down
for i in $(seq 1 15); do
	instance_down "$i"
done
instance_up 1
sleeper_wake
n=$(instances_saw 1 1)
echo "direct: do_nanosleep() returns given to the instance in the fprobe's slot: $n"
[ "$n" -eq 0 ] || fail "direct: the instance was given the return of the fprobe's call"
instance_down 1

# stayed
events_up
sleeper_start
for i in $(seq 1 15); do
	instance_up "$i"
done
wake_expecting_return stayed
n=$(instances_saw 1 15)
[ "$n" -eq 0 ] || fail "stayed: instances got $n returns of a call only the fprobe hooked"
for i in $(seq 1 15); do
	instance_down "$i"
done
events_down

# left
events_up
instance_up 1
sleeper_start
instance_down 1
wake_expecting_return left
