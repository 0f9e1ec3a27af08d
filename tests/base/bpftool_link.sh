#!/bin/bash
# bpftool on a kprobe.multi and a raw_tracepoint link: "link show id N"
# and "link show pinned PATH" print the link and exit with 0. bpftool
# judged them by errno being ENOENT, which only its loop over all links
# leaves behind, and exited with 255 after printing the link unless a
# file it had failed to open (the kernel config, for kprobe.multi) left
# ENOENT in errno.
. /tests/lib.inc

PIN=/sys/fs/bpf/fpmb_link_show
trap 'rm -rf $PIN' EXIT
bpftool prog loadall /tests/progs/link_show.bpf.o $PIN autoattach ||
	fail "bpftool cannot load and attach link_show.bpf.o"

# check TYPE WHAT PIN: the link pinned at PIN, of TYPE on WHAT, is shown
# by "link show id", "link show pinned" and "link show", each exiting 0
check() {
	local id out rc how

	id=$(bpftool link show pinned "$3" | sed -n "s/^\([0-9]*\): $1 .*/\1/p")
	[ -n "$id" ] || fail "no $1 link in 'bpftool link show pinned $3'"
	for how in "id $id" "pinned $3" ""; do
		# shellcheck disable=SC2086
		out=$(bpftool link show $how 2>&1)
		rc=$?
		echo "$out" | grep -q "^$id: $1 " ||
			fail "bpftool link show $how: link $id is not shown: $out"
		echo "$out" | grep -q "$2" ||
			fail "bpftool link show $how: $2 is not shown: $out"
		[ "$rc" -eq 0 ] ||
			fail "bpftool link show $how: exit status $rc after showing link $id"
		echo "bpftool link show $how: $1 link $id shown, exit status 0"
	done
}

check raw_tracepoint sys_enter $PIN/link_show_raw_tp
check kprobe_multi ksys_write $PIN/link_show_kmulti
