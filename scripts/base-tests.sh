#!/bin/bash
# The tests of a base kernel that the series is moving to ("make
# BASE=VERSION test"), for as long as the series is not rebuilt there:
# its kernel (bases/VERSION/BASE, with the patches of
# bases/VERSION/patches/series) built with the project's config, then the
# shell tests of tests/base/ run in the guest by scripts/base-runner.sh.
# The guest has busybox, bash, /init, the tests, and bpftool built from
# the base's own tools/.
#
# Every result is one "ok NAME" / "not ok NAME" line in
# build/VERSION/results.txt; the last line printed is "N passed, N failed".
#
# usage: base-tests.sh VERSION [FILTER]
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
version=$1
filter=${2:-}
B=$TOP/build/$version
R=$B/results.txt
STAGE=$TOP/scripts/stage.sh
KB=$B/kbuild
INITRD=$B/initramfs-base.cpio.gz
mkdir -p "$B/logs"
: >"$R"

. "$TOP/scripts/results.sh"
. "$TOP/scripts/checkpatch-idioms.sh"

# bpftool, static, and libbpf from the base's own tools/ (mk/user.mk's
# rules, with this base's build directory), the project's selftest runner
# with the tests bases/VERSION/selftests names and the test module, then
# the BPF objects of tests/base/progs, which need only libbpf's headers.
U=$B/user-default
tools() {
	local p

	make --no-print-directory -s -j2 -f mk/user.mk BUILD="$B" KB="$KB" \
		FPM_SRC="$TOP/bases/$version" "$U/bpftool/bpftool" "$U/fptrace/fptrace" \
		"$U/selftests/runner" "$U/kmod/fpm_test.ko" >"$B/logs/tools.log" 2>&1 ||
		{ tail -20 "$B/logs/tools.log"; return 1; }
	mkdir -p "$U/base-progs"
	for p in tests/base/progs/*.bpf.c; do
		clang-19 -g -O2 -target bpf -Wall -Werror -I"$U/usr/include" \
			-I/usr/include/$(gcc -print-multiarch) \
			-c "$p" -o "$U/base-progs/$(basename "$p" .c).o" || return 1
	done
}

# The guest: busybox, bash (ftracetest-style scripts), bpftool, fptrace, /init, the
# runner and the tests; the project's runner (/bin/fpm-runner), the test
# module and the base's ftracetest for the selftests. Made anew each time:
# it takes a second.
initramfs() {
	local root=$B/initramfs-root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/lib" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
		"$root/tests/progs"
	cp /bin/busybox "$U/bpftool/bpftool" "$U/fptrace/fptrace" "$root/bin/"
	cp "$U/selftests/runner" "$root/bin/fpm-runner"
	cp "bases/$version/selftests" "$root/tests/selftests.list"
	cp "$U/kmod/fpm_test.ko" "$root/lib/"
	cp -r "$B/linux/tools/testing/selftests/ftrace" "$root/ftrace"
	cp /bin/bash-static "$root/bin/bash"
	cp scripts/init.sh "$root/init"
	cp scripts/base-runner.sh "$root/bin/runner"
	cp tests/base/*.sh tests/base/lib.inc "$root/tests/"
	cp "$U"/base-progs/*.o "$root/tests/progs/"
	chmod +x "$root/init" "$root/bin/"* "$root/tests/"*.sh
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$INITRD"
}

# checkpatch.pl --strict over the base's series, from its tree. The tree is
# a tarball without mainline's history, so the ids of Fixes: tags cannot be
# looked up there (GIT_COMMIT_ID, UNKNOWN_COMMIT_ID): check them against
# mainline by hand.
# A patch that deletes files and adds none is not asked "does MAINTAINERS
# need updating?" (FILE_PATH_CHANGES) for its deletions; one that adds
# files still is.
# check_result NAME OUTPUT: checkpatch's verdict on NAME, shown if not clean
check_result() {
	if [ -z "$2" ]; then
		echo "ok base-$version:check:$1" >>"$R"
	else
		echo "$2" | sed 's/^/    /'
		echo "not ok base-$version:check:$1" >>"$R"
	fi
}

checkpatch() {
	local p out ignore

	while read -r p; do
		ignore=GIT_COMMIT_ID,UNKNOWN_COMMIT_ID
		if grep -q '^deleted file mode' "$TOP/bases/$version/patches/$p" &&
			! grep -q '^new file mode' "$TOP/bases/$version/patches/$p"; then
			ignore+=,FILE_PATH_CHANGES
		fi
		out=$(libbpf_idioms "$B/linux/scripts/checkpatch.pl" --strict --quiet \
			--no-summary --show-types --color=never --ignore "$ignore" \
			"$TOP/bases/$version/patches/$p" 2>&1)
		check_result "$p" "$out"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/bases/$version/patches/series")
	# the base's own kernel overlay files, which the patches leave out
	while read -r p; do
		out=$(PATH=/usr/bin:$PATH "$B/linux/scripts/checkpatch.pl" --strict --quiet \
			--no-summary --show-types --color=never -f "$TOP/$p" 2>&1)
		check_result "$p" "$out"
	done < <(cd "$TOP" && find "bases/$version/kernel" -type f -name '*.[ch]' 2>/dev/null | LC_ALL=C sort)
}

# stop_at STAGE: record STAGE as failed and stop there
stop_at() {
	echo "not ok base-$version:$1" >>"$R"
	summary "$R"
	exit 1
}

start=$(date +%s)
make --no-print-directory BASE="$version" kernel || stop_at build
echo "ok base-$version:build" >>"$R"
checkpatch
echo "==> [tools]"
t=$(date +%s)
tools || stop_at tools
echo "<== [tools] done in $(($(date +%s) - t)) s"
echo "==> [initramfs]"
initramfs || stop_at initramfs
"$STAGE" vm-tests -- scripts/vmtest.sh -m test ${filter:+-t "$filter"} -T 600 \
	-k "$KB" -i "$INITRD" -l "$B/logs/vm-test.log" -r "$R.vm"
sed 's/ vm:/ '"base-$version"':/' "$R.vm" >>"$R"
rm -f "$R.vm"
echo "tests: $(($(date +%s) - start)) s in all; results in $R"
summary "$R"
