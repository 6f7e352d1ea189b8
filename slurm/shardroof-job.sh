# Shared body of the shardroof sbatch scripts (sourced by slurm/*.sbatch; not
# submitted itself). It loads modules, picks the binary, creates the results
# folder named after the job, launches one shardroof command on every task
# of the allocation, and ends with the command's exit status.
#
# Settings (environment variables; export them or pass them with
# `sbatch --export=ALL,NAME=value ...`):
#   SHARDROOF_BIN       the shardroof executable
#                       (default: $SHARDROOF_ROOT/build/src/shardroof, else `shardroof` on PATH)
#   SHARDROOF_ROOT      the repository (default: $SLURM_SUBMIT_DIR, where sbatch ran)
#   SHARDROOF_RESULTS   parent of the results folders (default: $SHARDROOF_ROOT/results)
#   SHARDROOF_LAUNCHER  srun (default: srun --mpi=pmix) or mpirun (Open MPI's mpirun inside the allocation)
#   SHARDROOF_MODULES   modules to `module load` first, space-separated (e.g. "openmpi/4.1 openblas")
#   SHARDROOF_SRUN_FLAGS / SHARDROOF_MPIRUN_FLAGS   extra launcher flags
#   SHARDROOF_ARGS      extra shardroof flags (also: arguments after the script name)
# Results: $SHARDROOF_RESULTS/<job name>-<job id>/ holds <command>.json (the
# full record), <command>.txt (the table, -v, and the answer block),
# report.html (`shardroof report` over the job's records: one page to
# open), job.txt (allocation, nodes, settings, launch line) and exit_status.
# `--launches K` among the arguments (sweep and coll): K job steps, one
# launch each (<command>-1.json .. <command>-K.json and .txt), then
# `shardroof combine` over them (combine.json, combine.txt): one launch is
# one draw of what stays fixed while it runs (placement, addresses, the MPI
# library's segments); the combined answer is what the next launch should
# confirm. The exit status is the first failing step's, else combine's.

shardroof_job() {
  local command="$1"
  shift
  set -uo pipefail
  local root="${SHARDROOF_ROOT:-${SLURM_SUBMIT_DIR:-$PWD}}"
  if [[ -n "${SHARDROOF_MODULES:-}" ]]; then
    if ! command -v module >/dev/null 2>&1; then
      echo "shardroof-job: SHARDROOF_MODULES is set but the 'module' command is not available" >&2
      return 2
    fi
    # shellcheck disable=SC2086
    module load ${SHARDROOF_MODULES} || return 2
  fi
  local bin="${SHARDROOF_BIN:-}"
  if [[ -z "$bin" ]]; then
    if [[ -x "$root/build/src/shardroof" ]]; then
      bin="$root/build/src/shardroof"
    else
      bin="$(command -v shardroof || true)"
    fi
  fi
  if [[ -z "$bin" || ! -x "$bin" ]]; then
    echo "shardroof-job: no shardroof executable (set SHARDROOF_BIN; looked in $root/build/src and PATH)" >&2
    return 2
  fi

  local job="${SLURM_JOB_NAME:-shardroof}-${SLURM_JOB_ID:-local}"
  local out="${SHARDROOF_RESULTS:-$root/results}/$job"
  mkdir -p "$out" || return 2

  local launcher="${SHARDROOF_LAUNCHER:-srun}"
  local -a launch one
  case "$launcher" in
    srun)
      # --mpi=pmix: Debian's and most clusters' Open MPI starts through PMIx.
      # --kill-on-bad-exit: one failing rank ends the step instead of leaving the rest waiting.
      # shellcheck disable=SC2206
      launch=(srun --mpi=pmix --kill-on-bad-exit=1 ${SHARDROOF_SRUN_FLAGS:-})
      one=(srun --mpi=pmix --nodes=1 --ntasks=1)
      ;;
    mpirun)
      # Open MPI reads the Slurm allocation itself: one rank per task.
      # shellcheck disable=SC2206
      launch=(mpirun -np "${SLURM_NTASKS:-1}" ${SHARDROOF_MPIRUN_FLAGS:-})
      one=(mpirun -np 1)
      ;;
    *)
      echo "shardroof-job: SHARDROOF_LAUNCHER must be srun or mpirun, got '$launcher'" >&2
      return 2
      ;;
  esac
  # --launches K: taken out of the command's own arguments.
  local launches=1
  local -a rest=()
  # shellcheck disable=SC2206
  local -a given=(${SHARDROOF_ARGS:-} "$@")
  local i
  for ((i = 0; i < ${#given[@]}; i++)); do
    if [[ "${given[$i]}" == --launches ]]; then
      launches="${given[$((i + 1))]:-}"
      i=$((i + 1))
    elif [[ "${given[$i]}" == --launches=* ]]; then
      launches="${given[$i]#--launches=}"
    else
      rest+=("${given[$i]}")
    fi
  done
  if ! [[ "$launches" =~ ^[0-9]+$ ]] || (( launches < 1 )) || \
     { (( launches > 1 )) && [[ "$command" != sweep && "$command" != coll ]]; }; then
    echo "shardroof-job: --launches takes a whole number of launches (2 or more combine; sweep and coll only), got '$launches'" >&2
    return 2
  fi
  # -v: the .txt keeps the whole table, not only the answer block.
  local -a args=("$command" -v --json "$out/$command.json" ${rest[@]+"${rest[@]}"})

  # The BLAS kernel needs nothing here: every rank of shardroof runs the
  # CPU's kernel itself where the library's own choice is below the CPU
  # (--blas-kernel auto), and each header and record says who set it.

  {
    echo "job:        $job"
    echo "nodes:      ${SLURM_JOB_NUM_NODES:-1} (${SLURM_JOB_NODELIST:-$(hostname)})"
    echo "tasks:      ${SLURM_NTASKS:-1} (${SLURM_TASKS_PER_NODE:-?} per node)"
    echo "gpus:       ${SLURM_GPUS_PER_NODE:-${SLURM_GPUS_ON_NODE:-none}} per node"
    echo "binary:     $bin"
    echo "launch:     ${launch[*]} $bin ${args[*]}"
    echo "started:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    env | grep -E '^(OMPI_MCA_|UCX_|NCCL_|PMIX_MCA_|OMP_|OPENBLAS_|BLIS_)' | sort | sed 's/^/env:        /'
  } > "$out/job.txt"
  echo "shardroof-job: results in $out" >&2

  local status=0
  if (( launches == 1 )); then
    "${launch[@]}" "$bin" "${args[@]}" | tee "$out/$command.txt"
    status=${PIPESTATUS[0]}
  else
    local -a records=()
    local k step
    for ((k = 1; k <= launches; k++)); do
      echo "launch:     $k of $launches ($(date -u +%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))" >> "$out/job.txt"
      "${launch[@]}" "$bin" "$command" -v --json "$out/$command-$k.json" ${rest[@]+"${rest[@]}"} | tee "$out/$command-$k.txt"
      step=${PIPESTATUS[0]}
      (( step != 0 && status == 0 )) && status=$step
      records+=("$out/$command-$k.json")
    done
    if (( status == 0 )); then
      "${one[@]}" "$bin" combine -v "${records[@]}" --json "$out/combine.json" --csv "$out/combine.csv" | tee "$out/combine.txt"
      status=${PIPESTATUS[0]}
    fi
  fi
  # One page per job (report.html: inline SVG, no network) from the records
  # the job wrote; it does not change the job's exit status.
  local -a written=()
  local f
  for f in "$out"/*.json; do [[ -s "$f" ]] && written+=("$f"); done
  if (( ${#written[@]} > 0 )); then
    if "${one[@]}" "$bin" report "${written[@]}" -o "$out/report.html" --force > "$out/report.txt"; then
      echo "shardroof-job: report: $out/report.html" >&2
    else
      echo "shardroof-job: the report could not be written (see $out/report.txt)" >&2
    fi
  fi
  echo "$status" > "$out/exit_status"
  echo "finished:   $(date -u +%Y-%m-%dT%H:%M:%SZ) exit $status" >> "$out/job.txt"
  return "$status"
}
