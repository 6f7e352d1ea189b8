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
# full record), <command>.txt (the table), job.txt (allocation, nodes,
# settings, launch line) and exit_status.

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
  local -a launch
  case "$launcher" in
    srun)
      # --mpi=pmix: Debian's and most clusters' Open MPI starts through PMIx.
      # --kill-on-bad-exit: one failing rank ends the step instead of leaving the rest waiting.
      # shellcheck disable=SC2206
      launch=(srun --mpi=pmix --kill-on-bad-exit=1 ${SHARDROOF_SRUN_FLAGS:-})
      ;;
    mpirun)
      # Open MPI reads the Slurm allocation itself: one rank per task.
      # shellcheck disable=SC2206
      launch=(mpirun -np "${SLURM_NTASKS:-1}" ${SHARDROOF_MPIRUN_FLAGS:-})
      ;;
    *)
      echo "shardroof-job: SHARDROOF_LAUNCHER must be srun or mpirun, got '$launcher'" >&2
      return 2
      ;;
  esac
  # shellcheck disable=SC2206
  local -a args=("$command" --json "$out/$command.json" ${SHARDROOF_ARGS:-} "$@")

  # The BLAS kernel of a command that times CPU GEMMs: OpenBLAS falls back
  # quietly to an older kernel on a CPU model it does not know. `peak
  # --blas-coretype`, run here on the job's first node, judges it against
  # the CPU's own loops and names the OPENBLAS_CORETYPE that fixes it;
  # every rank then gets it (srun passes the environment on; mpirun with
  # -x). SHARDROOF_KEEP_CORETYPE=1 keeps an OPENBLAS_CORETYPE set by hand.
  local blas_note=""
  if [[ ( "$command" == sweep || "$command" == peak ) && " ${args[*]} " != *" --backend cuda "* ]]; then
    local -a answer=()
    mapfile -t answer < <("$bin" peak --blas-coretype 2>/dev/null) || true
    if [[ ${#answer[@]} -ge 2 && "${answer[0]}" != "-" && \
          ! ( -n "${OPENBLAS_CORETYPE:-}" && "${SHARDROOF_KEEP_CORETYPE:-0}" == 1 ) ]]; then
      export OPENBLAS_CORETYPE="${answer[0]}"
      [[ "$launcher" == mpirun ]] && launch+=(-x OPENBLAS_CORETYPE)
      blas_note="${answer[1]}; every rank runs with OPENBLAS_CORETYPE=${answer[0]}"
    elif [[ ${#answer[@]} -ge 2 ]]; then
      blas_note="${answer[1]}"
    fi
    [[ -n "$blas_note" ]] && echo "shardroof-job: BLAS kernel: $blas_note" >&2
  fi

  {
    echo "job:        $job"
    echo "nodes:      ${SLURM_JOB_NUM_NODES:-1} (${SLURM_JOB_NODELIST:-$(hostname)})"
    echo "tasks:      ${SLURM_NTASKS:-1} (${SLURM_TASKS_PER_NODE:-?} per node)"
    echo "gpus:       ${SLURM_GPUS_PER_NODE:-${SLURM_GPUS_ON_NODE:-none}} per node"
    echo "binary:     $bin"
    echo "launch:     ${launch[*]} $bin ${args[*]}"
    [[ -n "$blas_note" ]] && echo "blas:       $blas_note"
    echo "started:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    env | grep -E '^(OMPI_MCA_|UCX_|NCCL_|PMIX_MCA_|OMP_|OPENBLAS_)' | sort | sed 's/^/env:        /'
  } > "$out/job.txt"
  echo "shardroof-job: results in $out" >&2

  "${launch[@]}" "$bin" "${args[@]}" | tee "$out/$command.txt"
  local status=${PIPESTATUS[0]}
  echo "$status" > "$out/exit_status"
  echo "finished:   $(date -u +%Y-%m-%dT%H:%M:%SZ) exit $status" >> "$out/job.txt"
  return "$status"
}
