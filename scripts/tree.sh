#!/bin/bash
# Maintain build/linux, the applied kernel tree, as a git repository:
#
#   base            the pinned Debian tarball, tagged "base"
#   one commit per  patches/series entry (edits to upstream files)
#   overlay         the project's own new files that no patch introduces yet
#
# Whole files this project owns (new files, or upstream files it rewrote)
# live in the overlay, at their kernel-tree paths. patches/overlay names the
# patch that introduces each of them ("PATCH PATH" per line): that commit
# gets the file whole, and the patch file itself leaves it out. Later
# patches may still change it with ordinary diffs, so the series can grow a
# file in reviewable steps; the overlay then holds the end result, and the
# introducing commit gets it with those later diffs taken back out.
# Overlay files that patches/overlay does not name go into one last
# "overlay" commit.
#
# apply    rebuilds that history when BASE, the series or the overlay changed.
#          Commits are made in a private index, then the work tree is moved
#          with "git reset --hard", which rewrites only the files whose
#          content changed, so kernel rebuilds stay incremental.
# refresh  goes the other way: commits made in build/linux are exported to
#          patches/ (changes to upstream files) and to the overlay (files that
#          are not in the base, or already overlay files).
# fold C   folds the uncommitted changes in build/linux into commit C of the
#          series (git rebase --autosquash). A rebase rewrites every file the
#          replayed commits touch, so every file whose content comes out
#          unchanged gets its old mtime back and the kernel rebuild after a
#          fold into an early patch stays incremental. If the rebase stops on
#          a conflict: resolve it, "git rebase --continue", then
#          "scripts/tree.sh restore-mtimes". For a rebase of your own, run
#          "scripts/tree.sh save-mtimes" before it and restore-mtimes after.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# Where the series comes from: BASE, patches/ and the overlay. The default
# base's are at the top; another base's under bases/VERSION (the
# Makefile's BASE=VERSION sets FPM_SRC, see README "Bases").
SRC=${FPM_SRC:-$TOP}
. "$SRC/BASE"
B=${BUILD:-$TOP/build}
L=$B/linux
STATE=$L/.git/fpm
OVERLAY_SUBJECT="overlay: fprobe-multi files"
OVERLAY_ROOTS="arch block certs crypto Documentation drivers fs include init ipc kernel lib mm net samples security sound tools virt"
# The base commit's pack is kept outside the repository, like ccache's
# objects, so that a fresh clone only checks it out (see make_base).
# FPM_BASE_CACHE=0 turns that off.
CACHE_ROOT=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
BASE_CACHE=
if [ "${FPM_BASE_CACHE:-1}" != 0 ] && [ -n "$CACHE_ROOT" ]; then
	BASE_CACHE=$CACHE_ROOT/fprobe-multi/base-$BASE_SHA256
fi
# Fixed identity and dates make the generated history reproducible.
export GIT_COMMITTER_NAME="fprobe-multi apply" GIT_COMMITTER_EMAIL="apply@fprobe-multi.invalid"

die() { echo "tree: ERROR: $*" >&2; exit 1; }
g() { git -C "$L" "$@"; }

# A base may share an overlay file or folder with another by a symlink to
# it (bases/7.3/tools/bpf/fptrace): the file is read, and refreshed,
# through the link.
overlay_files() {
	local r
	for r in $OVERLAY_ROOTS; do
		if [ -d "$SRC/$r" ]; then
			(cd "$SRC" && find -L "$r" -type f ! -name '*~' ! -name '.*.sw?')
		fi
	done | LC_ALL=C sort
}

series() {
	[ -f "$SRC/patches/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SRC/patches/series"
}

stamp() {
	{
		cat "$SRC/BASE"
		series | while read -r p; do echo "$p"; cat "$SRC/patches/$p"; done
		cat "$SRC/patches/overlay" 2>/dev/null || true
		overlay_files | while read -r f; do
			echo "$f $(stat -L -c %a "$SRC/$f")"; cat "$SRC/$f"
		done
	} | sha256sum | cut -d' ' -f1
}

check_tarball() {
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run scripts/deps.sh"
	local sum
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] ||
		die "$BASE_TARBALL has sha256 $sum, BASE pins $BASE_SHA256 ($BASE_PACKAGE $BASE_VERSION)"
}

# Make the base commit from the tarball in repository $1: one
# decompression, read by scripts/base-import.py into git fast-import, which
# writes one pack (no deltas, light compression). Here this took 4 minutes
# where "tar -x" and then "git add" of the 90,000 files took 6.
import_base() {
	local d=$1
	check_tarball
	xz -dc "$BASE_TARBALL" |
		python3 "$TOP/scripts/base-import.py" "$BASE_TOPDIR" \
			"Debian <debian-kernel@lists.debian.org>" \
			"$GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>" "946684800 +0000" \
			"$(printf 'base: %s %s\n\nsha256 %s' "$BASE_PACKAGE" "$BASE_VERSION" "$BASE_SHA256")" |
		git -C "$d" -c core.compression=1 -c pack.packSizeLimit=0 \
			-c fastimport.unpackLimit=0 fast-import --quiet --depth=0 ||
		die "could not import $BASE_TARBALL"
	[ "$(git -C "$d" rev-parse base)" = "$BASE_COMMIT" ] ||
		die "the base commit made of $BASE_TARBALL is $(git -C "$d" rev-parse base), BASE pins $BASE_COMMIT"
}

# Keep the base pack of repository $1 in $BASE_CACHE. Failing to is no
# error: the next clone imports the base again.
save_base_cache() {
	local d=$1 tmp
	[ -n "$BASE_CACHE" ] || return 0
	mkdir -p "${BASE_CACHE%/*}" && tmp=$(mktemp -d "$BASE_CACHE.XXXXXX") || return 1
	if ln "$d"/.git/objects/pack/pack-* "$tmp/" 2>/dev/null ||
		{ rm -f "$tmp"/pack-* && cp "$d"/.git/objects/pack/pack-* "$tmp/"; }; then
		echo "$BASE_COMMIT" >"$tmp/commit" &&
			mv -T "$tmp" "$BASE_CACHE" 2>/dev/null && return 0
		# another run kept it first
		[ -f "$BASE_CACHE/commit" ] && rm -rf "$tmp" && return 0
	fi
	rm -rf "$tmp"
	return 1
}

# Give repository $1 the base from $BASE_CACHE and check it out. Fails if
# there is no cache, or it is not whole. A pack is never written once made,
# so a hard link to the cache's is safe.
base_from_cache() {
	local d=$1
	[ -n "$BASE_CACHE" ] && [ "$(cat "$BASE_CACHE/commit" 2>/dev/null)" = "$BASE_COMMIT" ] ||
		return 1
	echo "tree: checking out $BASE_PACKAGE $BASE_VERSION from $BASE_CACHE"
	ln "$BASE_CACHE"/pack-* "$d/.git/objects/pack/" 2>/dev/null ||
		{ rm -f "$d"/.git/objects/pack/pack-* && cp "$BASE_CACHE"/pack-* "$d/.git/objects/pack/"; } ||
		return 1
	git -C "$d" tag base "$BASE_COMMIT" && git -C "$d" checkout -q -f -B work base
}

new_repo() {
	rm -rf "$1"
	mkdir -p "$1"
	git -C "$1" init -q -b work
	git -C "$1" config core.autocrlf false
	git -C "$1" config gc.auto 0
}

make_base() {
	rm -rf "$L"
	new_repo "$L.tmp"
	if ! base_from_cache "$L.tmp"; then
		if [ -n "$BASE_CACHE" ] && [ -e "$BASE_CACHE" ]; then
			echo "tree: $BASE_CACHE is not whole: making it again"
			rm -rf "$BASE_CACHE"
		fi
		new_repo "$L.tmp"
		echo "tree: importing $BASE_PACKAGE $BASE_VERSION into $L"
		import_base "$L.tmp"
		save_base_cache "$L.tmp" || echo "tree: could not keep the base in $BASE_CACHE"
		git -C "$L.tmp" checkout -q -f -B work base
	fi
	mv "$L.tmp" "$L"
	mkdir -p "$STATE"
	g rev-parse HEAD >"$STATE/head"
}

# "PATCH PATH" lines: overlay files introduced by a patch of the series.
intro_map() {
	[ -f "$SRC/patches/overlay" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SRC/patches/overlay"
}

# The content that the introducing commit gives an overlay file: the end
# result, with the diffs of the later patches that touch it taken back out.
# Prints "mode blob".
intro_blob() {
	local p=$1 f=$2 tmp q later=()
	[ -f "$SRC/$f" ] || die "patches/overlay names $f, which is not in the overlay"
	series | grep -qxF "$p" || die "patches/overlay names $p, which patches/series does not list"
	while read -r q; do later=("$q" "${later[@]}"); done < <(series | awk -v p="$p" 'f; $0 == p {f = 1}')
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$SRC/$f" "$tmp/$f"
	for q in "${later[@]}"; do
		grep -qF "diff --git a/$f b/$f" "$SRC/patches/$q" || continue
		(cd "$tmp" && git apply -R --include="$f" "$SRC/patches/$q") ||
			die "$f: cannot take the diff of patches/$q back out of the overlay file"
	done
	if [ -x "$SRC/$f" ]; then printf '100755 '; else printf '100644 '; fi
	git -C "$L" hash-object -w "$tmp/$f"
	rm -rf "$tmp"
}

# Build base + series + overlay as commits in a private index; print the
# head. Every commit made is listed in $STATE/built, oldest first.
build_commits() {
	local idx=$STATE/index parent tree p f msg info mode blob intro
	intro=$(mktemp)
	while read -r p f; do
		mode=$(intro_blob "$p" "$f") || exit 1
		echo "$p $mode $f"
	done < <(intro_map) >"$intro"
	export GIT_INDEX_FILE=$idx
	g read-tree base
	parent=$(g rev-parse base)
	msg=$(mktemp) info=$(mktemp)
	: >"$STATE/built"
	while read -r p; do
		[ -f "$SRC/patches/$p" ] || die "patches/series lists $p, which does not exist"
		if grep -q '^diff --git ' "$SRC/patches/$p"; then
			g apply --cached --whitespace=nowarn "$SRC/patches/$p" ||
				die "patches/$p does not apply"
		fi
		while read -r _ mode blob f; do
			g update-index --add --cacheinfo "$mode,$blob,$f"
		done < <(awk -v p="$p" '$1 == p' "$intro")
		git mailinfo -b "$msg" /dev/null <"$SRC/patches/$p" >"$info"
		tree=$(g write-tree)
		parent=$(
			GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$info")
			GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$info")
			GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$info")
			export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
			export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
			{ sed -n 's/^Subject: //p' "$info"; echo; cat "$msg"; } |
				g commit-tree "$tree" -p "$parent"
		)
		echo "$parent" >>"$STATE/built"
	done < <(series)
	overlay_files | while read -r p; do
		mode=100644
		[ -x "$SRC/$p" ] && mode=100755
		blob=$(git -C "$L" hash-object -w "$SRC/$p")
		g update-index --add --cacheinfo "$mode,$blob,$p"
	done
	tree=$(g write-tree)
	if [ "$tree" != "$(g rev-parse "$parent^{tree}")" ]; then
		parent=$(GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			g commit-tree "$tree" -p "$parent" \
			-m "$OVERLAY_SUBJECT" \
			-m "Whole files owned by the fprobe-multi project (see its README).")
		echo "$parent" >>"$STATE/built"
	fi
	rm -f "$msg" "$info" "$idx" "$intro"
	unset GIT_INDEX_FILE
	echo "$parent"
}

check_clean() {
	[ -z "$(g status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes: commit them and run 'make refresh-patches', or discard them"
	[ "$(g rev-parse HEAD)" = "$(cat "$STATE/head")" ] ||
		die "build/linux has commits that are not exported: run 'make refresh-patches' (or FORCE_APPLY=1 to drop them)"
}

cmd_apply() {
	local s new
	[ -d "$L/.git" ] || make_base
	s=$(stamp)
	if [ "$s" = "$(cat "$STATE/stamp" 2>/dev/null)" ]; then
		# Nothing changed here since the last apply or refresh: build
		# whatever is in build/linux, work in progress included.
		if [ "$(g rev-parse HEAD)" != "$(cat "$STATE/head")" ] ||
			[ -n "$(g status --porcelain --untracked-files=no)" ]; then
			echo "tree: build/linux has local work not yet exported (make refresh-patches)"
		else
			echo "tree: build/linux is up to date"
		fi
		return 0
	fi
	[ -n "${FORCE_APPLY:-}" ] || check_clean
	new=$(build_commits)
	g reset -q --hard "$new"
	echo "$new" >"$STATE/head"
	echo "$s" >"$STATE/stamp"
	echo "tree: applied $(series | wc -l) patch(es) and $(overlay_files | wc -l) overlay file(s)"
	g log --oneline base..HEAD | sed 's/^/tree:   /'
}

# Export commit $1 as patch number $2 into patches/, leaving out the overlay
# files it introduces (named in $3, one per line). Prints the file name.
export_commit() {
	local c=$1 n=$2 files=$3 f tree
	if [ -n "$files" ]; then
		export GIT_INDEX_FILE=$STATE/index.refresh
		g read-tree "$c"
		while read -r f; do
			if g cat-file -e "$c^:$f" 2>/dev/null; then
				g update-index --cacheinfo "$(g ls-tree "$c^" -- "$f" | awk '{print $1 "," $3}'),$f"
			else
				g update-index --force-remove -- "$f"
			fi
		done <<<"$files"
		tree=$(g write-tree)
		rm -f "$GIT_INDEX_FILE"
		unset GIT_INDEX_FILE
		c=$(
			GIT_AUTHOR_NAME=$(g log -1 --format=%an "$c")
			GIT_AUTHOR_EMAIL=$(g log -1 --format=%ae "$c")
			GIT_AUTHOR_DATE=$(g log -1 --format=%aI "$c")
			export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
			g log -1 --format=%B "$c" | g commit-tree "$tree" -p "$c^"
		)
	fi
	# A fixed abbreviation: git's default grows with the number of
	# objects, which differs between a new tree and an old one.
	g format-patch --zero-commit --no-signature --no-numbered --abbrev=7 \
		--start-number "$n" -o "$SRC/patches" -1 "$c" | xargs -n1 basename
}

cmd_refresh() {
	local added f c n=0 last overlay_commit= first files name
	[ -d "$L/.git" ] || die "no build/linux: run 'make apply' first"
	[ -z "$(g status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes: commit them first"
	added=$(g diff --name-only --diff-filter=A base HEAD)
	# Overlay: files new since base under an overlay root, and the existing overlay.
	{
		for f in $added; do
			case " $OVERLAY_ROOTS " in *" ${f%%/*} "*) echo "$f" ;; esac
		done
		overlay_files
	} | LC_ALL=C sort -u >"$STATE/overlay.list"
	[ "$(g log -1 --format=%s HEAD)" = "$OVERLAY_SUBJECT" ] && overlay_commit=$(g rev-parse HEAD)
	# Each overlay file enters with the first commit that touches it.
	: >"$STATE/intro"
	while read -r f; do
		first=$(g rev-list --reverse base..HEAD -- "$f" | sed -n 1p)
		[ -n "$first" ] && [ "$first" != "$overlay_commit" ] || continue
		if [ -n "$overlay_commit" ] && ! g diff --quiet "$overlay_commit^" "$overlay_commit" -- "$f"; then
			die "the overlay commit changes $f, which \"$(g log -1 --format=%s "$first")\" introduces: fold the change into that commit"
		fi
		echo "$first $f" >>"$STATE/intro"
	done <"$STATE/overlay.list"
	while read -r f; do
		if g cat-file -e "HEAD:$f" 2>/dev/null; then
			mkdir -p "$SRC/$(dirname "$f")"
			g show "HEAD:$f" >"$SRC/$f"
			if [ "$(g ls-tree HEAD -- "$f" | cut -c1-6)" = 100755 ]; then
				chmod +x "$SRC/$f"
			else
				chmod -x "$SRC/$f"
			fi
		else
			rm -f "$SRC/$f"
		fi
	done <"$STATE/overlay.list"
	rm -f "$SRC"/patches/*.patch
	mkdir -p "$SRC/patches"
	: >"$SRC/patches/series.new"
	: >"$SRC/patches/overlay.new"
	for c in $(g rev-list --reverse base..HEAD); do
		[ "$c" != "$overlay_commit" ] || continue
		n=$((n + 1))
		files=$(awk -v c="$c" '$1 == c {print $2}' "$STATE/intro")
		name=$(export_commit "$c" "$n" "$files")
		echo "$name" >>"$SRC/patches/series.new"
		[ -z "$files" ] || sed "s|^|$name |" <<<"$files" >>"$SRC/patches/overlay.new"
	done
	mv "$SRC/patches/series.new" "$SRC/patches/series"
	if [ -s "$SRC/patches/overlay.new" ]; then
		{
			echo "# Overlay files and the patch that introduces each (see scripts/tree.sh)."
			cat "$SRC/patches/overlay.new"
		} >"$SRC/patches/overlay"
	else
		rm -f "$SRC/patches/overlay"
	fi
	rm -f "$SRC/patches/overlay.new"
	# The exported files must rebuild exactly this history, commit by commit.
	last=$(build_commits)
	[ "$(g rev-parse "$last^{tree}")" = "$(g rev-parse 'HEAD^{tree}')" ] ||
		die "exported patches and overlay do not reproduce build/linux HEAD"
	diff <(while read -r c; do g rev-parse "$c^{tree}"; done <"$STATE/built") \
		<(g rev-list --reverse base..HEAD | while read -r c; do g rev-parse "$c^{tree}"; done) >/dev/null ||
		die "exported patches and overlay do not reproduce every commit of build/linux"
	g rev-parse HEAD >"$STATE/head"
	stamp >"$STATE/stamp"
	echo "tree: exported $(series | wc -l) patch(es) and $(wc -l <"$STATE/overlay.list") overlay file(s)," \
		"$(intro_map | wc -l) of them introduced by a patch"
}

# One line per file the series touches: blob, mtime (ns), path.
save_mtimes() {
	local f
	g diff --name-only base HEAD | while read -r f; do
		[ -f "$L/$f" ] || continue
		echo "$(g hash-object -- "$f") $(stat -c %.9Y "$L/$f") $f"
	done >"$STATE/mtimes"
}

cmd_restore_mtimes() {
	local blob mtime f n=0
	[ -f "$STATE/mtimes" ] || die "no saved mtimes: run 'scripts/tree.sh fold' first"
	while read -r blob mtime f; do
		[ -f "$L/$f" ] && [ "$(g hash-object -- "$f")" = "$blob" ] || continue
		touch -m -d "@$mtime" "$L/$f"
		n=$((n + 1))
	done <"$STATE/mtimes"
	rm -f "$STATE/mtimes"
	echo "tree: kept the mtime of $n unchanged file(s)"
}

cmd_fold() {
	local target
	[ -n "${1:-}" ] || die "usage: $0 fold COMMIT"
	target=$(g rev-parse --verify -q "$1^{commit}") || die "$1 is not a commit in build/linux"
	g merge-base --is-ancestor base "$target" && [ "$target" != "$(g rev-parse base)" ] ||
		die "$1 is not a commit of the series"
	[ -n "$(g status --porcelain --untracked-files=no)" ] ||
		die "build/linux has no uncommitted changes to fold"
	save_mtimes
	g commit -q -a --fixup="$target"
	GIT_SEQUENCE_EDITOR=: g rebase -q -i --autosquash base ||
		die "the rebase stopped: resolve, 'git rebase --continue', then '$0 restore-mtimes'"
	cmd_restore_mtimes
}

case ${1:-} in
apply) cmd_apply ;;
refresh) cmd_refresh ;;
fold) cmd_fold "${2:-}" ;;
save-mtimes) save_mtimes ;;
restore-mtimes) cmd_restore_mtimes ;;
*) echo "usage: $0 apply|refresh|fold COMMIT|save-mtimes|restore-mtimes" >&2; exit 2 ;;
esac
