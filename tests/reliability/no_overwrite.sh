#!/usr/bin/env bash
# An existing results file is never overwritten unless --force: a fresh name
# is chosen and printed.
. "$(dirname "$0")/lib.sh"
args=(coll -b 8 -e 1K -n 2 -w 0)
"${launcher[@]}" "$bin" "${args[@]}" --json r.json >out.txt 2>&1 || fail "first run failed"
before=$(md5sum <r.json)
"${launcher[@]}" "$bin" "${args[@]}" --json r.json >out.txt 2>&1 || fail "second run failed"
grep -q "\-\-json: 'r.json' exists; writing 'r-1.json' instead (--force overwrites)" out.txt || fail "no note of the fresh name"
grep -q "JSON written to r-1.json" out.txt || fail "the report does not name the fresh file"
[ "$(md5sum <r.json)" = "$before" ] || fail "r.json was overwritten"
python3 -c "import json; json.load(open('r-1.json'))" || fail "r-1.json is not JSON"
"${launcher[@]}" "$bin" "${args[@]}" --json r.json --force >out.txt 2>&1 || fail "--force run failed"
if grep -q "exists" out.txt; then fail "--force still chose a fresh name"; fi
[ ! -e r-2.json ] || fail "--force wrote a fresh file"
# --trace follows the same policy.
"${launcher[@]}" "$bin" "${args[@]}" --trace t.json >out.txt 2>&1 || fail "first traced run failed"
before=$(md5sum <t.json)
"${launcher[@]}" "$bin" "${args[@]}" --trace t.json >out.txt 2>&1 || fail "second traced run failed"
grep -q "\-\-trace: 't.json' exists; writing 't-1.json' instead (--force overwrites)" out.txt || fail "no note of the fresh trace name"
grep -q "trace written to t-1.json" out.txt || fail "the report does not name the fresh trace file"
[ "$(md5sum <t.json)" = "$before" ] || fail "t.json was overwritten"
python3 -c "import json; json.load(open('t-1.json'))['traceEvents']" || fail "t-1.json is not a trace"
"${launcher[@]}" "$bin" "${args[@]}" --trace t.json --force >out.txt 2>&1 || fail "--force traced run failed"
[ ! -e t-2.json ] || fail "--force wrote a fresh trace file"
echo "ok: r.json kept, r-1.json chosen and printed, --force overwrote; the same for --trace"
