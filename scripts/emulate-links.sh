#!/usr/bin/env bash
# Emulated multi-host links on one machine: each MPI rank runs in its own
# network namespace, joined to the others through a bridge by a veth pair
# whose two ends are both shaped to a chosen rate with a qdisc (--shaper,
# below). Open MPI's TCP transport then carries every message over a link
# of known bandwidth, so `shardroof link` and `shardroof sweep` can be
# checked against the truth.
#
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 4 --rate 1 -- link -b 16M -e 32M
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 3 --rate 1 --slow-rank 2:0.25 -- link --pattern shift
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 3 --rate 1 --cpu-limit 1:0.15 -- sweep --D 4096
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 4 --ranks-per-node 2 --rate 1 -- \
#       sweep --ranks-per-node 2 --impl hier
#   scripts/emulate-links.sh test --bin build/src/shardroof [--configs "2:0.5 2:1 4:1"] [--out DIR]
#   both modes: [--shaper auto|tbf|htb|netem] (default SHARDROOF_EMULATE_SHAPER, else auto)
#               [--congestion NAME] (default SHARDROOF_EMULATE_CONGESTION, else the kernel's)
#               [--tcp-put on|off] (default SHARDROOF_EMULATE_TCP_PUT, else on: Open MPI's own)
#
# The shaper makes a link behave like a wire: a message takes its bytes
# over the rate, whatever its size, with no head start (the console line
# names the shaper and its parameters):
#   netem  `netem rate`: each packet waits its own serialization; no bucket;
#   tbf    a token bucket of one frame (MTU + 14 B) plus a slack of one
#          more frame, or of rate x the timer resolution where timers are
#          coarse: the slack lets the kernel's timer wake the queue late
#          without losing rate; tbf cuts GSO super-packets into frames;
#   htb    one class, burst = cburst = that slack, the veths' GSO size cut to
#          the MTU (htb sends a super-packet whole);
#   auto   netem where the kernel has it, else tbf, else htb (tbf came
#          closest to a wire where there was no netem: docs/emulation.md,
#          scripts/bench-emulator.sh).
#
# --congestion sets the TCP congestion control (net.ipv4.tcp_congestion_control,
# one of net.ipv4.tcp_available_congestion_control) in every namespace that
# sends: the ranks' and the slack calibration's; where the host does not
# allow it in namespaces (net.ipv4.tcp_allowed_congestion_control) but has
# it, the host allows it for the run and gets its list back on exit; exit
# 77 where the kernel keeps it for the whole machine. Where several flows share a shaped link
# and finish at different times, BBR's pacing holds the flow that is left
# near its share until its probing finds the rest, which a window-based
# control (cubic) fills at once (docs/hierarchy.md, the emulated levels).
#
# --tcp-put off takes `put` out of Open MPI's TCP transport flags
# (btl_tcp_flags, read from ompi_info), so the body of a large message goes
# by send and receive instead of the transport's emulated RDMA write. With
# put, collectives whose pairs exchange both ways on one connection at once
# took 1.3-2.0x their cost model on 4 ranks at 0.1 Gbit/s, without it
# 0.99-1.01 (docs/emulation.md, "The 4-rank term found"); the console names
# the flags that ran.
#
# `run` sets up the namespaces, runs one shardroof command on --ranks ranks
# and removes everything again; --slow-rank R:RATE shapes rank R's link
# (both directions; with --ranks-per-node, the link of rank R's node) to
# RATE Gbit/s instead of --rate; --cpu-limit R:SHARE holds rank R to SHARE
# of one CPU (scripts/cpu-limit.sh: a cgroup cpu quota, removed on exit;
# exit 77 where none can be made). With --ranks-per-node K (run only), K
# consecutive ranks share one namespace, an emulated node with one shaped
# link to the bridge: ranks of one node reach each other over loopback TCP
# inside the namespace (unshaped; Open MPI's shared memory would also join
# ranks of different namespaces, since they share the machine, so it stays
# off), ranks of different nodes over the shaped link. With --levels
# g1,g2,... (run only; with --ranks-per-node K, and as many comma-separated
# --rates as levels: R0,R1,...) the links form a tree of L = 1 + (number of
# sizes) levels, as `coll --levels` groups the ranks: every rank has its own
# namespace and a link at R0 to its node's bridge (K consecutive ranks a
# node; unlike plain --ranks-per-node, ranks of one node meet over shaped
# links, not loopback); each node a link at R1 to its group's bridge (g1
# consecutive nodes a group); each group of level l a link at R(l+1) to
# the bridge of the level above; the last level's groups meet at the hub's
# bridge. Every link is shaped at both ends; the sizes must multiply to
# N/K, as for `coll --levels`:
#   scripts/emulate-links.sh run --bin build/src/shardroof --ranks 8 --ranks-per-node 2 --levels 2,2 \
#       --rates 0.4,0.2,0.1 -- coll --impl hier,ring --ranks-per-node 2 --levels 2,2
# `test` is the acceptance check (CTest label
# `emulation`): for each configuration RANKS:RATE (Gbit/s) it runs `link`
# and the default `sweep` (D = auto, B = F = 1024 floats) with a time
# budget, and then judges two kinds of checks:
#  - functional checks, always blocking: both commands succeed, every pair
#    has a fit and echoes its bytes, the ring probe receives its
#    neighbour's bytes, every product checks, and the sweep record is
#    consistent (tests/sweep/check_sweep_json.py);
#  - timing bounds, each blocking only if it held in 10 consecutive runs on
#    a quiet machine and 3 under a parallel build and has not failed since
#    (the list BLOCKING below, now empty; scripts/bench-emulation.sh
#    measures the series); the others are measured and printed in the same
#    table, marked "reported", and fail nothing:
#      link_W      `link`'s W within 10% of 0.96 x the shaped rate
#      probe_W     the ring probe's W (the book's link) within 10% of it
#      bracketed   the sweep located D* (two points bracket it)
#      interval    its 95% interval within +-10% of D* (the search converged)
#      calibrated  the calibrated D* within 20% of D*_empirical
#      budget      the error budget's residual within 25% of 1
#      scaling     between two rates on as many ranks, D* at a fixed GEMM
#                  rate moves inversely with the shaped rate, within 25%
# TCP payload reaches about 0.96 of the shaped rate. Rates stay at or below
# 1 Gbit/s: a small busy CPU machine cannot drive TCP much faster. The
# sweep's budget is SHARDROOF_EMULATE_BUDGET_S seconds per configuration
# (default 90, 100 on 4 ranks: enough for the rounds to spread over 30 s
# at 0.5 Gbit/s), the longest wait in a shaper's queue
# SHARDROOF_EMULATE_TBF_LATENCY (default 100ms; netem's and htb's queue hold
# the packets of that time at the rate), tbf's burst
# SHARDROOF_EMULATE_TBF_BURST bytes (default above), whether tbf is given
# frames SHARDROOF_EMULATE_GSO (auto: frames where a bulk transfer in
# frames reaches 95% of the rate, the veths' GSO size cut to the MTU, else
# the stack's super-packets; cut; keep). Records and
# summary.tsv land in --out.
#
# Needs root and iproute2 (ip, tc with one of the qdiscs). Exit status: 0
# pass, 1 fail, 2 usage, 77 cannot run here (not root, no netns, no such
# qdisc): CTest reports it as skipped. Every namespace and link it creates lives under a name with
# this run's id and is removed on exit; addresses (10.213.0.0/24) exist only
# inside those namespaces. The hub namespace holds the bridge and mpirun.
#
# Facts this relies on:
#  - mpirun runs in the hub namespace; a wrapper puts each rank into its own
#    namespace with `ip netns exec`. PMIx must listen on the bridge
#    (PMIX_MCA_ptl_tcp_if_include), else ranks cannot reach it.
#  - `--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include <subnet>`:
#    otherwise shared memory bypasses the shaped links.
#  - the qdisc shapes a veth's egress, both ends of each link: the rank's
#    sends and the bridge's sends to it.
#  - latency is not configured (netem is not on every kernel): it is
#    measured.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
skip() { echo "SKIPPED: $*" >&2; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo pipefail/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2; }

mode="${1:-}"
[[ "$mode" == run || "$mode" == test ]] || usage
shift
bin=""
ranks_list=""
rates_list=""
configs=""
out_dir=""
slow_rank=""
cpu_limit=""
ranks_per_node=1
levels=""
shaper_asked="${SHARDROOF_EMULATE_SHAPER:-auto}"
congestion="${SHARDROOF_EMULATE_CONGESTION:-}"
tcp_put="${SHARDROOF_EMULATE_TCP_PUT:-on}"
sweep_args=()
cmd_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --ranks) ranks_list="$2"; shift 2 ;;
    --rate|--rates) rates_list="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    --slow-rank) slow_rank="$2"; shift 2 ;;
    --cpu-limit) cpu_limit="$2"; shift 2 ;;
    --ranks-per-node) ranks_per_node="$2"; shift 2 ;;
    --levels) levels="$2"; shift 2 ;;
    --shaper) shaper_asked="$2"; shift 2 ;;
    --congestion) congestion="$2"; shift 2 ;;
    --tcp-put) tcp_put="$2"; shift 2 ;;
    --) shift; cmd_args=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -z "$levels" || "$mode" == run ]] || { echo "--levels: run only" >&2; exit 2; }
[[ "$shaper_asked" =~ ^(auto|tbf|htb|netem)$ ]] \
  || { echo "--shaper: expected auto, tbf, htb or netem, got '$shaper_asked'" >&2; exit 2; }
[[ -z "$congestion" || "$congestion" =~ ^[a-z0-9_]+$ ]] \
  || { echo "--congestion: expected a congestion control's name (cubic, bbr, reno, ...), got '$congestion'" >&2; exit 2; }
[[ "$tcp_put" == on || "$tcp_put" == off ]] || { echo "--tcp-put: expected on or off, got '$tcp_put'" >&2; exit 2; }
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
# How long a packet may wait in a tbf queue (sets the queue length).
tbf_latency="${SHARDROOF_EMULATE_TBF_LATENCY:-100ms}"
work="$(mktemp -d /tmp/shardroof-emulate.XXXXXX)"
namespaces=()
cpu_group=""
allowed_congestion_before=""

teardown() {
  local ns
  # Deleting a namespace deletes its veth ends (and their peers) and the bridge.
  for ns in "${namespaces[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
  namespaces=()
}
cleanup() {
  local rc=$?
  teardown
  [[ -n "$cpu_group" ]] && "$repo/scripts/cpu-limit.sh" remove "$cpu_group"
  [[ -n "$allowed_congestion_before" ]] &&
    sysctl -q -w "net.ipv4.tcp_allowed_congestion_control=$allowed_congestion_before" >/dev/null 2>&1
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# sender_ns <namespace>: a namespace whose TCP sends the emulated traffic
# gets --congestion's control. A namespace other than the host's may take
# only a control the host allows (net.ipv4.tcp_allowed_congestion_control:
# on a host whose default is bbr that can be "reno bbr", without cubic);
# where the control is available but not allowed, the host allows it for
# this run and gets its own list back on exit (cleanup).
sender_ns() {
  [[ -z "$congestion" ]] && return 0
  ip netns exec "$1" sysctl -q -w "net.ipv4.tcp_congestion_control=$congestion" >/dev/null 2>&1 && return 0
  local allowed
  allowed="$(sysctl -n net.ipv4.tcp_allowed_congestion_control 2>/dev/null)"
  if [[ -z "$allowed_congestion_before" && -n "$allowed" && " $allowed " != *" $congestion "* ]] &&
     sysctl -q -w "net.ipv4.tcp_allowed_congestion_control=$allowed $congestion" >/dev/null 2>&1; then
    allowed_congestion_before="$allowed"
    ip netns exec "$1" sysctl -q -w "net.ipv4.tcp_congestion_control=$congestion" >/dev/null 2>&1 && return 0
  fi
  skip "cannot set the congestion control $congestion in a namespace here (available: $(sysctl -n net.ipv4.tcp_available_congestion_control 2>/dev/null); allowed: $(sysctl -n net.ipv4.tcp_allowed_congestion_control 2>/dev/null))"
}

# Probe: can this kernel/container create namespaces, veth pairs and which
# of the shaping qdiscs does it have? Sets shaper (the one that runs),
# frame_bytes (the largest frame a veth sends: its MTU and the Ethernet
# header, the bytes tc counts) and timer_ns (the kernel's timer
# resolution, /proc/timer_list: 1 ns with high-resolution timers, a tick
# without them).
probe() {
  local ns="${prefix}-probe" dev="${prefix}pa" kind mtu
  local available=()
  ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces here"
  namespaces+=("$ns")
  if ! ip -n "$ns" link add "$dev" type veth peer name "${prefix}pb" 2>/dev/null; then
    skip "cannot create veth pairs here"
  fi
  mtu="$(ip -n "$ns" -o link show dev "$dev" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
  [[ "$mtu" =~ ^[0-9]+$ ]] || skip "cannot read a veth's MTU here"
  frame_bytes=$((mtu + 14))
  timer_ns="$(awk '/\.resolution:/ { print $2; exit }' /proc/timer_list 2>/dev/null || true)"
  [[ "$timer_ns" =~ ^[0-9]+$ ]] || timer_ns="$(python3 -c 'import time; print(round(time.clock_getres(time.CLOCK_MONOTONIC) * 1e9))' 2>/dev/null || true)"
  [[ "$timer_ns" =~ ^[0-9]+$ ]] || skip "cannot read the kernel's timer resolution (/proc/timer_list)"
  for kind in netem tbf htb; do
    if shape "$ns" "$dev" "$kind" 1 "$frame_bytes" 2>/dev/null; then available+=("$kind"); fi
    tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
  done
  teardown
  case "$shaper_asked" in
    auto)
      # netem serializes each packet (no bucket); of the token buckets, tbf
      # came closer to a wire than htb on the development machine
      # (scripts/bench-emulator.sh, docs/emulation.md).
      shaper=""
      for kind in netem tbf htb; do
        [[ " ${available[*]} " == *" $kind "* ]] && { shaper="$kind"; break; }
      done
      [[ -n "$shaper" ]] || skip "none of the qdiscs netem, tbf, htb is available (kernel modules sch_netem, sch_tbf, sch_htb)"
      ;;
    *)
      [[ " ${available[*]} " == *" $shaper_asked "* ]] \
        || skip "the $shaper_asked qdisc is not available on this kernel (kernel module sch_$shaper_asked; available: ${available[*]:-none})"
      shaper="$shaper_asked"
      ;;
  esac
}

# rate in Gbit/s -> bytes per second.
bytes_per_s() { awk -v g="$1" 'BEGIN { printf "%.0f", g * 1e9 / 8 }'; }

# The token buckets' slack (bytes): how many tokens a bucket holds beyond
# the frame it is sending, so that the kernel's timer, which wakes the
# queue when the next frame's tokens are due, may fire late without the
# link losing rate. Past the slack a message leaves at the shaped rate,
# frame by frame, as on a wire; only the slack passes at memory speed, a
# head start a wire does not have. How late the timer fires depends on the
# machine and its load, so the slack is measured, once per rate and run,
# on namespaces of its own laid out as the ranks' path is (rank, bridge,
# rank: two shaped hops each way), while one process per rank yields
# in a loop as the ranks will: starting from one frame (or the tokens of
# one timer period where timers are coarse: rate / HZ, tc's rule), the
# smallest slack of frames 1, 2, 3, 5, 7, 11, 15, 23, 31, 47, 63 with
# which a bulk TCP transfer (a quarter of a second at the rate) reaches
# 95% of the rate's TCP payload, (MTU - 52) / (MTU + 14) of it; where none
# does, the one that came closest, said on the console.
# Without python3 the first candidate is taken unmeasured.
# SHARDROOF_EMULATE_TBF_BURST (bytes) sets tbf's whole burst instead (to
# measure what a burst does: scripts/bench-emulator.sh).
declare -A slack_bytes=() slack_note=() gso_cut=()
# bulk_share <rate Gbit/s> <slack bytes> <busy processes>: the share of the
# TCP payload rate a bulk transfer reaches over two shaped hops built with
# that slack (and the rate's current gso_cut), or nothing where it failed.
bulk_share() {
  local gbit="$1" slack="$2" busy="$3" kind="$shaper" ns_a="${prefix}-cal-a" ns_b="${prefix}-cal-b" ns_h="${prefix}-cal-h"
  local side got bytes wire
  bytes="$(awk -v r="$(bytes_per_s "$gbit")" 'BEGIN { printf "%d", r / 4 }')"
  wire="$(awk -v r="$(bytes_per_s "$gbit")" -v f="$frame_bytes" 'BEGIN { printf "%.0f", r * (f - 66) / f }')"
  # The path the ranks' bytes take: rank -> bridge -> rank, every veth
  # end shaped, two shapers in series each way. One shaped hop reaches
  # the rate with a smaller slack than two (on a 2-vCPU AMD EPYC VM, one
  # frame of slack: one hop 0.95-0.98 of the rate, two hops 0.75-0.78).
  ip netns add "$ns_h"; namespaces+=("$ns_h")
  ip -n "$ns_h" link add "${prefix}cbr" type bridge
  ip -n "$ns_h" link set "${prefix}cbr" up
  for side in a b; do
    local ns_side="$ns_a"
    [[ $side == b ]] && ns_side="$ns_b"
    ip netns add "$ns_side"; namespaces+=("$ns_side")
    sender_ns "$ns_side"
    ip -n "$ns_h" link add "${prefix}ch$side" type veth peer name "${prefix}c$side" netns "$ns_side"
    ip -n "$ns_h" link set "${prefix}ch$side" master "${prefix}cbr" up
    ip -n "$ns_side" link set "${prefix}c$side" up
  done
  ip -n "$ns_a" addr add 10.213.1.1/24 dev "${prefix}ca"
  ip -n "$ns_b" addr add 10.213.1.2/24 dev "${prefix}cb"
  shape "$ns_a" "${prefix}ca" "$kind" "$gbit" "$slack"
  shape "$ns_b" "${prefix}cb" "$kind" "$gbit" "$slack"
  shape "$ns_h" "${prefix}cha" "$kind" "$gbit" "$slack"
  shape "$ns_h" "${prefix}chb" "$kind" "$gbit" "$slack"
  # The CPUs as busy as the run will keep them: one process per rank that
  # yields in a loop, as Open MPI's ranks do while they wait
  # (mpi_yield_when_idle), so the timer is as late as it will be then.
  local spinners=() i
  for ((i = 0; i < busy; i++)); do
    "$python" -c 'import os, time
end = time.monotonic() + 20
while time.monotonic() < end:
    os.sched_yield()' &
    spinners+=($!)
  done
  # Both ends bounded in time: a transfer that fails leaves no process.
  : > "$work/bulk.out"
  timeout 10 ip netns exec "$ns_b" "$python" "$work/bulk.py" receive 10.213.1.2 "$bytes" > "$work/bulk.out" 2>/dev/null &
  local receiver=$! waited
  for waited in $(seq 50); do grep -q listening "$work/bulk.out" && break; sleep 0.05; done
  timeout 10 ip netns exec "$ns_a" "$python" "$work/bulk.py" send 10.213.1.2 "$bytes" 2>/dev/null || true
  wait "$receiver" || true
  for i in "${spinners[@]}"; do kill "$i" 2>/dev/null || true; wait "$i" 2>/dev/null || true; done
  got="$(sed -n '2p' "$work/bulk.out")"
  ip netns delete "$ns_a"; ip netns delete "$ns_b"; ip netns delete "$ns_h"
  namespaces=("${namespaces[@]:0:${#namespaces[@]}-3}")
  [[ -n "$got" ]] && awk -v g="$got" -v w="$wire" 'BEGIN { printf "%.3f", g / w }'
  return 0
}
calibrate_slack() {
  local gbit="$1" busy="${2:-0}" kind="$shaper"
  local k slack share best="" best_share=0 best_cut="" tried="" cut cuts
  [[ -n "${slack_bytes[$gbit]:-}" || "$kind" == netem ]] && return 0
  # A set burst is measured as it is, with the stack's super-packets (tbf
  # cuts them itself).
  if [[ "$kind" == tbf && -n "${SHARDROOF_EMULATE_TBF_BURST:-}" ]]; then gso_cut[$gbit]=no; return 0; fi
  local floor
  floor="$(awk -v r="$(bytes_per_s "$gbit")" -v f="$frame_bytes" -v t="$timer_ns" \
    'BEGIN { s = r * t * 1e-9; if (s < f) s = f; printf "%d", s + 0.999 }')"
  # Which frames the queue is given (tbf): the stack's own, one MTU each
  # (the veths' GSO size cut to the MTU), as a switch port receives them
  # from a wire, where the CPUs carry the rate so; else the stack's GSO
  # super-packets (up to 64 KiB), which tbf cuts into frames that enter
  # its queue at once: several flows' bursts then overflow a short queue
  # together and the flows' shares part (docs/emulation.md, "The 4-rank
  # term found"). htb needs frames (it sends a super-packet whole).
  case "$kind:${SHARDROOF_EMULATE_GSO:-auto}" in
    htb:*|tbf:cut) cuts="yes" ;;
    tbf:keep) cuts="no" ;;
    tbf:auto) cuts="yes no" ;;
    *) echo "SHARDROOF_EMULATE_GSO: expected auto, cut or keep, got '${SHARDROOF_EMULATE_GSO}'" >&2; exit 2 ;;
  esac
  python="$(command -v /usr/bin/python3 || command -v python3 || true)"
  if [[ -z "$python" ]]; then
    slack_bytes[$gbit]="$floor"
    gso_cut[$gbit]="${cuts%% *}"
    slack_note[$gbit]="not measured: no python3"
    return 0
  fi
  cat > "$work/bulk.py" <<'PY'
import socket, sys, time
role, host, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if role == "receive":
    ls = socket.socket()
    ls.bind((host, 5201))
    ls.listen(1)
    print("listening", flush=True)
    s, _ = ls.accept()
    buf = bytearray(1 << 20)
    got, first, t0 = 0, 0, None
    while got < n:
        k = s.recv_into(buf)
        if k == 0:
            break
        if t0 is None:
            t0, first = time.perf_counter(), k
        got += k
    print((got - first) / (time.perf_counter() - t0))
else:
    s = socket.create_connection((host, 5201))
    s.sendall(bytes(n))
    s.close()
PY
  local candidates=(1 2 3 5 7 11 15 23 31 47 63)
  for cut in $cuts; do
    gso_cut[$gbit]="$cut"
    local label=""
    [[ "$kind" == tbf ]] && label=" (frames: $([[ $cut == yes ]] && echo "GSO cut to the MTU" || echo "GSO super-packets"))"
    tried+="$label"
    # Where frames are one choice of two: first the largest slack tried. If
    # the CPUs cannot carry the rate in frames even with it, no smaller
    # slack will (on a 2-vCPU AMD EPYC VM at 1 Gbit/s, 0.56-0.68 at every
    # slack), and the super-packets are measured instead.
    if [[ "$cuts" == "yes no" && "$cut" == yes ]]; then
      slack=$((${candidates[-1]} * frame_bytes))
      ((slack < floor)) && slack="$floor"
      share="$(bulk_share "$gbit" "$slack" "$busy")"
      tried+=" ${slack} B ${share:-failed} (the largest first),"
      if [[ -z "$share" ]] || awk -v s="$share" 'BEGIN { exit !(s < 0.95) }'; then
        if [[ -n "$share" ]] && awk -v s="$share" -v b="$best_share" 'BEGIN { exit !(s > b) }'; then
          best="$slack"; best_share="$share"; best_cut="$cut"
        fi
        continue
      fi
    fi
    for k in "${candidates[@]}"; do
      slack=$((k * frame_bytes))
      ((slack < floor)) && continue
      share="$(bulk_share "$gbit" "$slack" "$busy")"
      [[ -n "$share" ]] || continue
      tried+=" ${slack} B ${share},"
      if awk -v s="$share" -v b="$best_share" 'BEGIN { exit !(s > b) }'; then
        best="$slack"; best_share="$share"; best_cut="$cut"
      fi
      if awk -v s="$share" 'BEGIN { exit !(s >= 0.95) }'; then
        slack_bytes[$gbit]="$slack"
        slack_note[$gbit]="measured: a bulk transfer at $share of the TCP payload rate"
        echo "emulate-links: $kind slack at ${gbit} Gbit/s (bulk TCP over two shaped hops, share of the payload rate):${tried%,}" >&2
        return 0
      fi
    done
  done
  echo "emulate-links: $kind slack at ${gbit} Gbit/s (bulk TCP over two shaped hops, share of the payload rate):${tried%,}" >&2
  if [[ -z "$best" ]]; then
    slack_bytes[$gbit]="$floor"
    gso_cut[$gbit]="${cuts%% *}"
    slack_note[$gbit]="the bulk transfer failed: not measured"
    return 0
  fi
  slack_bytes[$gbit]="$best"
  gso_cut[$gbit]="$best_cut"
  slack_note[$gbit]="measured: no slack reached 95% of the TCP payload rate, this one $best_share"
  echo "emulate-links: at ${gbit} Gbit/s no slack reached 95% of the TCP payload rate; the best, $best B, reached $best_share" >&2
}
slack_for() { echo "${slack_bytes[$1]:?the slack at $1 Gbit/s was not measured}"; }
burst_for() {
  if [[ -n "${SHARDROOF_EMULATE_TBF_BURST:-}" ]]; then echo "$SHARDROOF_EMULATE_TBF_BURST"; return; fi
  echo $((frame_bytes + $(slack_for "$1")))
}

# The queue a packet may wait in, in packets of a frame: the rate times
# SHARDROOF_EMULATE_TBF_LATENCY (tc's time: 100ms, 1s, 500us).
queue_packets() {
  awk -v r="$(bytes_per_s "$1")" -v f="$frame_bytes" -v l="$tbf_latency" 'BEGIN {
    n = l + 0; u = l; sub(/^[0-9.]+/, "", u)
    s = (u == "s" || u == "sec") ? n : (u == "ms" || u == "msec") ? n * 1e-3 : (u == "us" || u == "usec") ? n * 1e-6 : -1
    if (s <= 0) { print "bad SHARDROOF_EMULATE_TBF_LATENCY: " l > "/dev/stderr"; exit 2 }
    q = r * s / f; if (q < 16) q = 16; printf "%d", q + 0.5 }'
}

# shape <namespace> <device> <shaper> <rate Gbit/s> [slack bytes]: the root
# qdisc of one veth end (the slack: the one measured at the rate).
#  netem  `netem rate`: each packet waits its own serialization at the rate
#         (len / rate) behind those before it: a wire, no bucket;
#  tbf    a token bucket of burst frame + slack; it cuts the stack's GSO
#         super-packets (up to 64 KiB) into frames itself, since they do not
#         fit the bucket;
#  htb    one class, rate = ceil, burst = cburst = slack (htb sends while its
#         tokens are not negative and charges the frame after); it sends a
#         GSO super-packet whole, so the veth's GSO size is cut to its MTU
#         (TCP still joins two segments at most).
shape() {
  local ns="$1" dev="$2" kind="$3" gbit="$4" slack="${5:-}" queue
  queue="$(queue_packets "$gbit")"
  case "$kind" in
    netem) tc -n "$ns" qdisc add dev "$dev" root netem rate "${gbit}gbit" limit "$queue" ;;
    tbf)
      local burst="${SHARDROOF_EMULATE_TBF_BURST:-$((frame_bytes + ${slack:-$(slack_for "$gbit")}))}"
      if [[ "${gso_cut[$gbit]:-no}" == yes ]]; then
        ip -n "$ns" link set dev "$dev" gso_max_size "$((frame_bytes - 14))" || return 1
      fi
      tc -n "$ns" qdisc add dev "$dev" root tbf rate "${gbit}gbit" burst "$burst" \
           latency "$tbf_latency" ;;
    htb)
      slack="${slack:-$(slack_for "$gbit")}"
      ip -n "$ns" link set dev "$dev" gso_max_size "$((frame_bytes - 14))" &&
        tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 1 &&
        tc -n "$ns" class add dev "$dev" parent 1: classid 1:1 htb rate "${gbit}gbit" ceil "${gbit}gbit" \
          burst "$slack" cburst "$slack" quantum "$frame_bytes" &&
        tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit "$queue"
      ;;
  esac
}

# What the shaper is, in words, at a rate.
shaper_words() {
  local gbit="$1"
  case "$shaper" in
    netem) echo "netem rate ${gbit}gbit (frames of $frame_bytes B), queue $(queue_packets "$gbit") packets" ;;
    tbf)
      if [[ -n "${SHARDROOF_EMULATE_TBF_BURST:-}" ]]; then
        echo "tbf rate ${gbit}gbit, burst $(burst_for "$gbit") B (SHARDROOF_EMULATE_TBF_BURST; frames of $frame_bytes B), queue $tbf_latency"
      else
        echo "tbf rate ${gbit}gbit, burst $(burst_for "$gbit") B (a frame of $frame_bytes B + slack $(slack_for "$gbit") B," \
          "${slack_note[$gbit]:-}; timer resolution $timer_ns ns), queue $tbf_latency," \
          "$([[ "${gso_cut[$gbit]:-no}" == yes ]] && echo "GSO cut to $((frame_bytes - 14)) B" || echo "GSO super-packets kept")"
      fi ;;
    htb) echo "htb rate = ceil ${gbit}gbit, burst = cburst $(slack_for "$gbit") B (frames of $frame_bytes B," \
           "${slack_note[$gbit]:-};" \
           "timer resolution $timer_ns ns), GSO cut to $((frame_bytes - 14)) B, queue $(queue_packets "$gbit") packets" ;;
  esac
}

# The hub namespace (where mpirun runs) and its bridge at 10.213.0.254.
make_hub() {
  ip netns add "$hub"
  namespaces+=("$hub")
  ip -n "$hub" link set lo up
  ip -n "$hub" link add "$bridge" type bridge
  ip -n "$hub" addr add 10.213.0.254/24 dev "$bridge"
  ip -n "$hub" link set "$bridge" up
}

# setup <namespaces> <rate Gbit/s> [ranks per namespace] [<slow namespace>:<its rate Gbit/s>]
setup() {
  local n="$1" gbit="$2" per="${3:-1}" slow="${4:-}" i ns host_end rank_end rate
  local rates=()
  make_hub
  for ((i = 0; i < n; i++)); do
    ns="${prefix}-r$i"
    host_end="${prefix}h$i"
    rank_end="${prefix}r$i"
    ip netns add "$ns"
    namespaces+=("$ns")
    sender_ns "$ns"
    ip -n "$ns" link set lo up
    ip -n "$hub" link add "$host_end" type veth peer name "$rank_end" netns "$ns"
    ip -n "$hub" link set "$host_end" master "$bridge" up
    ip -n "$ns" addr add "10.213.0.$((i + 1))/24" dev "$rank_end"
    ip -n "$ns" link set "$rank_end" up
    # Both directions of the link: rank -> bridge and bridge -> rank.
    rate="$gbit"
    [[ -n "$slow" && "${slow%%:*}" == "$i" ]] && rate="${slow#*:}"
    calibrate_slack "$rate" "$((n * per))"
    shape "$hub" "$host_end" "$shaper" "$rate"
    shape "$ns" "$rank_end" "$shaper" "$rate"
    rates+=("${rate}gbit")
  done
  write_wrapper "$per" "${rates[@]}"
}

# write_wrapper <ranks per namespace> <the rate of each namespace's link, e.g. 1gbit>...
write_wrapper() {
  local per="$1"
  shift
  local rates=("$@")
  # Each rank enters its namespace (its node's: rank / per): mpirun starts this
  # wrapper. The CPU-limited rank joins its cgroup first, through this
  # script's view of the file system (/proc/<pid>/root): `ip netns exec`
  # mounts a fresh /sys for mpirun, without the cgroup hierarchies.
  cat > "$work/enter-rank-ns.sh" <<WRAP
#!/usr/bin/env bash
ns_index=\$((\${OMPI_COMM_WORLD_RANK:?} / ${per}))
ns="${prefix}-r\$ns_index"
# The shaped rate of this namespace's link: a veth reports its own speed
# (10 Gbit/s), not tc's, so shardroof reads the line rate from here.
rates=(${rates[*]})
export SHARDROOF_LINE_RATE="\${rates[\$ns_index]}"
if [[ -n "${cpu_group}" && "\$OMPI_COMM_WORLD_RANK" == "${cpu_limit%%:*}" ]]; then
  exec "${repo}/scripts/cpu-limit.sh" exec "/proc/$$/root${cpu_group}" ip netns exec "\$ns" "\$@"
fi
exec ip netns exec "\$ns" "\$@"
WRAP
  chmod +x "$work/enter-rank-ns.sh"
}

# setup_levels <ranks> <ranks per node> <sizes above the node, comma list> <rates, comma list>
# A tree of bridges: each rank's namespace has a link at rate 0 to its
# node's bridge (a namespace of its own); each unit of level l (0: a node,
# 1: a group of nodes, ...) a link at rate l+1 to the bridge of the unit
# above it; the outermost units meet at the hub's bridge. Unit u of level
# l holds the consecutive units u*g .. u*g+g-1 of the level below.
setup_levels() {
  local n="$1" per="$2" sizes_list="$3" rates_list="$4" i l u ns parent_ns dev_up dev_down rate
  local sizes=() gbits=() bridge_of=() next_bridge_of=() rank_rates=()
  IFS=, read -r -a sizes <<< "$sizes_list"
  IFS=, read -r -a gbits <<< "$rates_list"
  local link=0
  make_hub
  for rate in "${gbits[@]}"; do calibrate_slack "$rate" "$n"; done
  # join <namespace of the lower end> <its device> <namespace of the bridge> <rate>:
  # a veth from a namespace (a rank's, or a unit's bridge) to the bridge in
  # another, both ends shaped.
  join() {
    local low_ns="$1" low_dev="$2" up_ns="$3" gbit="$4" up_dev="${prefix}u$link"
    link=$((link + 1))
    ip -n "$up_ns" link add "$up_dev" type veth peer name "$low_dev" netns "$low_ns"
    ip -n "$up_ns" link set "$up_dev" master "$bridge" up
    # A unit's lower end is a port of its own bridge; a rank's is its address.
    [[ "$low_ns" == "${prefix}-r"* ]] || ip -n "$low_ns" link set "$low_dev" master "$bridge"
    ip -n "$low_ns" link set "$low_dev" up
    shape "$up_ns" "$up_dev" "$shaper" "$gbit"
    shape "$low_ns" "$low_dev" "$shaper" "$gbit"
  }
  # unit_bridge <namespace>: a namespace holding an unaddressed bridge.
  unit_bridge() {
    ip netns add "$1"
    namespaces+=("$1")
    ip -n "$1" link add "$bridge" type bridge
    ip -n "$1" link set "$bridge" up
  }
  # The units of every level, innermost first: the namespace of each bridge.
  local counts=($((n / per))) units
  for ((l = 0; l < ${#sizes[@]}; l++)); do counts+=($((counts[l] / sizes[l]))); done
  # Level l's units (l = 0 .. L-2) are namespaces <prefix>-l<l>u<u>; the
  # last level's single unit is the hub.
  unit_ns() {
    if (($1 == ${#sizes[@]})); then echo "$hub"; else echo "${prefix}-l$1u$2"; fi
  }
  for ((l = 0; l < ${#sizes[@]}; l++)); do
    for ((u = 0; u < counts[l]; u++)); do unit_bridge "$(unit_ns "$l" "$u")"; done
  done
  for ((i = 0; i < n; i++)); do
    ns="${prefix}-r$i"
    ip netns add "$ns"
    namespaces+=("$ns")
    sender_ns "$ns"
    ip -n "$ns" link set lo up
    join "$ns" "${prefix}r$i" "$(unit_ns 0 $((i / per)))" "${gbits[0]}"
    ip -n "$ns" addr add "10.213.0.$((i + 1))/24" dev "${prefix}r$i"
    rank_rates+=("${gbits[0]}gbit")
  done
  for ((l = 0; l < ${#sizes[@]}; l++)); do
    for ((u = 0; u < counts[l]; u++)); do
      join "$(unit_ns "$l" "$u")" "${prefix}d$link" "$(unit_ns $((l + 1)) $((u / sizes[l])))" "${gbits[l + 1]}"
    done
  done
  # Each rank in its own namespace; its line rate is that of its own link.
  write_wrapper 1 "${rank_rates[@]}"
}

# --tcp-put off: Open MPI's TCP transport flags without put (mpi_args, and
# their words for the console line, mpi_words).
mpi_args=()
mpi_words=""
if [[ "$tcp_put" == off ]]; then
  tcp_flags="$(ompi_info --parsable --param btl tcp --level 9 2>/dev/null \
    | sed -n 's/^mca:btl:tcp:param:btl_tcp_flags:value://p')"
  [[ -n "$tcp_flags" ]] || skip "--tcp-put off: ompi_info does not list btl_tcp_flags here"
  if [[ ",$tcp_flags," == *",put,"* ]]; then
    tcp_flags="$(echo ",$tcp_flags," | sed 's/,put,/,/; s/^,//; s/,$//')"
    mpi_args=(--mca btl_tcp_flags "$tcp_flags")
    mpi_words="; Open MPI's TCP transport without put (btl_tcp_flags $tcp_flags)"
  else
    mpi_words="; Open MPI's TCP transport has no put here (btl_tcp_flags $tcp_flags)"
  fi
fi

# run_shardroof <ranks> <args...>: mpirun in the hub, ranks in their namespaces.
run_shardroof() {
  local n="$1"
  shift
  ip netns exec "$hub" env PMIX_MCA_ptl_tcp_if_include="$bridge" OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np "$n" --oversubscribe --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$bridge" "${mpi_args[@]}" \
    "$work/enter-rank-ns.sh" "$bin" "$@"
}

probe
if [[ "$mode" == run ]]; then
  [[ ${#cmd_args[@]} -gt 0 ]] || { echo "run: give the shardroof command after --" >&2; exit 2; }
  n="${ranks_list:-2}"
  gbit="${rates_list:-1}"
  gbit="${gbit%gbit}"
  if [[ -n "$slow_rank" ]] && ! [[ "$slow_rank" =~ ^[0-9]+:[0-9.]+$ && "${slow_rank%%:*}" -lt "$n" ]]; then
    echo "--slow-rank: expected RANK:RATE with RANK < --ranks $n, got '$slow_rank'" >&2
    exit 2
  fi
  [[ "$ranks_per_node" =~ ^[1-9][0-9]*$ && $((n % ranks_per_node)) == 0 ]] \
    || { echo "--ranks-per-node $ranks_per_node does not divide --ranks $n" >&2; exit 2; }
  if [[ -n "$cpu_limit" ]]; then
    [[ "$cpu_limit" =~ ^[0-9]+:[0-9.]+$ && "${cpu_limit%%:*}" -lt "$n" ]] \
      || { echo "--cpu-limit: expected RANK:SHARE with RANK < --ranks $n, got '$cpu_limit'" >&2; exit 2; }
    # A SKIPPED line (77) or a usage error (2) is cpu-limit.sh's own, on stderr.
    cpu_group="$("$repo/scripts/cpu-limit.sh" create "${cpu_limit#*:}")" || exit $?
  fi
  if [[ -n "$levels" ]]; then
    # Sizes: whole numbers from 1 that multiply to the nodes; one rate per level.
    [[ "$levels" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] \
      || { echo "--levels: expected sizes g1,g2,... (whole numbers from 1), got '$levels'" >&2; exit 2; }
    nodes=$((n / ranks_per_node))
    product=1
    IFS=, read -r -a level_sizes <<< "$levels"
    for g in "${level_sizes[@]}"; do product=$((product * g)); done
    [[ $product == "$nodes" ]] \
      || { echo "--levels $levels: the sizes multiply to $product, not to the $nodes nodes of $ranks_per_node rank(s)" >&2; exit 2; }
    IFS=, read -r -a level_rates <<< "$gbit"
    [[ ${#level_rates[@]} == $((${#level_sizes[@]} + 1)) ]] \
      || { echo "--levels $levels: expected $((${#level_sizes[@]} + 1)) rates R0,R1,... in Gbit/s (the node's links first), got --rates '$gbit'" >&2; exit 2; }
    for r in "${level_rates[@]}"; do
      [[ "$r" =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v r="$r" 'BEGIN { exit !(r > 0) }' \
        || { echo "--rates: expected rates in Gbit/s above 0, got '$r'" >&2; exit 2; }
    done
    (( ${#level_rates[@]} <= 254 && n <= 253 )) || { echo "--levels: at most 253 ranks" >&2; exit 2; }
    [[ -z "$slow_rank" ]] || { echo "--slow-rank: not with --levels (give the levels their rates)" >&2; exit 2; }
    setup_levels "$n" "$ranks_per_node" "$levels" "$gbit"
    words="$ranks_per_node rank(s) per node, each rank on its own ${level_rates[0]} Gbit/s link to its node's bridge"
    for ((l = 0; l < ${#level_sizes[@]}; l++)); do
      words+="; ${level_sizes[l]} $([[ $l == 0 ]] && echo node || echo "level-$l group")(s) $([[ $l == $((${#level_sizes[@]} - 1)) ]] && echo "joined at the hub" || echo "per level-$((l + 1)) group"), each on a ${level_rates[l + 1]} Gbit/s link up"
    done
    echo "emulate-links: $n ranks in $((${#level_sizes[@]} + 1)) levels: $words (shaper: $(for r in "${level_rates[@]}"; do shaper_words "$r"; done | paste -sd ';')${congestion:+; TCP congestion control $congestion}$mpi_words)${cpu_limit:+; rank ${cpu_limit%%:*} held to ${cpu_limit#*:} of a CPU}" >&2
  else
    slow_node=""
    [[ -n "$slow_rank" ]] && slow_node="$(( ${slow_rank%%:*} / ranks_per_node )):${slow_rank#*:}"
    setup $((n / ranks_per_node)) "$gbit" "$ranks_per_node" "$slow_node"
    echo "emulate-links: $((n / ranks_per_node)) namespaces of $ranks_per_node rank(s), each on a ${gbit} Gbit/s link" \
      "(shaper: $(shaper_words "$gbit")${congestion:+; TCP congestion control $congestion}$mpi_words)${slow_rank:+, but the link of rank ${slow_rank%%:*} at ${slow_rank#*:} Gbit/s}${cpu_limit:+; rank ${cpu_limit%%:*} held to ${cpu_limit#*:} of a CPU}" >&2
  fi
  run_shardroof "$n" "${cmd_args[@]}"
  exit $?
fi

# ---- test: the acceptance check ----
python="$(command -v /usr/bin/python3 || command -v python3 || true)"
[[ -n "$python" ]] || skip "python3 not found (needed to read the JSON records)"
configs="${configs:-2:0.5 2:1 4:1}"
keep_out="$out_dir"
out_dir="${out_dir:-$work/out}"
mkdir -p "$out_dir"
rm -f "$out_dir"/*.json "$out_dir"/*.txt "$out_dir/summary.tsv" "$out_dir"/*.jsonl
# The timing bounds that fail the test (see the header): none. Each must
# hold in 10 consecutive quiet runs and 3 under a parallel build, and keep
# holding. The others failed in such a series (2026-12-01, the 2-core
# development machine): the ring's TCP connections settle in one of two
# states per measurement (the 4 MiB AllReduce on 2 ranks at 1 Gbit/s takes
# 35 or 50 ms), which moves D* by 1.4x between measurements of one run.
# link_W held in that series and in 13 runs before it, then failed in a CI
# run (2026-12-07: 0.897 of the expected W on 2 ranks at 0.5 Gbit/s), so it
# is reported too (docs/emulation.md). SHARDROOF_EMULATE_BLOCKING="link_W"
# makes it block again.
BLOCKING="${SHARDROOF_EMULATE_BLOCKING-}"
# `link` with its default sizes (8 B .. 8 MiB: both regimes of the fit),
# fewer round trips.
link_args=(link -n 5 -w 1)
failures=0
for cfg in $configs; do
  n="${cfg%%:*}"
  gbit="${cfg#*:}"
  budget="${SHARDROOF_EMULATE_BUDGET_S:-$([[ "$n" -gt 2 ]] && echo 100 || echo 90)}"
  tag="np${n}-${gbit}gbit"
  setup "$n" "$gbit"
  # Four ranks: a sample of three pairs (every link is shaped alike).
  pairs=(); [[ "$n" -gt 2 ]] && pairs=(--pairs 3)
  echo "emulate-links: $n ranks, ${gbit} Gbit/s (shaper: $(shaper_words "$gbit")${congestion:+; TCP congestion control $congestion}$mpi_words): link" >&2
  rc_link=0
  run_shardroof "$n" "${link_args[@]}" "${pairs[@]}" --force --json "$out_dir/link-$tag.json" \
    > "$out_dir/link-$tag.txt" 2>&1 || rc_link=$?
  echo "emulate-links: $n ranks, ${gbit} Gbit/s: sweep --budget-s $budget" >&2
  rc_sweep=0
  run_shardroof "$n" sweep --budget-s "$budget" --force --json "$out_dir/sweep-$tag.json" \
    > "$out_dir/sweep-$tag.txt" 2>&1 || rc_sweep=$?
  teardown
  [[ $rc_link == 0 ]] || cat "$out_dir/link-$tag.txt" >&2
  [[ $rc_sweep == 0 ]] || cat "$out_dir/sweep-$tag.txt" >&2
  consistent=ok
  if [[ $rc_sweep == 0 ]]; then
    "$python" "$repo/tests/sweep/check_sweep_json.py" "$out_dir/sweep-$tag.json" > "$out_dir/check-$tag.txt" 2>&1 \
      || consistent="$(tail -1 "$out_dir/check-$tag.txt")"
  fi
  "$python" - "$out_dir" "$tag" "$n" "$gbit" "$rc_link" "$rc_sweep" "$consistent" "$budget" >> "$out_dir/rows.jsonl" <<'PY'
import json, os, sys
out, tag, n, gbit, rc_link, rc_sweep, consistent, budget = sys.argv[1:]
n, gbit = int(n), float(gbit)
expected = 0.96 * gbit * 1e9 / 8
row = {"tag": tag, "ranks": n, "rate_gbit": gbit, "expected_W": expected, "budget_s": float(budget),
       "functional": [], "bounds": {}}
def functional(ok, what):
    if not ok:
        row["functional"].append(what)
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        functional(False, f"{name}: {e}")
        return None
functional(rc_link == "0", f"link exited {rc_link}")
functional(rc_sweep == "0", f"sweep exited {rc_sweep}")
functional(consistent == "ok", f"sweep record: {consistent}")
link = load(f"link-{tag}.json") if rc_link == "0" else None
if link:
    pairs = link["pairs"]
    functional(pairs and all(p["W_bytes_per_s"] for p in pairs), "a pair without a fit")
    functional(all(p["wrong"] == 0 for p in pairs), "echoed bytes wrong")
    W = (link.get("model_link") or {}).get("W_bytes_per_s") or 0
    row["link_W"] = W
    row["bounds"]["link_W"] = abs(W / expected - 1) <= 0.10
sweep = load(f"sweep-{tag}.json") if rc_sweep == "0" else None
if sweep:
    ce, cr = sweep["ceilings"], sweep["crossover"]
    probe = ce.get("ring_probe") or {}
    functional(probe.get("wrong") == 0, "the ring probe received wrong bytes")
    functional(all(p["check"]["passed"] for p in sweep["points"]), "a product failed its check")
    functional(cr.get("search", {}).get("stop") not in (None, "measuring"), "the search did not end")
    W = ce.get("W_bytes_per_s") or 0
    row.update(probe_W=W, W_eff=ce.get("W_eff_bytes_per_s"), t_comm=ce.get("t_comm_measured_s"),
               D=cr.get("D_empirical"), ci=cr.get("D_empirical_ci"), D_cal=cr.get("D_predicted"),
               D_book=cr.get("D_book"), err=cr.get("rel_error"), book_err=cr.get("book_rel_error"),
               budget=cr.get("budget"), stop=cr["search"]["stop"], elapsed=cr["search"]["elapsed_s"],
               points=len(sweep["points"]))
    row["bounds"]["probe_W"] = abs(W / expected - 1) <= 0.10
    row["bounds"]["bracketed"] = cr.get("D_empirical") is not None
    row["bounds"]["interval"] = cr["search"]["stop"] == "converged"
    row["bounds"]["calibrated"] = cr.get("rel_error") is not None and abs(cr["rel_error"]) <= 0.20
    b = cr.get("budget")
    row["bounds"]["budget"] = b is not None and abs(b["residual"] - 1) <= 0.25
    if b:
        row["C_at_D"] = b["C_at_D_empirical"]
print(json.dumps(row))
PY
done
# The table, the scaling bound between rates, and the verdict.
"$python" - "$out_dir" "$BLOCKING" <<'PY' | tee "$out_dir/summary.txt" >&2 || failures=1
import json, os, sys
out, blocking = sys.argv[1], set(sys.argv[2].split())
rows = [json.loads(l) for l in open(os.path.join(out, "rows.jsonl"))]
def f(v, fmt):
    return "-" if v is None else format(v, fmt)
def mark(row, bound):
    if bound not in row["bounds"]:
        return "-"
    ok = row["bounds"][bound]
    return ("ok" if ok else "FAIL") + ("" if bound in blocking else "*")
# Scaling: per rank count, between neighbouring rates, D*/C(D*) against the rate.
for n in sorted({r["ranks"] for r in rows}):
    rs = sorted((r for r in rows if r["ranks"] == n and r.get("D") and r.get("C_at_D")), key=lambda r: r["rate_gbit"])
    for lo, hi in zip(rs, rs[1:]):
        at_fixed_c = (lo["D"] / lo["C_at_D"]) / (hi["D"] / hi["C_at_D"])
        off = at_fixed_c / (hi["rate_gbit"] / lo["rate_gbit"]) - 1
        hi["scaling_off"] = off
        hi["bounds"]["scaling"] = abs(off) <= 0.25
cols = ["ranks", "Gbit/s", "link W/exp", "probe W/exp", "W_eff/exp", "T_comm(S) ms", "D*", "95% interval",
        "calibrated", "err", "book", "err", "compute", "comm", "residual", "search", "s",
        "link_W", "probe_W", "bracketed", "interval", "calibrated", "budget", "scaling"]
lines = ["\t".join(cols)]
bad = []
for r in rows:
    e = r["expected_W"]
    b = r.get("budget") or {}
    ci = r.get("ci")
    lines.append("\t".join([
        str(r["ranks"]), f"{r['rate_gbit']:g}", f(r.get("link_W") and r["link_W"] / e, ".3f"),
        f(r.get("probe_W") and r["probe_W"] / e, ".3f"), f(r.get("W_eff") and r["W_eff"] / e, ".3f"),
        f(r.get("t_comm") and r["t_comm"] * 1e3, ".1f"), f(r.get("D"), ".0f"),
        "-" if not ci else f"[{f(ci[0], '.0f')}, {f(ci[1], '.0f')}]", f(r.get("D_cal"), ".0f"),
        "-" if r.get("err") is None else f"{100 * r['err']:+.1f}%", f(r.get("D_book"), ".0f"),
        "-" if r.get("book_err") is None else f"{100 * r['book_err']:+.1f}%", f(b.get("compute_efficiency"), ".2f"),
        f(b.get("comm_efficiency"), ".2f"), f(b.get("residual"), ".2f"), r.get("stop", "-"),
        f(r.get("elapsed"), ".0f")] + [mark(r, k) for k in
                                       ("link_W", "probe_W", "bracketed", "interval", "calibrated", "budget",
                                        "scaling")]))
    for what in r["functional"]:
        bad.append(f"{r['tag']}: {what}")
    for k, ok in r["bounds"].items():
        if not ok and k in blocking:
            bad.append(f"{r['tag']}: bound {k}")
widths = [max(len(l.split("\t")[i]) for l in lines) for i in range(len(cols))]
for l in lines:
    print("  ".join(c.rjust(w) for c, w in zip(l.split("\t"), widths)))
print("emulate-links: * = a reported bound, not blocking (not shown to hold in every quiet and loaded run; "
      "docs/emulation.md); blocking: " + (", ".join(sorted(blocking)) or "none"))
for r in rows:
    if "scaling_off" in r:
        print(f"emulate-links: {r['ranks']} ranks, D*/C(D*) against the rate up to {r['rate_gbit']:g} Gbit/s: "
              f"{100 * r['scaling_off']:+.1f}%")
for b in bad:
    print("emulate-links: FAILED: " + b)
with open(os.path.join(out, "summary.tsv"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
with open(os.path.join(out, "judged.jsonl"), "w") as fh:
    fh.write("".join(json.dumps(r) + "\n" for r in rows))
sys.exit(1 if bad else 0)
PY
[[ -n "$keep_out" ]] && echo "records in $out_dir" >&2
[[ $failures == 0 ]] || fail "a functional check or a blocking bound failed (see above)"
echo "emulate-links: every functional check and blocking bound held"
