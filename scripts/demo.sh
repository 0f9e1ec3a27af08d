#!/bin/sh
# The README's main job, run in the guest: trace the return values of the
# kernel's vfs_* functions while a small workload runs.
/bin/funcret -d 4 'vfs_*' &
sleep 2
echo "fpm demo" >/tmp/hello
cat /tmp/hello >/dev/null
ls /no/such/file 2>/dev/null
wait
