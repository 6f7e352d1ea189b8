#!/usr/bin/env bash
# A private, throw-away Slurm on this machine that runs the project's own
# sbatch scripts (slurm/*.sbatch) for real: munged, slurmctld and one
# slurmd per emulated node, under a temporary directory, on non-default
# ports, without systemd. Everything it starts is stopped on exit.
#
#   scripts/slurm-local.sh test --bin build/src/shardroof [--nodes 1|2] [--keep]
#
# Needs root and Debian's packages (installs nothing itself):
#   apt-get install --no-install-recommends slurm-wlm munge
# Exit status: 0 all jobs passed, 1 a job failed, 77 cannot run here
# (not root, or a package missing): CTest reports that as skipped.
#
# Facts this relies on (Slurm 22.05, Debian 12):
#  - MpiDefault=pmix: Debian's Open MPI starts under srun only through PMIx.
#  - Several slurmd on one host: NodeName n1, n2 with distinct ports, and
#    a TmpFS, spool and pid file per node (%n), else their PMIx
#    directories clash.
#  - The emulated nodes share one host name, so Open MPI's shared-memory
#    transport would clash between "nodes": the jobs use OMPI_MCA_btl=self,tcp.
#  - `sbatch --wait` polls slowly, so this script polls `scontrol show job`.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
skip() { echo "SKIPPED: $*" >&2; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

mode="${1:-}"
[[ "$mode" == "test" ]] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shift
bin=""
nodes=2
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -n "$bin" && -x "$bin" ]] || { echo "--bin: no shardroof executable at '$bin'" >&2; exit 2; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
[[ "$nodes" == 1 || "$nodes" == 2 ]] || { echo "--nodes: 1 or 2" >&2; exit 2; }

[[ "$(id -u)" == 0 ]] || skip "needs root (slurmd runs jobs as their user and must be root)"
for tool in munged slurmctld slurmd sbatch scontrol sinfo srun mpirun; do
  command -v "$tool" >/dev/null 2>&1 || skip "'$tool' not found (apt-get install --no-install-recommends slurm-wlm munge)"
done
plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm
[[ -e "$plugindir/mpi_pmix.so" ]] || plugindir="$(dirname "$(find /usr/lib -name mpi_pmix.so -path '*slurm*' 2>/dev/null | head -1)")"
[[ -e "$plugindir/mpi_pmix.so" ]] || skip "Slurm's PMIx plugin (mpi_pmix.so) not found"

work="$(mktemp -d /tmp/shardroof-slurm.XXXXXX)"
chmod 755 "$work"
pids=()
cleanup() {
  local rc=$?
  # Jobs first (their steps hold the PMIx directories), then the daemons.
  if [[ -n "${SLURM_CONF:-}" && -e "${SLURM_CONF}" ]]; then
    scancel --quiet --user=root >/dev/null 2>&1 || true
  fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [[ -f "$work/munged.pid" ]]; then
    kill -TERM "$(cat "$work/munged.pid")" 2>/dev/null || true
  fi
  if [[ $rc != 0 && $rc != 77 ]]; then
    for log in "$work"/log/*.log; do
      [[ -f "$log" ]] && { echo "----- $log (last lines)" >&2; tail -n 15 "$log" >&2; }
    done
  fi
  if [[ $keep == 1 ]]; then echo "kept $work" >&2; else rm -rf "$work"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$work"/{log,state,spool,tmpfs,munge,results}
# Ports away from Slurm's defaults (6817/6818), different per run.
base=$((20000 + ($$ % 2000) * 4))
ctld_port=$base
host="$(hostname -s)"

# munge: a private key, socket and daemon.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
chmod 0700 "$work/munge"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" \
  || fail "munged did not start"
for _ in $(seq 50); do [[ -S "$work/munge/munge.socket" ]] && break; sleep 0.1; done

cpus="$(nproc)"
node_names=()
for i in $(seq "$nodes"); do node_names+=("n$i"); mkdir -p "$work/tmpfs/n$i" "$work/spool/n$i"; done
{
  echo "ClusterName=shardroof-local"
  echo "SlurmctldHost=$host(127.0.0.1)"
  echo "SlurmctldPort=$ctld_port"
  echo "SlurmUser=root"
  echo "SlurmdUser=root"
  echo "AuthType=auth/munge"
  echo "CredType=cred/munge"
  echo "AuthInfo=socket=$work/munge/munge.socket"
  echo "PluginDir=$plugindir"
  echo "MpiDefault=pmix"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "SchedulerType=sched/builtin"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core"
  echo "SlurmdParameters=config_overrides"
  echo "ReturnToService=2"
  echo "StateSaveLocation=$work/state"
  echo "SlurmdSpoolDir=$work/spool/%n"
  echo "TmpFS=$work/tmpfs/%n"
  echo "SlurmctldPidFile=$work/slurmctld.pid"
  echo "SlurmdPidFile=$work/slurmd-%n.pid"
  echo "SlurmctldLogFile=$work/log/slurmctld.log"
  echo "SlurmdLogFile=$work/log/slurmd-%n.log"
  echo "SlurmctldDebug=info"
  echo "SlurmdDebug=info"
  echo "MaxJobCount=100"
  echo "InactiveLimit=0"
  echo "KillWait=5"
  echo "MinJobAge=300"
  for i in $(seq "$nodes"); do
    echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=$cpus RealMemory=1000 State=UNKNOWN"
  done
  echo "PartitionName=local Nodes=$(IFS=,; echo "${node_names[*]}") Default=YES MaxTime=30 State=UP OverSubscribe=FORCE:4"
} > "$work/slurm.conf"
export SLURM_CONF="$work/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
for n in "${node_names[@]}"; do
  slurmd -D -N "$n" -f "$SLURM_CONF" > "$work/log/slurmd-$n.out" 2>&1 &
  pids+=($!)
done

# Wait until every node is idle.
ready=0
for _ in $(seq 150); do
  if [[ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle')" == "$nodes" ]]; then ready=1; break; fi
  sleep 0.2
done
[[ $ready == 1 ]] || fail "nodes not idle after 30 s: $(sinfo -N 2>&1 | tr '\n' ' ')"
echo "slurm-local: $nodes node(s) idle (slurmctld port $ctld_port), work dir $work"

# Submits a script, polls its state, returns the job's exit code line.
run_job() {
  local name="$1"; shift
  local id
  # The job's settings travel in the environment (--export=ALL): values
  # with commas cannot go through --export=NAME=value lists.
  id="$(SHARDROOF_BIN="$bin" SHARDROOF_ROOT="$repo" SHARDROOF_RESULTS="$work/results" \
        OMPI_MCA_btl=self,tcp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 \
        sbatch --parsable --job-name="$name" --output="$work/results/%x-%j.out" --time=00:10:00 --export=ALL "$@")" \
    || fail "sbatch $* refused"
  local state="" line=""
  for _ in $(seq 900); do
    line="$(scontrol show job "$id" -o 2>/dev/null || true)"
    state="$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$line")"
    case "$state" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED) break ;;
    esac
    sleep 0.2
  done
  local exitcode
  exitcode="$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<<"$line")"
  echo "$id $state $exitcode"
}

# True if the JSON file has "key": value somewhere (any indentation).
json_has() { grep -Eq "\"$2\": *$3([,}[:space:]]|\$)" "$1"; }

# Checks one finished job: state, exit code, its results folder and JSON.
check_job() {
  local name="$1" command="$2" ranks="$3" want_nodes="$4" result="$5"
  local id state exitcode
  read -r id state exitcode <<<"$result"
  local dir="$work/results/$name-$id"
  echo "slurm-local: job $id ($name): $state, exit $exitcode"
  if [[ "$state" != COMPLETED || "$exitcode" != 0:0 ]]; then
    cat "$work/results/$name-$id.out" >&2 2>/dev/null || true
    fail "job $name ($id) ended $state with exit code $exitcode"
  fi
  [[ -s "$dir/$command.json" ]] || fail "$dir/$command.json missing"
  [[ -s "$dir/$command.txt" && -s "$dir/job.txt" ]] || fail "$dir lacks $command.txt or job.txt"
  grep -q '<section id="answer">' "$dir/report.html" 2>/dev/null || fail "$dir/report.html: missing, or no answer in it"
  [[ "$(cat "$dir/exit_status")" == 0 ]] || fail "$dir/exit_status is $(cat "$dir/exit_status")"
  json_has "$dir/$command.json" ranks "$ranks" || fail "$dir/$command.json: ranks is not $ranks"
  if [[ "$command" == link ]]; then
    json_has "$dir/link.json" nodes "$want_nodes" || fail "$dir/link.json: nodes is not $want_nodes"
    if [[ "$want_nodes" -gt 1 ]]; then
      json_has "$dir/link.json" same_node false || fail "$dir/link.json: no cross-node pair"
      grep -q 'cross node: 1 pairs' "$dir/link.txt" || fail "$dir/link.txt: no cross-node summary"
    fi
  fi
  echo "slurm-local: $name ok ($dir)"
}

link_args=(-b 8 -e 1M -f 16 -n 5 -w 1)
coll_args=(-b 1K -e 1M -f 32 -n 5 -w 1 --min-span-s 0)
if [[ $nodes == 1 ]]; then
  # One node, 2 tasks: link and coll through srun, link through mpirun.
  r="$(run_job one-link --nodes=1 --ntasks-per-node=2 "$repo/slurm/link.sbatch" "${link_args[@]}")"
  check_job one-link link 2 1 "$r"
  r="$(run_job one-coll --nodes=1 --ntasks-per-node=2 "$repo/slurm/coll.sbatch" "${coll_args[@]}")"
  check_job one-coll coll 2 1 "$r"
  # --launches 2: two job steps, then combine over their records.
  r="$(run_job one-coll-launches --nodes=1 --ntasks-per-node=2 "$repo/slurm/coll.sbatch" "${coll_args[@]}" --launches 2)"
  read -r id state exitcode <<<"$r"
  dir="$work/results/one-coll-launches-$id"
  [[ "$state" == COMPLETED && "$exitcode" == 0:0 ]] || { cat "$work/results/one-coll-launches-$id.out" >&2 2>/dev/null; \
    fail "job one-coll-launches ($id) ended $state with exit code $exitcode"; }
  for f in coll-1.json coll-2.json combine.json combine.txt; do [[ -s "$dir/$f" ]] || fail "$dir/$f missing"; done
  json_has "$dir/combine.json" of '"coll"' || fail "$dir/combine.json: not a combination of coll records"
  grep -q "2 launches of \`shardroof coll\`" "$dir/combine.txt" || fail "$dir/combine.txt: no combined table"
  echo "slurm-local: one-coll-launches ok ($dir)"
  r="$(SHARDROOF_LAUNCHER=mpirun run_job one-link-mpirun --nodes=1 --ntasks-per-node=2 "$repo/slurm/link.sbatch" "${link_args[@]}")"
  check_job one-link-mpirun link 2 1 "$r"
  # A refused flag must fail the job with shardroof's usage status (2).
  r="$(run_job one-bad --nodes=1 --ntasks-per-node=2 "$repo/slurm/link.sbatch" --maxbytes 2G)"
  read -r id state exitcode <<<"$r"
  [[ "$state" == FAILED && "$exitcode" == 2:0 && "$(cat "$work/results/one-bad-$id/exit_status")" == 2 ]] \
    || fail "job with a bad flag ended $state, exit $exitcode (expected FAILED, 2:0)"
  echo "slurm-local: one-bad failed as it should ($state, exit $exitcode)"
else
  # Two emulated nodes, one task each: the pair must be seen as cross-node.
  r="$(run_job two-link --nodes=2 --ntasks-per-node=1 "$repo/slurm/link.sbatch" "${link_args[@]}")"
  check_job two-link link 2 2 "$r"
  r="$(run_job two-coll --nodes=2 --ntasks-per-node=1 "$repo/slurm/coll.sbatch" "${coll_args[@]}")"
  check_job two-coll coll 2 1 "$r"
  if "$bin" sweep --help 2>/dev/null | grep -q -- '--D'; then
    r="$(run_job two-sweep --nodes=2 --ntasks-per-node=1 "$repo/slurm/sweep.sbatch" --B 128 --F 128 --D 16:256:x4 --warmup 1 --iters 2)"
    check_job two-sweep sweep 2 2 "$r"
  else
    echo "slurm-local: NOTE: this build's sweep is not implemented; slurm/sweep.sbatch not submitted" >&2
  fi
fi
echo "slurm-local: all jobs passed"
