#!/bin/bash
# The series as a proposal: what "make export" writes, and its test.
#
#   export.sh format   git format-patch of the series (base..the last patch
#                      of build/linux, without the trailing overlay commit)
#                      into build/export/, after a cover letter made from
#                      patches/cover-letter and the measured results in
#                      docs/bench/table.md (for BASE=VERSION, the series'
#                      own under bases/VERSION, into build/VERSION/export/)
#   export.sh check [-r RESULTS]
#                      apply build/export/ with "git am" to the pristine
#                      base in a worktree of its own, check that the end
#                      tree equals build/linux's series, and build every
#                      patch there: the objects of the C files the patch
#                      touches, and of the series' C files that include a
#                      header it touches, with the project's .config
#                      (build/kbuild),
#                      plus libbpf and bpftool at the patches that touch
#                      tools/. The whole kernel is built and linked from
#                      the same tree by "make" itself.
#
# Output of the per-patch builds: build/series-kbuild, kept with the list
# of the trees that built there (.built, with the .config), so a second run
# builds only the patches whose tree is new, and rebuilds only what
# changed. Logs: build/logs/export-*.log.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# The series' own directory: the top for the default base, bases/VERSION
# for another (the Makefile's BASE=VERSION sets FPM_SRC)
SRC=${FPM_SRC:-$TOP}
B=${BUILD:-$TOP/build}
L=$B/linux
OUT=$B/export
WT=$B/export-tree
SK=$B/series-kbuild
KB=$B/kbuild
OVERLAY_SUBJECT="overlay: fprobe-multi files"

. "$TOP/scripts/ccache.sh"
# The per-patch builds compile host programs (objtool, resolve_btfids,
# bpftool's bootstrap) through ccache too.
KCC+=("${KHOSTCC[@]}")

die() { echo "export: ERROR: $*" >&2; exit 1; }

# The last commit of the series in build/linux.
series_head() {
	if [ "$(git -C "$L" log -1 --format=%s HEAD)" = "$OVERLAY_SUBJECT" ]; then
		git -C "$L" rev-parse HEAD^
	else
		git -C "$L" rev-parse HEAD
	fi
}

cover_letter() {
	local n=$1
	sed -n '1p' "$SRC/patches/cover-letter" | sed "s/^/Subject: [PATCH 00\/$n] /"
	echo
	sed '1,2d' "$SRC/patches/cover-letter"
	if [ -f "$SRC/docs/bench/table.md" ]; then
		echo
		echo "Measured with \"make bench\" (QEMU TCG in icount mode: guest instructions"
		echo "per call above an empty loop; see the project's README):"
		echo
		sed 's/^/  /' "$SRC/docs/bench/table.md"
	fi
}

cmd_format() {
	local head n
	[ -d "$L/.git" ] || die "no build/linux: run 'make apply' first"
	head=$(series_head)
	n=$(git -C "$L" rev-list --count "base..$head")
	rm -rf "$OUT"
	mkdir -p "$OUT"
	git -C "$L" format-patch -q --no-signature --thread --subject-prefix=PATCH \
		-o "$OUT" "base..$head"
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: $(git -C "$L" log -1 --format='%an <%ae>' "$head")"
		echo "Date: $(git -C "$L" log -1 --format=%aD "$head")"
		cover_letter "$n"
		echo
		git -C "$L" shortlog "base..$head"
		git -C "$L" diff --stat=72 "base" "$head" | tail -n1
	} >"$OUT/0000-cover-letter.patch"
	echo "export: $n patch(es) and a cover letter in $OUT"
}

# Objects of the series (the C files it touches that the project's config
# builds) whose sources include header $1 directly: the files a change of
# the header most likely breaks. (Every object that includes it somewhere
# is built by "make" from the end tree.)
objects_including() {
	local o src pat
	case $1 in
	include/uapi/*) pat="[<\"](uapi/)?${1#include/uapi/}[>\"]" ;;
	include/*) pat="<${1#include/}>" ;;
	arch/x86/include/*) pat="<${1#arch/x86/include/}>" ;;
	arch/*) return 0 ;;
	*) pat="\"$(basename "$1")\"" ;;
	esac
	while read -r o; do
		src=$WT/${o%.o}.c
		if [ -f "$src" ] && grep -qE "^#include $pat" "$src"; then
			echo "$o"
		fi
	done <"$SK.objs"
}

# The project's .config, as the Kconfig files of commit $1 take it. It is
# made again (olddefconfig, 10 s here) only when what olddefconfig reads
# for x86 differs from the tree it was last made for (the Kconfig files
# outside other architectures' directories, kconfig itself and the scripts
# Kconfig runs), or the project's .config ($3, its hash) or the compiler
# changed. A fresh copy at every patch would also make every build run
# syncconfig again.
config_for() {
	local c=$1 log=$2 key made changed
	key="$3 $(gcc -dumpfullversion)"
	made=$(cat "$SK/.config-made" 2>/dev/null) || made=
	if [ -f "$SK/.config" ] && [ -n "$made" ] && [ "${made#* }" = "$key" ] &&
		changed=$(git -C "$WT" diff --no-renames --name-only "${made%% *}" "$c" -- \
			'*Kconfig*' scripts/kconfig scripts/Kconfig.include 'scripts/*.sh' Makefile) &&
		[ -z "$(awk '!/^arch\/[^\/]+\// || /^arch\/x86\//' <<<"$changed")" ]; then
		return 0
	fi
	rm -f "$SK/.config-made"
	cp "$KB/.config" "$SK/.config" || return 1
	make -C "$WT" O="$SK" "${KCC[@]}" -s olddefconfig >>"$log" 2>&1 || return 1
	echo "$(git -C "$WT" rev-parse "$c^{tree}") $key" >"$SK/.config-made"
}

build_patch() {
	local c=$1 log=$2 cfg=$3 f objs=() tools=
	for f in $(git -C "$WT" diff-tree --no-commit-id --name-only -r "$c"); do
		case $f in
		tools/*) tools=1 ;;
		*.c) if [ -f "$KB/${f%.c}.o" ]; then objs+=("${f%.c}.o"); fi ;;
		*.h) mapfile -t -O "${#objs[@]}" objs < <(objects_including "$f") ;;
		esac
	done
	# only the objects whose source exists at this patch
	mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sed '/^$/d' | sort -u |
		while read -r f; do if [ -f "$WT/${f%.o}.c" ]; then echo "$f"; fi; done)
	config_for "$c" "$log" "$cfg" || return 1
	if [ ${#objs[@]} -gt 0 ]; then
		make -C "$WT" O="$SK" "${KCC[@]}" -j"$(nproc)" KCFLAGS=-Werror "${objs[@]}" >>"$log" 2>&1 ||
			return 1
	fi
	if [ -n "$tools" ]; then
		mkdir -p "$SK/bpftool"
		make -C "$WT/tools/bpf/bpftool" -j"$(nproc)" OUTPUT="$SK/bpftool/" \
			"${KCC[@]}" \
			CLANG=clang-19 LLVM_STRIP=llvm-strip-19 feature-llvm=0 \
			feature-libbfd=0 feature-libbfd-liberty=0 feature-libbfd-liberty-z=0 \
			>>"$log" 2>&1 || return 1
	fi
	echo "${#objs[@]} object(s)${tools:+, bpftool}"
}

cmd_check() {
	local results=/dev/null head c n=0 fail=0 log what t0 applied tree cfg
	[ "${1:-}" = -r ] && results=$2
	[ -d "$OUT" ] || die "no $OUT: run 'make export' first"
	[ -f "$KB/.config" ] || die "no $KB/.config: run 'make kernel' first"
	head=$(series_head)
	mkdir -p "$B/logs"
	git -C "$L" worktree prune
	[ -d "$WT" ] || git -C "$L" worktree add -q --detach "$WT" base
	git -C "$WT" am --abort >/dev/null 2>&1 || true
	git -C "$WT" checkout -q -f --detach base
	if ! git -C "$WT" -c user.name=export -c user.email=export@fprobe-multi.invalid \
		am -q --committer-date-is-author-date \
		$(ls "$OUT"/[0-9][0-9][0-9][0-9]-*.patch | grep -v /0000-cover-letter.patch) \
		2>"$B/logs/export-am.log"; then
		echo "not ok export:am" | tee -a "$results"
		return 1
	fi
	echo "ok export:am" >>"$results"
	applied=$(git -C "$WT" rev-parse HEAD)
	if [ "$(git -C "$WT" rev-parse 'HEAD^{tree}')" = "$(git -C "$L" rev-parse "$head^{tree}")" ]; then
		echo "ok export:end_tree" >>"$results"
	else
		echo "not ok export:end_tree (git am of build/export does not give build/linux)" |
			tee -a "$results"
		fail=1
	fi
	mkdir -p "$SK"
	cfg=$(sha256sum <"$KB/.config" | cut -c1-16)
	git -C "$L" diff --name-only base "$head" -- '*.c' | while read -r c; do
		if [ -f "$KB/${c%.c}.o" ]; then echo "${c%.c}.o"; fi
	done >"$SK.objs"
	git -C "$WT" checkout -q --detach base
	for c in $(git -C "$WT" rev-list --reverse "base..$applied"); do
		n=$((n + 1))
		log=$B/logs/export-build-$(printf %02d $n).log
		: >"$log"
		git -C "$WT" checkout -q --detach "$c"
		t0=$SECONDS
		tree=$(git -C "$WT" rev-parse "$c^{tree}")
		if grep -qxF "$tree $cfg" "$SK/.built" 2>/dev/null; then
			echo "export: patch $n built before (same tree and .config)"
			echo "ok export:build/$(printf %02d $n)" >>"$results"
		elif what=$(build_patch "$c" "$log" "$cfg"); then
			echo "$tree $cfg" >>"$SK/.built"
			echo "export: patch $n builds: $what, $((SECONDS - t0)) s"
			echo "ok export:build/$(printf %02d $n)" >>"$results"
		else
			echo "not ok export:build/$(printf %02d $n) $(git -C "$WT" log -1 --format=%s "$c") (see $log)" |
				tee -a "$results"
			tail -n 20 "$log" | sed 's/^/    /'
			fail=1
		fi
	done
	return $fail
}

case ${1:-} in
format) cmd_format ;;
check) shift; cmd_check "$@" ;;
*) echo "usage: $0 format|check [-r RESULTS]" >&2; exit 2 ;;
esac
