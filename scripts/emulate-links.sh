#!/usr/bin/env bash
# Emulated multi-host links on one machine: each MPI rank runs in its own
# network namespace, joined to the others through a bridge by a veth pair
# whose two ends are both shaped with `tc ... tbf` to a chosen rate. Open
# MPI's TCP transport then carries every message over a link of known
# bandwidth, so `shardroof link` and `shardroof sweep` can be checked
# against the truth.
#
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 4 --rate 1gbit -- link -b 16M -e 32M
#   scripts/emulate-links.sh test --bin build/src/shardroof [--ranks "2 4"] [--rates "1 4"] [--out DIR]
#
# `run` sets up the namespaces, runs one shardroof command on --ranks ranks
# and removes everything again. `test` is the acceptance check (CTest label
# `emulation`): for each rank count and rate (Gbit/s) it runs `link` and
# checks that the measured W is within 10% of 0.96 x the shaped rate (TCP
# payload reaches about 0.96 of the tbf rate); with --sweep it also runs
# `sweep` and checks its crossover against the model.
#
# Needs root and iproute2 (ip, tc with the tbf qdisc). Exit status: 0 pass,
# 1 fail, 77 cannot run here (not root, no netns or tbf): CTest reports it
# as skipped. Every namespace and link it creates lives under a name with
# this run's id and is removed on exit; addresses (10.213.0.0/24) exist only
# inside those namespaces. The hub namespace holds the bridge and mpirun.
#
# Facts this relies on:
#  - mpirun runs in the hub namespace; a wrapper puts each rank into its own
#    namespace with `ip netns exec`. PMIx must listen on the bridge
#    (PMIX_MCA_ptl_tcp_if_include), else ranks cannot reach it.
#  - `--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include <subnet>`:
#    otherwise shared memory bypasses the shaped links.
#  - tbf burst >= max(256kb, rate x 1 ms), and messages of 16 MiB or more,
#    keep burst effects negligible.
#  - netem is not available on every kernel, so latency is not configured:
#    it is measured.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
skip() { echo "SKIPPED: $*" >&2; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
usage() { sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

mode="${1:-}"
[[ "$mode" == run || "$mode" == test ]] || usage
shift
bin=""
ranks_list=""
rates_list=""
out_dir=""
with_sweep=0
sweep_args=()
cmd_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --ranks) ranks_list="$2"; shift 2 ;;
    --rate|--rates) rates_list="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    --sweep) with_sweep=1; shift ;;
    --) shift; cmd_args=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$bin" && -x "$bin" ]] || { echo "--bin: no shardroof executable at '$bin'" >&2; exit 2; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

[[ "$(id -u)" == 0 ]] || skip "needs root (network namespaces, veth, tc)"
command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || skip "ip/tc not found (apt-get install iproute2)"
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found"

id="$$"
prefix="srl${id}"
hub="${prefix}-hub"
bridge="${prefix:0:10}br"
subnet="10.213.0.0/24"
work="$(mktemp -d /tmp/shardroof-emulate.XXXXXX)"
namespaces=()

teardown() {
  local ns
  # Deleting a namespace deletes its veth ends (and their peers) and the bridge.
  for ns in "${namespaces[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
  namespaces=()
}
cleanup() {
  local rc=$?
  teardown
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Probe: can this kernel/container create namespaces and tbf at all?
probe() {
  ip netns add "${prefix}-probe" 2>/dev/null || skip "cannot create network namespaces here"
  namespaces+=("${prefix}-probe")
  if ! ip -n "${prefix}-probe" link add "${prefix}pa" type veth peer name "${prefix}pb" 2>/dev/null; then
    skip "cannot create veth pairs here"
  fi
  tc -n "${prefix}-probe" qdisc add dev "${prefix}pa" root tbf rate 1gbit burst 256kb latency 100ms 2>/dev/null \
    || skip "the tbf qdisc is not available (kernel module sch_tbf)"
  teardown
}

# rate in Gbit/s -> tbf burst: max(256kb, rate x 1 ms) in bytes.
burst_for() { awk -v g="$1" 'BEGIN { b = g * 1e9 / 8 * 1e-3; if (b < 262144) b = 262144; printf "%d", b }'; }

# setup <ranks> <rate Gbit/s>
setup() {
  local n="$1" gbit="$2" burst i ns host_end rank_end
  burst="$(burst_for "$gbit")"
  ip netns add "$hub"
  namespaces+=("$hub")
  ip -n "$hub" link set lo up
  ip -n "$hub" link add "$bridge" type bridge
  ip -n "$hub" addr add 10.213.0.254/24 dev "$bridge"
  ip -n "$hub" link set "$bridge" up
  for ((i = 0; i < n; i++)); do
    ns="${prefix}-r$i"
    host_end="${prefix}h$i"
    rank_end="${prefix}r$i"
    ip netns add "$ns"
    namespaces+=("$ns")
    ip -n "$ns" link set lo up
    ip -n "$hub" link add "$host_end" type veth peer name "$rank_end" netns "$ns"
    ip -n "$hub" link set "$host_end" master "$bridge" up
    ip -n "$ns" addr add "10.213.0.$((i + 1))/24" dev "$rank_end"
    ip -n "$ns" link set "$rank_end" up
    # Both directions of the link: rank -> bridge and bridge -> rank.
    tc -n "$hub" qdisc add dev "$host_end" root tbf rate "${gbit}gbit" burst "$burst" latency 100ms
    tc -n "$ns" qdisc add dev "$rank_end" root tbf rate "${gbit}gbit" burst "$burst" latency 100ms
  done
  # Each rank enters its own namespace: mpirun starts this wrapper.
  cat > "$work/enter-rank-ns.sh" <<WRAP
#!/usr/bin/env bash
exec ip netns exec "${prefix}-r\${OMPI_COMM_WORLD_RANK:?}" "\$@"
WRAP
  chmod +x "$work/enter-rank-ns.sh"
}

# run_shardroof <ranks> <args...>: mpirun in the hub, ranks in their namespaces.
run_shardroof() {
  local n="$1"
  shift
  ip netns exec "$hub" env PMIX_MCA_ptl_tcp_if_include="$bridge" OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np "$n" --oversubscribe --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$bridge" \
    "$work/enter-rank-ns.sh" "$bin" "$@"
}

probe
if [[ "$mode" == run ]]; then
  [[ ${#cmd_args[@]} -gt 0 ]] || { echo "run: give the shardroof command after --" >&2; exit 2; }
  n="${ranks_list:-2}"
  gbit="${rates_list:-1}"
  gbit="${gbit%gbit}"
  setup "$n" "$gbit"
  echo "emulate-links: $n ranks, each on a ${gbit} Gbit/s link (tbf burst $(burst_for "$gbit") B)" >&2
  run_shardroof "$n" "${cmd_args[@]}"
  exit $?
fi

# ---- test: the acceptance check ----
python="$(command -v /usr/bin/python3 || command -v python3 || true)"
[[ -n "$python" ]] || skip "python3 not found (needed to read the JSON records)"
ranks_list="${ranks_list:-2 4}"
rates_list="${rates_list:-0.25 1}"
keep_out="$out_dir"
out_dir="${out_dir:-$work/out}"
mkdir -p "$out_dir"
# Messages of 8 and 16 MiB: the fit's slope (1/W) comes from their
# difference, so the constant head start a tbf burst gives cancels out.
link_args=(link -b 8M -e 16M -f 2 -n 3 -w 1)
failures=0
summary="$out_dir/summary.tsv"
printf 'ranks\trate_gbit\texpected_W_GBps\tmeasured_W_GBps\tratio\tverdict\n' > "$summary"
for n in $ranks_list; do
  for gbit in $rates_list; do
    setup "$n" "$gbit"
    tag="np${n}-${gbit}gbit"
    # Four ranks: a sample of three pairs (every link is shaped alike).
    pairs=(); [[ "$n" -gt 2 ]] && pairs=(--pairs 3)
    echo "emulate-links: $n ranks, ${gbit} Gbit/s: link" >&2
    if ! run_shardroof "$n" "${link_args[@]}" "${pairs[@]}" --json "$out_dir/link-$tag.json" > "$out_dir/link-$tag.txt" 2>&1; then
      cat "$out_dir/link-$tag.txt" >&2
      teardown
      fail "shardroof link failed on $n ranks at ${gbit} Gbit/s"
    fi
    teardown
    line="$("$python" - "$out_dir/link-$tag.json" "$gbit" "$n" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
gbit, n = float(sys.argv[2]), int(sys.argv[3])
expected = 0.96 * gbit * 1e9 / 8
ws = [p["W_bytes_per_s"] for p in doc["pairs"] if p["W_bytes_per_s"] is not None]
measured = doc["model_link"]["W_bytes_per_s"] if doc.get("model_link") else 0.0
worst = max((abs(w / expected - 1) for w in ws), default=1.0)
ok = len(ws) == len(doc["pairs"]) and worst <= 0.10
print(f"{n}\t{gbit:g}\t{expected / 1e9:.4f}\t{measured / 1e9:.4f}\t{measured / expected:.3f}\t"
      f"{'ok' if ok else 'FAIL'} (worst pair {worst * 100:.1f}% off)")
PY
)"
    echo "$line" >> "$summary"
    echo "emulate-links: $line" >&2
    [[ "$line" == *$'\tok'* ]] || failures=$((failures + 1))
  done
done
column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"
[[ -n "$keep_out" ]] && echo "records in $out_dir" >&2
[[ $failures == 0 ]] || fail "$failures configuration(s) outside the bounds (see above)"
echo "emulate-links: all configurations within bounds"
