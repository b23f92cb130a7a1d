#!/bin/sh
# examples/fleet-ssh.sh: replays one log from N machines at once over ssh,
# each a shard of its processes, all starting at one wall-clock time, then
# merges their reports into one with a fleet run.
#
# usage: fleet-ssh.sh LOG ROOT OUT.db HOST...
#
#   LOG     the .riot log, at this path on every host
#   ROOT    the replay root on the storage under test, the same directory
#           for every host (a shared file system: each shard's init makes
#           its share of the starting tree there)
#   OUT.db  the merged report written here (must not exist)
#   HOST    one ssh destination per shard: the first gets --shard 0/N
#
# Environment: RIOT (riot on the hosts, default riot), SSH (default ssh),
# LEAD (seconds from now to the common start, default 30: long enough for
# every host's init), REMOTE_DIR (where each host keeps its report,
# default /tmp), RIOT_ARGS (more replay options, e.g. "--speed 1").
# Paths must not hold spaces or quotes.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 LOG ROOT OUT.db HOST..." >&2; exit 2; }
log=$1 root=$2 out=$3
shift 3
RIOT=${RIOT:-riot} SSH=${SSH:-ssh} LEAD=${LEAD:-30} REMOTE_DIR=${REMOTE_DIR:-/tmp}
RIOT_ARGS=${RIOT_ARGS:-}
n=$#
start=$(($(date +%s) + LEAD))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

k=0
for host in "$@"; do
	db=$REMOTE_DIR/riot-fleet-$start-$k.db
	# each host: its shard, the common start, its own report; the
	# summary (with start_unix_ns and start_late_ns) comes back as JSON
	$SSH "$host" "$RIOT replay $log --root $root --shard $k/$n --start-at $start \
--report $db --label shard$k --json $RIOT_ARGS" >"$work/$k.json" 2>"$work/$k.err" &
	echo $! >"$work/$k.pid"
	k=$((k + 1))
done

failed=0
k=0
for host in "$@"; do
	if ! wait "$(cat "$work/$k.pid")"; then
		echo "$host (shard $k/$n) failed:" >&2
		cat "$work/$k.err" >&2
		failed=1
	fi
	k=$((k + 1))
done
[ "$failed" = 0 ] || exit 1

# the reports come back over the same channel, then merge into one
k=0
for host in "$@"; do
	$SSH "$host" "cat $REMOTE_DIR/riot-fleet-$start-$k.db && rm -f $REMOTE_DIR/riot-fleet-$start-$k.db" \
		>"$work/$k.db"
	# the report's name gives its runs' labels in the merge: shard0@HOST
	f=$work/$host.db
	[ ! -e "$f" ] || f=$work/$host-$k.db
	mv "$work/$k.db" "$f"
	set -- "$@" "$f"
	k=$((k + 1))
done
shift "$n"
"$RIOT" report merge "$@" -o "$out"
echo "started at $start (Unix seconds) on $n hosts; merged report: $out"
