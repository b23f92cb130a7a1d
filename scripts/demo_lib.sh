# shellcheck shell=bash
# scripts/demo_lib.sh: sourced by the demo scripts.

# step TEXT: a heading, in bold on a terminal only: into a file or a pipe
# it is plain text, with no terminal controls.
step() {
	if [ -t 1 ]; then
		printf '\n\033[1m== %s\033[0m\n' "$*"
	else
		printf '\n== %s\n' "$*"
	fi
}
