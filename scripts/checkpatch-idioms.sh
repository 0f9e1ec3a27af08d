# shellcheck shell=bash
# Sourced by scripts/check.sh and scripts/base-tests.sh.
#
# libbpf's option structs end in "size_t :0;" (libbpf's own style, which
# checkpatch reads as a spacing error): libbpf_idioms CMD... runs
# checkpatch CMD and drops exactly that report.
libbpf_idioms() {
	"$@" | awk 'BEGIN { RS = ""; ORS = "\n\n" } !/\+\tsize_t :0;\n/'
}
