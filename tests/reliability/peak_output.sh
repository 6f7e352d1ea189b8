#!/usr/bin/env bash
# `shardroof peak --json` keeps the output policy of the other commands
# (README, "Exit status and reliability"):
#  1. an existing file is never overwritten without --force: a fresh name is
#     chosen and printed;
#  2. SIGINT to every rank (Ctrl-C; the other scripts send SIGTERM): exit
#     status 130, a message saying where the finished measurements are, the
#     file marked "interrupted" and holding every datatype measured before
#     the signal.
. "$(dirname "$0")/lib.sh"

check_json() {  # check_json FILE EXPECTED_INTERRUPTED [EXPECTED_DATATYPES]
  python3 - "$@" <<'PY' || fail "$1 is not a complete record of the finished measurements"
import json, sys
path, want_interrupted = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
nodes = doc["nodes"]
assert len(nodes) == 1 and nodes[0]["ranks"] == 2, nodes
gemm = nodes[0]["gemm"]
assert gemm and all(g["flops_per_s"] > 0 and g["thin"] for g in gemm), gemm
if want_interrupted:
    assert doc.get("interrupted") == want_interrupted and doc["complete"] is False, doc.get("interrupted")
    assert "memory" not in nodes[0]
else:
    assert "interrupted" not in doc and doc["complete"] is True
    assert nodes[0]["memory"]["triad_bytes_per_s"] > 0
if len(sys.argv) > 3:
    assert len(gemm) == int(sys.argv[3]), (len(gemm), sys.argv[3])
print(f"{path}: {len(gemm)} datatypes")
PY
}

# 1. No overwrite without --force.
quick=(peak --datatypes float --size 64 --k 16 --memory-bytes 64K --reduce-elements 1024 --warmup 0 --iters 1)
run_ranks "${quick[@]}" --json p.json
[ "$rc" -eq 0 ] || fail "first run failed"
before=$(md5sum <p.json)
run_ranks "${quick[@]}" --json p.json
[ "$rc" -eq 0 ] || fail "second run failed"
grep -qx -- "--json: 'p.json' exists; writing 'p-1.json' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh name"
grep -q "JSON written to p-1.json" out.txt || fail "the report does not name the fresh file"
[ "$(md5sum <p.json)" = "$before" ] || fail "p.json was overwritten"
check_json p-1.json "" 1
run_ranks "${quick[@]}" --json p.json --force
[ "$rc" -eq 0 ] || fail "--force run failed"
if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh name"; fi
[ ! -e p-2.json ] || fail "--force wrote a fresh file"
echo "ok: p.json kept, p-1.json chosen and printed, --force overwrote"

# 2. SIGINT once the first datatype is in the file; each datatype takes a
#    while (a 1024^3 GEMM and seven thin ones, 10 timed iterations each).
start_ranks peak --datatypes float,double,bfloat16 --size 1024 --warmup 1 --iters 10 --json t.json
wait_for 180 test -s t.json || fail "no measurement finished"
kill -INT "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 120
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGINT, expected 130"
grep -Eq "interrupted after [123] of 4 measurements; finished measurements are in t.json" err.txt ||
  fail "no message saying where the finished measurements are"
done_steps=$(sed -nE 's/.*interrupted after ([0-9]+) of 4 measurements.*/\1/p' err.txt | head -1)
check_json t.json SIGINT "$done_steps"
echo "ok: SIGINT -> exit status 130, $done_steps datatypes kept and reported"
