#!/bin/sh
# The README's main job, run in the guest: one fprobe.multi session on the
# kernel's vfs_* functions gives each call's latency, first argument and
# return value while a small workload runs.
/bin/funclat -d 4 'vfs_*' &
sleep 2
echo "fpm demo" >/tmp/hello
cat /tmp/hello >/dev/null
ls /no/such/file 2>/dev/null
wait
