#!/usr/bin/env bash
# A small bring-up's records for the report's tests, written to OUTDIR:
#
#   bringup_records.sh SHARDROOF OUTDIR COMBINE_FIXTURES_DIR -- MPIEXEC...
#
# a sweep on 2 ranks (four D), coll on 2 ranks (ring and native), the link
# matrix on 4 ranks, peak, and combine over the three fixture launches in
# COMBINE_FIXTURES_DIR (real launches' D* are too close to a 2-core
# machine's floor to be sure of a crossing in each). About 30 s.
set -euo pipefail
bin=$1 out=$2 fixtures=$3
shift 3
[ "$1" = "--" ] && shift
mpiexec=("$@")
mkdir -p "$out"
rm -f "$out"/*.json
run() { echo "+ $*" >&2; "$@" > /dev/null; }
run "${mpiexec[@]}" -n 2 "$bin" sweep --B 256 --F 256 --D 16:1024:x4 --iters 3 --warmup 1 --json "$out/sweep.json" --force
run "${mpiexec[@]}" -n 2 "$bin" coll --impl ring,native -b 8 -e 256K -f 8 -n 3 -w 1 --min-span-s 0 \
  --json "$out/coll.json" --force
run "${mpiexec[@]}" -n 4 "$bin" link -b 8 -e 64K -f 8 -n 3 -w 1 --json "$out/link.json" --force
run "$bin" peak --datatypes float --size 256 --k 64 --iters 3 --json "$out/peak.json" --force
run "$bin" combine "$fixtures/sweep-1.json" "$fixtures/sweep-2.json" "$fixtures/sweep-3.json" \
  --json "$out/combine.json" --force
ls "$out"
