#!/bin/bash
# examples/slurm-array.sh: one log replayed from the nodes of a Slurm job
# array at once, each task a shard of the log's processes, all starting
# their schedule at one wall-clock time; a second job merges the reports.
#
#   start=$(( $(date +%s) + 300 ))      # leave time for queueing and init
#   jid=$(sbatch --parsable --export=ALL,START_AT=$start,LOG=/shared/app.riot,\
#   ROOT=/shared/storage/riot-root,REPORTS=/shared/reports examples/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#       "riot report merge /shared/reports/shard-*.db -o /shared/reports/fleet.db"
#
# SLURM_ARRAY_TASK_ID counts from the array's first index: the shard is
# its offset from SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT. A task
# that starts after START_AT (the array did not fit at once) starts at
# once, and its summary and report say how late (start_late_ns).
#SBATCH --job-name=riot-replay
#SBATCH --array=0-7
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --exclusive
#SBATCH --output=riot-replay-%a.out
set -eu
: "${START_AT:?}" "${LOG:?}" "${ROOT:?}" "${REPORTS:?}"
k=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))
n=$SLURM_ARRAY_TASK_COUNT
exec riot replay "$LOG" --root "$ROOT" --shard "$k/$n" --start-at "$START_AT" \
	--report "$REPORTS/shard-$k.db" --label "shard-$k"
