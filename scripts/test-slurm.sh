#!/usr/bin/env bash
# make test-slurm: the documented SLURM job array (scripts/slurm/sweep_array.sh) on a real,
# single-node SLURM cluster started here for the test.
#
#   scripts/test-slurm.sh [BUILD_DIR]        (as root; needs slurm-wlm and munge, which
#                                            `make test-slurm` installs when missing)
#
# 1. munged, slurmctld and slurmd start from a generated slurm.conf in a scratch folder (their
#    own ports, sockets and state; nothing in /etc is read or changed) and are stopped at exit;
# 2. the array (3 shards) of a small sweep (tests/data/slurm/slurm_small.toml) is submitted;
# 3. once task 1 has finished a run and checkpointed the next, it is cancelled (scancel), then
#    resubmitted alone (sbatch --array=1, same arguments);
# 4. the shards are merged (infoflow merge) and compared with the same sweep run locally:
#    the same keys, each once, the same NMSE bits (best, final, every point of every curve).
# The log goes to standard output and to BUILD_DIR/slurm-test.log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
build=$(cd "${1:-build}" && pwd)
infoflow="$build/app/infoflow"
log="$build/slurm-test.log"
exec > >(tee "$log") 2>&1

say() { echo "[$(date +%H:%M:%S)] $*"; }
fail() { say "FAILED: $*"; exit 1; }

# -- what is needed -------------------------------------------------------------------------
missing=()
for program in munged slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
  command -v "$program" >/dev/null || missing+=("$program")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "missing: ${missing[*]} (Debian packages slurm-wlm and munge; as root, make test-slurm or scripts/install-deps.sh slurm installs them)"
  exit 1
fi
[ "$(id -u)" -eq 0 ] || { say "the test starts slurmd, which runs as root: run it as root"; exit 1; }
[ -x "$infoflow" ] || { say "no $infoflow: build first (make build)"; exit 1; }

# -- a cluster of one node --------------------------------------------------------------------
work=$(mktemp -d /tmp/infoflow-slurm.XXXXXX)
chmod 700 "$work"
mkdir -p "$work"/{munge,ctld,d,logs,run}
pids=()
stop_cluster() {
  local rc=$?
  say "stopping the cluster"
  for f in "$work/run/slurmd.pid" "$work/run/slurmctld.pid" "$work/munge/munged.pid"; do
    if [ -s "$f" ]; then
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  if [ $rc -ne 0 ]; then
    for f in "$work"/logs/*.log; do echo "--- $f"; tail -n 20 "$f" || true; done
    say "scratch folder kept: $work"
  else
    rm -rf "$work"
  fi
}
trap stop_cluster EXIT

node=$(hostname -s)
ctld_port=${SLURMCTLD_PORT:-16817}
d_port=${SLURMD_PORT:-16818}
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --socket="$work/munge/munge.socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/logs/munged.log" \
  --seed-file="$work/munge/munged.seed"
hardware=$(slurmd -C | head -1 | sed -e "s/^NodeName=[^ ]*/NodeName=$node NodeAddr=127.0.0.1/" \
  -e 's/ RealMemory=[0-9]*//')
cat > "$work/slurm.conf" <<CONF
ClusterName=infoflow-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/d
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/logs/slurmctld.log
SlurmdLogFile=$work/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
$hardware State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
say "slurm.conf:"; sed 's/^/    /' "$SLURM_CONF"
slurmctld -i
slurmd -N "$node"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  [ "$state" = "idle" ] && break
  sleep 1
done
[ "$state" = "idle" ] || fail "the node did not come up (state '$state')"
say "cluster up: $(sinfo -h -o '%P %D nodes, %c CPUs, %t')"

# -- the array -------------------------------------------------------------------------------
spec="$source_dir/tests/data/slurm/slurm_small.toml"
name=slurm_small
profile=test
shards=3
root="$work/sweep"
mkdir -p "$root"
export INFOFLOW="$infoflow" CHECKPOINT_EVERY=500
submit() {
  sbatch --parsable --array="$1" --cpus-per-task=1 --time=00:30:00 --chdir="$root" \
    --output="$work/logs/%A_%a.out" "$here/slurm/sweep_array.sh" "$spec" "$profile" "$shards" "$root"
}
job=$(submit "0-$((shards - 1))")
say "submitted job array $job: sbatch --array=0-$((shards - 1)) --cpus-per-task=1 scripts/slurm/sweep_array.sh $spec $profile $shards $root"

victim=1
results="$root/shard-$victim/$name.jsonl"
checkpoints="$root/shard-$victim/checkpoints/$name"
for _ in $(seq 600); do
  lines=0; held=0
  [ -f "$results" ] && lines=$(wc -l < "$results")
  [ -d "$checkpoints" ] && held=$(find "$checkpoints" -name '*.ckpt' | wc -l)
  [ "$lines" -ge 1 ] && [ "$held" -ge 1 ] && break
  sleep 0.2
done
[ "$lines" -ge 1 ] && [ "$held" -ge 1 ] || fail "task $victim never had a finished run and a checkpoint"
say "queue before the kill:"; squeue -o '    %.10i %.9P %.16j %.2t %.8M %R' || true
scancel "${job}_$victim"
say "cancelled task ${job}_$victim part-way: $lines run(s) in its results file, a checkpoint of the run in progress ($(ls "$checkpoints"))"
for _ in $(seq 100); do
  [ -n "$(squeue -h -j "${job}_$victim" 2>/dev/null || true)" ] || break
  sleep 0.2
done
again=$(submit "$victim")
say "resubmitted task $victim alone: job $again (sbatch --array=$victim, same arguments)"
for _ in $(seq 1200); do
  [ -n "$(squeue -h 2>/dev/null || true)" ] || break
  sleep 1
done
[ -z "$(squeue -h)" ] || fail "jobs still queued or running after 20 minutes"
say "every task done; their states and output:"
for id in $(seq 0 $((shards - 1))) ; do
  echo "  ${job}_$id: $(scontrol -o show job "${job}_$id" 2>/dev/null | grep -o 'JobState=[A-Z]*' || echo '?')"
done
echo "  ${again}_$victim (resubmitted): $(scontrol -o show job "${again}_$victim" 2>/dev/null | grep -o 'JobState=[A-Z]*' || echo '?')"
for f in "$work"/logs/*.out; do echo "  $(basename "$f"): $(tr '\n' ' ' < "$f")"; done

# -- merge, and the same sweep locally --------------------------------------------------------
mkdir -p "$root/merged" "$root/local"
"$infoflow" merge "$root"/shard-*/"$name.jsonl" -o "$root/merged/$name.jsonl"
say "merged: $(wc -l < "$root/merged/$name.jsonl") lines"
"$infoflow" sweep "$spec" --profile "$profile" --results "$root/local" --workers 2
/usr/bin/python3 - "$root/merged/$name.jsonl" "$root/local/$name.jsonl" "$results" <<'PY'
import json, sys

def load(path):
    records = [json.loads(line) for line in open(path)]
    return records, {r["key"]: r for r in records}

merged, m = load(sys.argv[1])
local, l = load(sys.argv[2])
victim, _ = load(sys.argv[3])
problems = []
if len(m) != len(merged):
    problems.append(f"merged file holds {len(merged)} lines for {len(m)} keys (duplicates)")
if set(m) != set(l):
    problems.append(f"keys differ: only merged {sorted(set(m) - set(l))}, "
                    f"only local {sorted(set(l) - set(m))}")
fields = ["best_validation_nmse", "final_validation_nmse", "best_step", "steps_done", "status",
          "curve", "parameters", "labels"]
for key in sorted(set(m) & set(l)):
    for f in fields:
        # json.loads gives the shortest repr of each double: equal floats are equal bits.
        if m[key][f] != l[key][f]:
            problems.append(f"{key} {m[key]['labels']}: {f} {m[key][f]!r} != {l[key][f]!r}")
resumed = [r for r in victim if r.get("resumed_from", 0) > 0]
print(f"local sweep: {len(local)} runs; merged shards: {len(merged)} runs, {len(m)} keys")
print(f"task {sys.argv[3].split('/')[-2]}: {len(victim)} runs, "
      f"{len(resumed)} resumed from a checkpoint "
      + ", ".join(f"(key {r['key']} from step {r['resumed_from']})" for r in resumed))
for key in sorted(m)[:3]:
    print(f"  {key} {m[key]['labels']}: best NMSE {m[key]['best_validation_nmse']!r} "
          f"(local {l[key]['best_validation_nmse']!r})")
if problems:
    print("DIFFERENCES:\n  " + "\n  ".join(problems))
    sys.exit(1)
print("equal: same keys, each once, same NMSE bits (best, final, every curve point)")
PY
say "PASSED"
