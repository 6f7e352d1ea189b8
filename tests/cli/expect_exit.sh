#!/usr/bin/env bash
# The one helper every command-line test runs through: a test passes only
# when the command's exit status AND its output are what it expects.
#
#   expect_exit.sh [--status N] [--match RE]... [--once RE]... [--absent RE]...
#                  [--seconds S] -- COMMAND...
#
#   --status N    the exit status COMMAND must end with (default 0)
#   --match RE    the output (stdout and stderr together) must match the
#                 extended regular expression RE, taken as one text (as
#                 CTest's PASS_REGULAR_EXPRESSION: "." also matches a newline)
#   --once RE     exactly one line of the output matches RE (a message only
#                 rank 0 may print)
#   --absent RE   the output, taken as one text, must not match RE
#   --seconds S   COMMAND must end within S seconds (default: no limit here;
#                 CTest's TIMEOUT still applies)
#
# A sanitizer report in the output fails the test whatever the status (in a
# sanitizer build; elsewhere there is none). Prints the output when it fails.
set -u
want=0 max="" matches=() onces=() absents=()
while [ $# -gt 0 ]; do
  case "$1" in
    --status) want=$2; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --once) onces+=("$2"); shift 2 ;;
    --absent) absents+=("$2"); shift 2 ;;
    --seconds) max=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "expect_exit.sh: unknown option '$1' (see the header)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect_exit.sh: no command after --" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
"$@" >"$out" 2>&1
got=$?
elapsed=$(( $(date +%s) - start ))

fail=""
add() { fail="${fail:+$fail; }$*"; }
[ "$got" -eq "$want" ] || add "exit status $got, expected $want"
for re in ${matches[@]+"${matches[@]}"}; do
  grep -Ezq -- "$re" "$out" || add "output does not match /$re/"
done
for re in ${onces[@]+"${onces[@]}"}; do
  n=$(grep -Ec -- "$re" "$out")
  [ "$n" -eq 1 ] || add "/$re/ matches $n lines, expected exactly one"
done
for re in ${absents[@]+"${absents[@]}"}; do
  if grep -Ezq -- "$re" "$out"; then add "output matches /$re/, which it must not"; fi
done
if [ -n "$max" ] && [ "$elapsed" -gt "$max" ]; then add "took ${elapsed} s, more than ${max} s"; fi
if grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer" "$out"; then
  add "sanitizer report"
fi
if [ -n "$fail" ]; then
  echo "FAIL: $fail"
  echo "command: $*"
  echo "---- output ----"
  cat "$out"
  exit 1
fi
echo "ok: exit status $got in ${elapsed} s; output as expected"
