#!/usr/bin/env bash
# One shardroof command on a simulated cluster: SimGrid's SMPI runs our own
# code, unchanged, on a generated platform (docs/simulation.md).
#
#   scripts/simulate.sh --ranks 64 --hw h100 -- coll --impl ring,hier -b 1M -e 64M -d bfloat16
#   scripts/simulate.sh --ranks 1024 --hw h100 -- sweep --D 1M,4M,16M,64M -d bfloat16
#   scripts/simulate.sh --ranks 2 --rate 1 -- coll -b 1M -e 4M          # the emulated 1 Gbit/s link
#   scripts/simulate.sh --ranks 1024 --topology h100-superpod -- coll --impl ring -b 16M -e 16M
#
# Platform (one of):
#   --hw NAME|FILE        a hardware preset (configs/hardware/): nodes of
#                         --ranks-per-node ranks (8), each rank with its own
#                         link inside the node (--link-intra: the preset's
#                         default link, e.g. nvlink) and its own NIC out of it
#                         (--link-inter: its slowest other link, e.g.
#                         infiniband; --nics-per-node K shares them), the
#                         nodes on a fat tree (--topology fat-tree, leaf
#                         switches of --leaf-nodes 16 nodes) or one switch
#   --topology LEVELS     an L-level topology (configs/topology/NAME.toml or
#                         a TOML file; docs/hierarchy.md): nodes of its level
#                         0's g_0 ranks on level 0's link, o_1 * g_0 NICs per
#                         node on level 1's link, the levels above as a fat
#                         tree whose up-links out of a group carry its
#                         oversubscription o_l (0.5: a 2:1 spine); --ranks
#                         must be its N; --hw defaults to its hardware
#   --rate GBIT           every node's one link at GBIT Gbit/s, as
#                         scripts/emulate-links.sh shapes it, with the network
#                         factors calibrated against those links
#                         (--calibration, default
#                         configs/simulation/calibration.toml); nodes of
#                         --ranks-per-node ranks (1) on one switch
# Compute (--compute):
#   injected              (default with --hw) the preset's C and M: a GEMM
#                         takes max(2mnk/C, bytes/M) and computes nothing,
#                         reductions take their bytes at M, copies nothing; SMPI
#                         charges nothing else (smpi/simulate-computation:no)
#   benchmarked           (default with --rate) SMPI times the computation on
#                         this machine and scales it by --host-speed FLOPS
#                         over the simulated host's speed (with --hw the
#                         preset's FLOP/s of --host-datatype, default float)
# Memory:
#   --shared-from BYTES   buffers of at least BYTES are shared between the
#                         simulated ranks (SMPI's shared allocation,
#                         smpi/auto-shared-malloc-thresh), so 1,024 ranks fit
#                         in memory; their contents are then meaningless, so
#                         coll, sweep and link run with --check 0 and the
#                         output says that nothing was checked. Default:
#                         auto = 1M from 128 ranks up, none below.
#                         none: every buffer private, every result checked.
# Other:
#   --bin PATH            the simulated build's shardroof (build-smpi/src/shardroof)
#   --out DIR             keep the platform files there (default: removed)
#   --dry-run             print the platform and the smpirun command only
#
# The command gets --timeout 0: the watchdog's clock is the machine's, not
# the simulation's, and SimGrid reports a deadlock itself. An injected
# sweep gets --check 0 (no product is computed). Lines starting with
# "# simulate" say what was simulated and what was not checked; the last
# says the simulated and the wall time. Exit status: the command's (2 for
# bad input here).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,60p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
die() { echo "simulate.sh: $*" >&2; exit 2; }

bin="$repo/build-smpi/src/shardroof"
ranks=""
platform_args=()
shared="auto"
out=""
dry=0
calibration="$repo/configs/simulation/calibration.toml"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --hw|--rate|--ranks-per-node|--nics-per-node|--topology|--leaf-nodes|--link-intra|--link-inter|--compute|\
    --host-speed|--host-datatype)
      platform_args+=("$1" "$2"); shift 2 ;;
    --calibration) calibration="$2"; shift 2 ;;
    --shared-from) shared="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    *) die "unknown argument '$1' (the shardroof command follows --)" ;;
  esac
done
[[ $# -gt 0 ]] || die "no shardroof command after --"
[[ "$ranks" =~ ^[0-9]+$ && "$ranks" -ge 1 ]] || die "--ranks: a number of ranks, got '$ranks'"
command -v smpirun >/dev/null 2>&1 || die "smpirun not found: apt-get install libsimgrid-dev"
[[ -f "$bin" ]] || die "--bin: no simulated shardroof at '$bin' (cmake -S . -B build-smpi -DSHARDROOF_SMPI=ON)"
plugin="$(dirname "$bin")/libshardroof_platform.so"
[[ -f "$plugin" ]] || die "no platform plugin next to the binary ($plugin)"
python="$(command -v python3 || true)"
[[ -n "$python" ]] || die "python3 not found"

work="${out:-$(mktemp -d /tmp/shardroof-simulate.XXXXXX)}"
mkdir -p "$work"
[[ -n "$out" ]] || trap 'rm -rf "$work"' EXIT
"$python" "$repo/scripts/simulate_platform.py" --out "$work" --repo "$repo" --ranks "$ranks" \
  --calibration "$calibration" "${platform_args[@]}"

# Sizes as shardroof takes them: 1M = 2^20 bytes.
bytes_of() {
  local v="$1" n unit
  [[ "$v" =~ ^([0-9]+)([KMG]?)$ ]] || die "--shared-from: bytes with an optional K/M/G, none or auto, got '$v'"
  n="${BASH_REMATCH[1]}"; unit="${BASH_REMATCH[2]}"
  case "$unit" in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; esac
  echo "$n"
}
case "$shared" in
  auto) if (( ranks >= 128 )); then shared_bytes=$((1 << 20)); else shared_bytes=0; fi ;;
  none) shared_bytes=0 ;;
  *) shared_bytes="$(bytes_of "$shared")" ;;
esac

mapfile -t cfg < "$work/smpi.cfg"
cmd=("$@")
sub="${cmd[0]}"
notes=()
if [[ $sub != predict ]]; then
  cmd+=(--timeout 0)
fi
if (( shared_bytes > 0 )); then
  # "local": every shared buffer maps one file in /dev/shm (memory), the
  # size of the largest, lazily. SMPI's default ("global") maps a file it
  # makes in /tmp, on disk here, and populates each mapping at once: ranks
  # then wait for the disk whenever the kernel writes that file back.
  cfg+=("--cfg=smpi/auto-shared-malloc-thresh:$shared_bytes" "--cfg=smpi/shared-malloc:local")
  if [[ $sub == coll || $sub == sweep || $sub == link ]]; then
    cmd+=(--check 0)
    notes+=("# simulate: results NOT checked: buffers of $shared_bytes bytes or more are shared between the simulated ranks (their contents are meaningless); --check 0 added; check at a size below that or with --shared-from none")
  fi
elif [[ $sub == sweep ]] && grep -q '^prop.shardroof/compute = injected' "$work/platform.params"; then
  cmd+=(--check 0)
  notes+=("# simulate: the product is NOT checked: injected compute computes nothing; --check 0 added; check it with --compute benchmarked")
fi

# Privatization off: every rank shares the program's globals, which hold
# nothing per rank (the watchdog is off, signals end the whole simulation);
# a copy of the program per rank would cost 1,024 copies.
# SMPI's own collectives (native, and the program's MPI_Allgather and
# MPI_Barrier) by Open MPI's decision rules, the library the program runs on
# elsewhere; SMPI's default allgather also waits on all its requests at
# once, which SimGrid 3.32 handles in time cubic in their number (hours on
# 256 ranks).
run=(smpirun -np "$ranks" -platform "$plugin" -hostfile "$work/hosts" -no-privatize "--cfg=smpi/coll-selector:ompi"
     "--cfg=smpi/display-timing:yes" "--log=xbt_cfg.thres:warning" "--log=smpi_config.thres:warning"
     "--log=smpi_coll.thres:warning" "--log=smpi_colls.thres:warning"
     "${cfg[@]}" "$bin" "${cmd[@]}")
cat "$work/describe.txt"
for n in "${notes[@]}"; do echo "$n"; done
if [[ $dry == 1 ]]; then
  echo "# simulate: platform parameters ($work/platform.params):"
  sed 's/^/#   /' "$work/platform.params"
  echo "SHARDROOF_SIM_PLATFORM=$work/platform.params ${run[*]}"
  exit 0
fi
rc=0
start=$(date +%s.%N)
# The simulated ranks handle SIGINT and SIGTERM as shardroof does (finish
# the step), but a step of 1,024 simulated ranks can take minutes: a signal
# here ends the simulation outright.
SHARDROOF_SIM_PLATFORM="$work/platform.params" OPENBLAS_NUM_THREADS=1 "${run[@]}" &
pid=$!
trap 'pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null; exit 130' INT TERM
wait "$pid" || rc=$?
trap - INT TERM
end=$(date +%s.%N)
echo "# simulate: exit status $rc, wall time $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, $ranks simulated ranks"
exit "$rc"
