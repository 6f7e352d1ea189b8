# Shared by the reliability scripts: run as `script.sh SHARDROOF MPIEXEC [MPIEXEC FLAGS...]`.
# Sets $bin, $launcher (mpiexec -n $ranks + flags; a script sets ranks
# before sourcing this file, default 2), $work (a fresh directory, the
# current directory from here on) and helpers.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$1
shift
launcher=("$1" -n "${ranks:-2}" "${@:2}")
work=$(mktemp -d "${TMPDIR:-/tmp}/shardroof-reliability.XXXXXX")
cd "$work" || exit 1
mpirun_pid=""
cleanup() {
  # Processes this script started: the launcher and, through the pid files,
  # its ranks (continued first in case one was stopped).
  for f in pid.*; do [ -s "$f" ] && kill -CONT "$(cat "$f")" 2>/dev/null; done
  [ -n "$mpirun_pid" ] && kill -KILL "$mpirun_pid" 2>/dev/null
  for f in pid.*; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
  cd / && rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in out.txt err.txt; do [ -f "$f" ] && { echo "---- $f ----"; cat "$f"; }; done
  exit 1
}

# Every run keeps stdout (out.txt) and stderr (err.txt) apart: the launcher
# forwards each rank's two streams separately, and where both go to one file
# it may put stdout bytes in the middle of a stderr line (a message the
# checks look for) when the two are written close together.

# A sanitizer report from any rank fails the script, whatever the exit
# status the script expects (in a sanitizer build; elsewhere there is none).
no_sanitizer_report() {
  if grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer" err.txt; then fail "sanitizer report"; fi
}

# run_ranks COMMAND ARGS...: runs `shardroof COMMAND -v ARGS` on $ranks ranks
# to the end (-v: the checks read the command's rows); sets $rc.
run_ranks() {
  "${launcher[@]}" "$bin" "$1" -v "${@:2}" >out.txt 2>err.txt
  rc=$?
  no_sanitizer_report
}

# start_ranks COMMAND ARGS...: starts `shardroof COMMAND -v ARGS` on $ranks ranks in the background,
# each rank writing its pid to pid.<rank>, stdout line-buffered. The files of
# an earlier run are cleared first, here: the background job's own
# redirections truncate them only once it gets to run, and a check made
# before that would read the earlier run's lines.
start_ranks() {
  rm -f pid.*
  : >out.txt
  : >err.txt
  "${launcher[@]}" sh -c 'echo $$ > "pid.$OMPI_COMM_WORLD_RANK"; exec stdbuf -oL "$0" "$@"' "$bin" "$1" -v "${@:2}" \
    >out.txt 2>err.txt &
  mpirun_pid=$!
}

# start_held N ARGS...: starts `shardroof ARGS` as start_ranks does, with
# every rank holding after its N-th step (size, pair, datatype, point) until
# it gets a signal (SHARDROOF_TEST_HOLD_AFTER, src/util/interrupt.h), and
# returns once every rank holds there. A signal or kill sent then lands
# between step N and step N+1 however fast or slow the machine is, so the
# test knows exactly what the results file must hold.
start_held() {
  local n=$1
  shift
  export SHARDROOF_TEST_HOLD_AFTER=$n
  start_ranks "$@"
  unset SHARDROOF_TEST_HOLD_AFTER
  wait_for 120 all_holding || fail "the ranks did not all reach the hold after step $n"
}
all_holding() { [ "$(grep -c 'holds after step' err.txt)" -ge "${ranks:-2}" ]; }

# check_records KIND FILE... : tests/reliability/check_records.py (its
# header says what each KIND checks); fails the script with its message.
check_records() {
  python3 "$here/check_records.py" "$@" || fail "the results file is not a complete record of what the run finished"
}

# wait_for SECONDS CONDITION...: polls CONDITION every 0.1 s.
wait_for() {
  local limit=$1
  shift
  local end=$(( $(date +%s) + limit ))
  until "$@"; do
    [ "$(date +%s)" -gt "$end" ] && return 1
    sleep 0.1
  done
}

both_pids() { [ -s pid.0 ] && [ -s pid.1 ]; }
all_pids() {
  local r
  for ((r = 0; r < ${ranks:-2}; r++)); do [ -s "pid.$r" ] || return 1; done
}
launcher_done() { ! kill -0 "$mpirun_pid" 2>/dev/null; }

# finish_launcher SECONDS: waits for the launcher at most SECONDS; sets $rc.
finish_launcher() {
  wait_for "$1" launcher_done || fail "the job did not end within $1 s"
  wait "$mpirun_pid"
  rc=$?
  mpirun_pid=""
  no_sanitizer_report
}

# check_no_overwrite ARGS... -- FLAG FILE [FLAG FILE...]: the no-overwrite
# policy for each output FLAG (--json, --csv, --trace) and its FILE. Runs
# `shardroof ARGS FLAG FILE...` three times: the first writes every FILE; the
# second leaves each FILE as it was, writes FILE's fresh name stem-1.ext
# instead and says so on stderr and in the report; the third, with --force,
# overwrites every FILE and makes no stem-2.ext. out.txt and err.txt are the
# --force run's afterwards.
check_no_overwrite() {
  local args=() outputs files=() i flag file fresh before
  while [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  outputs=("$@")
  for ((i = 1; i < ${#outputs[@]}; i += 2)); do files+=("${outputs[i]}"); done
  run_ranks "${args[@]}" "${outputs[@]}"
  [ "$rc" -eq 0 ] || fail "first run failed"
  before=$(md5sum "${files[@]}")
  run_ranks "${args[@]}" "${outputs[@]}"
  [ "$rc" -eq 0 ] || fail "second run failed"
  for ((i = 0; i < ${#outputs[@]}; i += 2)); do
    flag=${outputs[i]}
    file=${outputs[i + 1]}
    fresh="${file%.*}-1.${file##*.}"
    grep -qx -- "$flag: '$file' exists; writing '$fresh' instead (--force overwrites)" err.txt ||
      fail "no note of the fresh name of $flag"
    grep -q "$(report_name "$flag") written to $fresh" out.txt || fail "the report does not name $fresh"
  done
  [ "$(md5sum "${files[@]}")" = "$before" ] || fail "an existing file was overwritten"
  run_ranks "${args[@]}" "${outputs[@]}" --force
  [ "$rc" -eq 0 ] || fail "--force run failed"
  if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh name"; fi
  for ((i = 0; i < ${#outputs[@]}; i += 2)); do
    flag=${outputs[i]}
    file=${outputs[i + 1]}
    grep -q "$(report_name "$flag") written to $file" out.txt || fail "--force did not write $file"
    [ ! -e "${file%.*}-2.${file##*.}" ] || fail "--force wrote a fresh file for $flag"
  done
}
# What the report calls the file of an output flag ("# JSON written to ...").
report_name() {
  case $1 in
    --json) echo JSON ;;
    --csv) echo CSV ;;
    --trace) echo trace ;;
  esac
}
