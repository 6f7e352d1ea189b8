#!/usr/bin/env bash
# expect_exit.sh STATUS REGEX [MAX_SECONDS] -- COMMAND...
# Runs COMMAND and passes when it ends with exit status STATUS, its output
# (stdout and stderr together) matches the extended regex REGEX, and it ends
# within MAX_SECONDS (default 60). Prints the output when it fails.
set -u
want=$1 regex=$2
shift 2
max=60
if [ "$1" != "--" ]; then max=$1; shift; fi
[ "$1" = "--" ] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
"$@" >"$out" 2>&1
got=$?
elapsed=$(( $(date +%s) - start ))
fail=""
[ "$got" -eq "$want" ] || fail="exit status $got, expected $want"
grep -Eq -- "$regex" "$out" || fail="${fail:+$fail; }output does not match /$regex/"
[ "$elapsed" -le "$max" ] || fail="${fail:+$fail; }took ${elapsed} s, more than ${max} s"
# In a sanitizer build a report fails the test even when the status matches.
if grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer" "$out"; then fail="${fail:+$fail; }sanitizer report"; fi
if [ -n "$fail" ]; then
  echo "FAIL: $fail"
  echo "command: $*"
  echo "---- output ----"
  cat "$out"
  exit 1
fi
echo "ok: exit $got in ${elapsed} s, output matches /$regex/"
