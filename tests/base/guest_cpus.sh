#!/bin/bash
# The guest runs with both of QEMU's CPUs (-smp 2): a kernel that sees one
# would hide every cross-CPU race the tests look for.
n=$(nproc)
[ "$n" -eq 2 ] || { echo "FAIL: nproc is $n, want 2"; exit 1; }
echo "nproc $n"
