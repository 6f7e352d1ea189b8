#!/usr/bin/env bash
# Our collectives and sweep on simulated clusters of a hardware preset
# (scripts/simulate.sh: SimGrid's SMPI running the simulated build), beside
# the cost model (src/model/collective_cost.*) and the two-level model
# (src/model/two_level.*) of the same links (docs/simulation.md).
#
#   scripts/bench-simulation.sh [--ranks "16 64 256 1024"] [--hw h100] [--sizes "4K 256K 16M"]
#        [--collectives "all_reduce reduce_scatter"] [--impls "ring pairwise direct hier"]
#        [--sweep-ranks "16 64 256 1024"] [--no-sweep] [--skip-existing] [--out DIR]
#        [--smpi-bin build-smpi/src/shardroof] [--bin build/src/shardroof]
#        [--levels-ranks "64 256 1024 4096"] [--levels-sizes "256K 16M"]
#        [--levels-topology h100-superpod] [--leaf-nodes 4] [--levels-batch K]
#        [--levels-impls "ring hier hier2"]
#
# With --levels-ranks (--ranks "" --no-sweep runs that part alone): AllReduce
# on L-level platforms (simulate.sh --topology) against the L-level model
# (predict --topology, src/model/topology.h), at each rank count N and
# --levels-sizes. The platform is --levels-topology's (links, node, the
# top level's oversubscription) with level 1 made --leaf-nodes nodes and the
# top level as many groups as N needs (N / (g_0 * leaf nodes), at least 2:
# three levels from 64 ranks of 8 on), written to $out/levels-N.toml, the
# one file both the platform and the model read. The ring always; hier with
# `coll --impl hier --levels g0,g1,...` where this build takes that flag (a
# row says "skipped" with the reason where it does not); and hier2, the
# two-level hier with the groups below the top level as its nodes
# (--ranks-per-node P_(L-2)), whose rings across them share the top level's
# oversubscribed links, against the L-level model of those two levels
# (predict --level). One call after one barrier by default; --levels-batch
# K times K back-to-back calls after it (`coll --timing batched --batch
# K`), the time per call their mean: the ranks leave a barrier at
# different times (18.6 us apart on 64 simulated ranks, 58.2 on 256), a
# skew that one short call (hier's 0.1-0.5 ms) carries whole and K calls
# share. --levels-impls runs only those of ring, hier and hier2 (the
# largest rank counts take the ring's 2(N-1) steps of N messages far longer
# than hier's few per level). Each run's wall
# time is kept ($out/levels-coll-*.wall.json); the table is
# $out/levels-table.txt.
#
# Per rank count N (nodes of 8 ranks, a NIC per rank, a fat tree of
# leaf switches of 16 nodes), compute injected from the preset:
#  - coll at --sizes, out of place and in place, one iteration each (the
#    simulation is deterministic: injected compute, no noise); buffers
#    private and every result checked (blocking) where N^2 S is at most
#    16 GiB (the check's reference costs N^2 S/4 additions, direct's receive
#    slots N^2 S bytes), else shared between ranks and not checked (the
#    smaller sizes' rows ran the same code on the same platform); the cost
#    model is coll's own model column (--hw PRESET --link INTER: ring,
#    pairwise and direct on the link between nodes, hier on both levels;
#    g = 0), the two-level model `predict --nodes M --ranks-per-node 8`
#    (ring and hier);
#  - sweep --impl ring and hier (ring up to 256 ranks) at D*/2, D*, 2 D* of
#    the two-level prediction, B = F = 1024 float, beside `predict`'s D*;
#    injected compute computes no product, so the product is checked in a
#    sweep of hier with compute benchmarked on the smallest rank count
#    (blocking).
# direct and pairwise are left out from 256 ranks: each rank keeps its N-1
# messages in flight at once, and SimGrid 3.32 takes time quadratic in the
# messages in flight (a checked 4 KiB run of the four implementations on 256
# ranks had not finished after 27 minutes, 6 of them on the CPU).
#
# --skip-existing keeps the records an earlier run left in --out. The
# tables: $out/coll-table.txt and $out/sweep-table.txt (also printed).
# Exit status: 0 every run finished and every checked result was exact, 1
# otherwise. Nothing here judges the times.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,64p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
ranks_list="16 64 256 1024"
sweep_ranks=""
hw=h100
sizes="4K 256K 16M"
collectives="all_reduce reduce_scatter"
impls="ring pairwise direct hier"
do_sweep=1
skip_existing=0
out=""
smpi_bin="$repo/build-smpi/src/shardroof"
bin="$repo/build/src/shardroof"
levels_ranks=""
levels_sizes="256K 16M"
levels_topology=h100-superpod
leaf_nodes=4
levels_batch=1
levels_impls="ring hier hier2"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks_list="$2"; shift 2 ;;
    --sweep-ranks) sweep_ranks="$2"; shift 2 ;;
    --hw) hw="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --collectives) collectives="$2"; shift 2 ;;
    --impls) impls="$2"; shift 2 ;;
    --no-sweep) do_sweep=0; shift ;;
    --skip-existing) skip_existing=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --smpi-bin) smpi_bin="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --levels-ranks) levels_ranks="$2"; shift 2 ;;
    --levels-sizes) levels_sizes="$2"; shift 2 ;;
    --levels-topology) levels_topology="$2"; shift 2 ;;
    --leaf-nodes) leaf_nodes="$2"; shift 2 ;;
    --levels-batch) levels_batch="$2"; shift 2 ;;
    --levels-impls) levels_impls="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
sweep_ranks="${sweep_ranks:-$ranks_list}"
[[ "$levels_batch" =~ ^[1-9][0-9]*$ ]] || { echo "--levels-batch: a whole number from 1, got '$levels_batch'" >&2; exit 2; }
for impl in $levels_impls; do
  [[ $impl == ring || $impl == hier || $impl == hier2 ]] || { echo "--levels-impls: ring, hier or hier2, got '$impl'" >&2; exit 2; }
done
timing=()
((levels_batch > 1)) && timing=(--timing batched --batch "$levels_batch")
out="${out:-$(mktemp -d /tmp/shardroof-bench-simulation.XXXXXX)}"
mkdir -p "$out"
# `predict` runs in the ordinary build; without one, in the simulated build
# on one simulated rank.
if [[ -x "$bin" ]]; then
  predict() { "$bin" predict "$@"; }
else
  predict() { "$repo/scripts/simulate.sh" --bin "$smpi_bin" --ranks 1 --ranks-per-node 1 --hw "$hw" -- predict "$@" |
    grep -v '^# simulat'; }
fi
read -r inter_link memory < <("$(command -v python3)" - "$repo" "$hw" <<'PY'
import sys, os, tomllib
repo, hw = sys.argv[1], sys.argv[2]
path = hw if os.path.exists(hw) else os.path.join(repo, "configs", "hardware", hw + ".toml")
p = tomllib.load(open(path, "rb"))
links = p["links"]
others = [(l["bytes_per_s"], k) for k, l in links.items() if k != p["default_link"]]
print(min(others)[1] if others else p["default_link"], p.get("memory", {}).get("bytes_per_s", 0))
PY
)
sim() { "$repo/scripts/simulate.sh" --bin "$smpi_bin" --hw "$hw" "$@"; }
bytes_of() {
  local v="$1"
  case "$v" in *K) echo $(( ${v%K} << 10 )) ;; *M) echo $(( ${v%M} << 20 )) ;; *G) echo $(( ${v%G} << 30 )) ;; *) echo "$v" ;; esac
}
failures=0
stamp() { echo "bench-simulation: $*; $(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
stamp "output in $out"

for n in $ranks_list; do
  nodes=$((n / 8))
  list=()
  for impl in $impls; do
    [[ ( $impl == direct || $impl == pairwise ) && $n -ge 256 ]] && continue
    list+=("$impl")
  done
  impl_csv="$(IFS=,; echo "${list[*]}")"
  for c in $collectives; do
    for s in $sizes; do
      # Private buffers, and every result checked, where N^2 S stays within
      # 16 GiB: the check's reference sums every rank's pattern for every
      # element (N^2 S / 4 additions in all), and direct's N receive slots
      # of S take N^2 S bytes in all. Else shared, and not checked: the
      # smaller sizes' rows ran the same code on the same platform, checked.
      shared=none
      (( n * n * $(bytes_of "$s") > (1 << 34) )) && shared=1M
      f="$out/coll-$n-$c-$s"
      if [[ $skip_existing == 1 && -f "$f.json" ]]; then
        stamp "coll $c $s on $n ranks: kept from an earlier run"
      else
        rc=0
        sim --ranks "$n" --shared-from "$shared" -- coll --collective "$c" --impl "$impl_csv" -b "$s" -e "$s" -n 1 -w 0 \
          --rounds 1 --min-span-s 0 --hw "$hw" --link "$inter_link" --json "$f.json" --force > "$f.txt" 2>&1 || rc=$?
        if [[ $rc != 0 ]] || grep -q "Out of bounds values : [1-9]" "$f.txt" ||
           { [[ $shared == none ]] && ! grep -q "Out of bounds values : 0 OK" "$f.txt"; }; then
          echo "FAILED: coll $c $s on $n simulated ranks (exit $rc)" >&2; tail -5 "$f.txt" >&2
          failures=$((failures + 1))
        fi
        stamp "coll $c $s on $n ranks ($([[ $shared == none ]] && echo checked || echo "shared buffers, not checked"))"
      fi
      # The two-level model at this S: B x F floats with F = 1024.
      b=$(( $(bytes_of "$s") / 4 / 1024 ))
      [[ $nodes -ge 2 ]] && predict --hw "$hw" --nodes "$nodes" --ranks-per-node 8 --link-inter "$inter_link" -d float \
        --B "$b" --F 1024 --collective "$c" --json "$out/predict-$n-$c-$s.json" --force > /dev/null
    done
  done
done

if [[ $do_sweep == 1 ]]; then
  # The sweep's product, checked: compute benchmarked (OpenBLAS computes the
  # shards; SMPI charges its CPU time, scaled from 1e10 FLOP/s to the
  # preset's) and private buffers, on the smallest rank count (the memory
  # roof's STREAM arrays alone are 96 MB per rank).
  n="${sweep_ranks%% *}"
  for impl in hier; do
    rc=0
    sim --ranks "$n" --compute benchmarked --host-speed 1e10 --shared-from none -- sweep -v --impl "$impl" -d float \
      --B 256 --F 256 --D "$((n * 64)),$((n * 1024))" -n 1 -w 0 --json "$out/sweep-check-$n-$impl.json" --force \
      > "$out/sweep-check-$n-$impl.txt" 2>&1 || rc=$?
    if [[ $rc != 0 ]] || ! grep -q "every point's distributed Z checked: ok" "$out/sweep-check-$n-$impl.txt"; then
      echo "FAILED: checked sweep $impl on $n simulated ranks (exit $rc)" >&2; tail -5 "$out/sweep-check-$n-$impl.txt" >&2
      failures=$((failures + 1))
    fi
    stamp "sweep $impl checked on $n ranks"
  done
  for n in $sweep_ranks; do
    nodes=$((n / 8))
    predict --hw "$hw" --nodes "$nodes" --ranks-per-node 8 --link-inter "$inter_link" -d float --B 1024 --F 1024 \
      --json "$out/predict-sweep-$n.json" --force > /dev/null
    for impl in ring hier; do
      [[ $impl == ring && $n -gt 256 ]] && continue
      dstar="$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['two_level']; print(d['D_star_$impl'])" \
        "$out/predict-sweep-$n.json")"
      ds="$(python3 -c "import sys; d=float(sys.argv[1]); n=int(sys.argv[2]); print(','.join(str(max(n, round(d*f/n)*n)) for f in (0.5, 1, 2)))" "$dstar" "$n")"
      if [[ $skip_existing == 1 && -f "$out/sweep-$n-$impl.json" ]]; then continue; fi
      rc=0
      sim --ranks "$n" -- sweep --impl "$impl" -d float --B 1024 --F 1024 --D "$ds" -n 1 -w 0 \
        --json "$out/sweep-$n-$impl.json" --force > "$out/sweep-$n-$impl.txt" 2>&1 || rc=$?
      [[ $rc == 0 ]] || { echo "FAILED: sweep $impl on $n simulated ranks (exit $rc)" >&2; tail -5 "$out/sweep-$n-$impl.txt" >&2;
                          failures=$((failures + 1)); }
      stamp "sweep $impl on $n ranks"
    done
  done
fi

# L levels: the ring (and hier where coll takes --levels) against the L-level model.
if [[ -n "$levels_ranks" ]]; then
  # hier over L levels needs `coll --impl hier --levels`: taken when coll's
  # help names the flag (and a run refused with a usage error is skipped
  # with its message).
  hier_levels=0
  # (the help read whole first: grep -q would close the pipe early, and
  # pipefail would count the writer's SIGPIPE as a refusal)
  coll_help=$("$bin" coll --help 2>/dev/null || true)
  [[ $coll_help == *--levels* ]] && hier_levels=1
  [[ $hier_levels == 1 ]] || stamp "hier over L levels skipped: this shardroof's coll has no --levels (coll --impl hier --levels g0,g1,... refused)"
  for n in $levels_ranks; do
    topo="$out/levels-$n.toml"
    # The topology of N ranks: --levels-topology's levels, level 1 made
    # --leaf-nodes nodes, the top level N / (ranks below) groups.
    groups="$(python3 - "$repo" "$levels_topology" "$n" "$leaf_nodes" "$topo" <<'PY'
import os, sys, tomllib
repo, name, n, leaf, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
path = name if os.path.exists(name) else os.path.join(repo, "configs", "topology", name + ".toml")
t = tomllib.load(open(path, "rb"))
levels = t["levels"]
if len(levels) < 3:
    sys.exit(f"bench-simulation: --levels-topology {name} has {len(levels)} levels; the bench needs 3 or more")
levels[1]["group_size"] = leaf
below = 1
for l in levels[:-1]:
    below *= l["group_size"]
if n % below or n // below < 2:
    sys.exit(f"bench-simulation: {n} ranks do not make 2 or more groups of {below} (--leaf-nodes {leaf})")
levels[-1]["group_size"] = n // below
def value(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)
with open(out, "w") as f:
    f.write(f"# {name} with level 1 of {leaf} nodes and {n // below} groups at the top (scripts/bench-simulation.sh)\n")
    f.write(f'name = "{t["name"]}-{n}"\n')
    if "hardware" in t:
        f.write(f'hardware = "{t["hardware"]}"\n')
    for l in levels:
        f.write("\n[[levels]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in l.items()))
print(",".join(str(l["group_size"]) for l in levels))
PY
)" || { failures=$((failures + 1)); continue; }
    for s in $levels_sizes; do
      b=$(( $(bytes_of "$s") / 4 / 1024 ))
      predict --topology "$topo" -d float --B "$b" --F 1024 --collective all_reduce \
        --json "$out/levels-predict-$n-$s.json" --force > /dev/null
      shared=none
      (( n * n * $(bytes_of "$s") > (1 << 34) )) && shared=1M
      # The top level's oversubscription, checked with the two-level hier
      # that exists everywhere: its "nodes" made the groups of level L-2
      # (--ranks-per-node P_(L-2)), so its rings across them share the
      # top level's links; the model is the L-level model of two levels:
      # the ranks below the top level as one level at the flat ring's link
      # over them, and the top level as it is (`predict --level`).
      python3 - "$out/levels-predict-$n-$s.json" > "$out/levels-hier2-$n-$s.args" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
levels, pred = d["topology"]["levels"], d["levels"]
below, top = pred[-2], levels[-1]
print(below["ranks"], f"{below['ranks']}:{below['ring_link']['bytes_per_s']!r}:{below['ring_link']['latency_s']!r},"
      f"{top['group_size']}:{top['bytes_per_s']!r}:{top['latency_s']!r}:{top['oversubscription']!r}")
PY
      read -r below_ranks hier2_levels < "$out/levels-hier2-$n-$s.args"
      predict --hw h100 --level "$hier2_levels" -d float --B "$b" --F 1024 --collective all_reduce \
        --json "$out/levels-predict-hier2-$n-$s.json" --force > /dev/null
      for impl in $levels_impls; do
        f="$out/levels-coll-$n-$impl-$s"
        [[ $skip_existing == 1 && -f "$f.json" ]] && { stamp "levels: coll $impl $s on $n ranks kept"; continue; }
        # hier's --levels: every level's group size (g0,g1,...), or, where
        # coll takes the node from the platform and --levels the groups
        # above it, g1,...: the first that coll does not refuse.
        tries=("")
        [[ $impl == hier2 ]] && tries=("--ranks-per-node $below_ranks")
        if [[ $impl == hier ]]; then
          if [[ $hier_levels == 0 ]]; then
            echo "coll --impl hier --levels $groups refused (this shardroof's coll has no --levels)" > "$f.skipped"
            continue
          fi
          tries=("$groups" "${groups#*,}")
        fi
        for levels_arg in "${tries[@]}"; do
          extra=()
          if [[ $impl == hier2 ]]; then
            read -r -a extra <<< "$levels_arg"
          elif [[ -n "$levels_arg" ]]; then
            extra=(--levels "$levels_arg")
          fi
          rc=0
          start=$(date +%s.%N)
          "$repo/scripts/simulate.sh" --bin "$smpi_bin" --ranks "$n" --topology "$topo" --shared-from "$shared" -- \
            coll --collective all_reduce --impl "${impl%2}" "${extra[@]}" -b "$s" -e "$s" -n 1 -w 0 --rounds 1 \
            ${timing[@]+"${timing[@]}"} --min-span-s 0 --json "$f.json" --force > "$f.txt" 2>&1 || rc=$?
          end=$(date +%s.%N)
          [[ $impl == hier && $rc == 2 ]] || break
        done
        python3 -c "import json,sys; json.dump({'wall_s': float(sys.argv[2]) - float(sys.argv[1]), 'load_end': open('/proc/loadavg').read().split()[:3]}, open(sys.argv[3], 'w'))" \
          "$start" "$end" "$f.wall.json"
        if [[ $impl == hier && $rc == 2 ]]; then
          { echo -n "coll --impl hier --levels $groups (and ${groups#*,}) refused: "
            grep -m1 -v '^#' "$f.txt" || echo "exit status 2"; } > "$f.skipped"
          rm -f "$f.json"
          stamp "levels: hier on $n ranks skipped ($(cat "$f.skipped"))"
          continue
        fi
        if [[ $rc != 0 ]] || grep -q "Out of bounds values : [1-9]" "$f.txt"; then
          echo "FAILED: levels coll $impl $s on $n simulated ranks (exit $rc)" >&2; tail -5 "$f.txt" >&2
          failures=$((failures + 1))
          # The table's row says why (137: killed, e.g. by the kernel for memory).
          echo "FAILED: exit status $rc after $(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['wall_s']))" "$f.wall.json") s$([[ $rc == 137 ]] && echo " (killed: SIGKILL, e.g. out of memory)")" > "$f.skipped"
          rm -f "$f.json"
        fi
        stamp "levels: coll $impl $s on $n ranks ($groups), $(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['wall_s']))" "$f.wall.json") s wall"
      done
    done
  done
fi

python3 "$repo/scripts/simulation_tables.py" --dir "$out" --ranks "$ranks_list" --sizes "$sizes" \
  --collectives "$collectives" --sweep-ranks "$( [[ $do_sweep == 1 ]] && echo "$sweep_ranks" )" --hw "$hw" \
  --memory "$memory" --levels-ranks "$levels_ranks" --levels-sizes "$levels_sizes"
[[ $failures == 0 ]] || { echo "bench-simulation: $failures runs failed" >&2; exit 1; }
