#!/bin/bash
# One shard of an experiment's sweep per task of a SLURM job array (docs/experiments.md).
#
#   sbatch --array=0-15 scripts/slurm/sweep_array.sh EXPERIMENT PROFILE SHARDS [ROOT]
#
# Task i runs `infoflow sweep EXPERIMENT --profile PROFILE --shard i/SHARDS` into ROOT/shard-i
# (default ROOT: the submission folder). SHARDS is the array's size and is given explicitly, so
# that a task resubmitted alone (sbatch --array=3 ... same arguments) runs the same shard: it
# skips the runs its results file holds and resumes the run in progress from its checkpoint
# (ROOT/shard-i/checkpoints/). Then, once every task is done:
#
#   infoflow merge ROOT/shard-*/EXPERIMENT.jsonl -o results/EXPERIMENT.jsonl
#
# INFOFLOW: the command (default: infoflow on PATH). CHECKPOINT_EVERY: steps between
# checkpoints (default 1000). Runs go side by side on the task's CPUs, one thread each.
#SBATCH --job-name=infoflow-sweep
#SBATCH --array=0-15
#SBATCH --cpus-per-task=2
#SBATCH --time=12:00:00
set -euo pipefail
if [ $# -lt 3 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  echo "usage: sbatch --array=0-N-1 $0 EXPERIMENT PROFILE N [ROOT]" >&2
  exit 2
fi
experiment=$1
profile=$2
shards=$3
root=${4:-.}
i=$SLURM_ARRAY_TASK_ID
exec "${INFOFLOW:-infoflow}" sweep "$experiment" --profile "$profile" \
  --results "$root/shard-$i" --shard "$i/$shards" \
  --workers "${SLURM_CPUS_PER_TASK:-1}" --checkpoint-every "${CHECKPOINT_EVERY:-1000}"
