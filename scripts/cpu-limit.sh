#!/usr/bin/env bash
# One process held to a fixed share of one CPU, so that a test can make one
# rank slower on purpose and know by how much: a child group of the cgroup
# v1 `cpu` controller with CFS bandwidth control (cpu.cfs_quota_us over
# cpu.cfs_period_us). Unlike CPU contention (a rank pinned beside busy
# loops), the limit does not depend on what else runs on the machine: the
# kernel runs the group's processes for at most SHARE of every period.
#
#   scripts/cpu-limit.sh create SHARE      make a group limited to SHARE of one CPU
#                                          (0.1 .. 1, e.g. 0.15); prints its directory
#   scripts/cpu-limit.sh exec GROUP CMD... move this process into GROUP, then run CMD
#                                          (an MPMD launch runs one rank through it)
#   scripts/cpu-limit.sh remove GROUP      kill what is left in GROUP and remove it
#
# The period is 10 ms (the quota at least the kernel's 1 ms minimum), short
# beside the tests' iterations, so the limited process is slowed evenly rather
# than stopped for long stretches. The group is made below this process's own
# group of the controller, named shardroof-cpu-limit.<pid>.
#
# Exit status of create: 0, 2 for a bad SHARE, 77 with a line "SKIPPED: ..."
# on stderr where no writable cgroup v1 cpu controller with bandwidth control
# exists (not root, cgroup v2 only, a read-only /sys/fs/cgroup): the tests
# that use it report themselves as skipped then.
set -euo pipefail

skip() { echo "SKIPPED: $*" >&2; exit 77; }
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
period_us=10000

create() {
  local share="$1" mount own parent group quota
  [[ "$share" =~ ^(0?\.[0-9]+|1(\.0*)?)$ ]] || { echo "cpu-limit: SHARE must be between 0.1 and 1, got '$share'" >&2; exit 2; }
  quota=$(awk -v s="$share" -v p="$period_us" 'BEGIN { printf "%d", s * p }')
  ((quota >= 1000)) || { echo "cpu-limit: SHARE must be between 0.1 and 1, got '$share'" >&2; exit 2; }
  # The v1 hierarchy that holds the cpu controller ("cpu" or "cpu,cpuacct").
  mount=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,cpu,/ { print $2; exit }' /proc/mounts)
  [[ -n "$mount" ]] || skip "no cgroup v1 cpu controller is mounted (cgroup v2 only, or no cgroups)"
  own=$(awk -F: '("," $2 ",") ~ /,cpu,/ { print $3; exit }' /proc/self/cgroup)
  parent="${mount}${own%/}"
  [[ -e "$parent/cpu.cfs_quota_us" ]] || skip "the cpu controller at $parent has no CFS bandwidth control (cpu.cfs_quota_us)"
  group="$parent/shardroof-cpu-limit.$$"
  mkdir "$group" 2>/dev/null || skip "cannot create a group under $parent (not root, or read-only)"
  if ! { echo "$period_us" >"$group/cpu.cfs_period_us" && echo "$quota" >"$group/cpu.cfs_quota_us"; } 2>/dev/null; then
    rmdir "$group"
    skip "cannot set the CPU quota of $group"
  fi
  echo "$group"
}

remove() {
  local group="$1" pid _
  [[ -d "$group" && "$(basename "$group")" == shardroof-cpu-limit.* ]] || return 0
  # Normally empty by now; a process still inside (its launcher killed) ends here.
  for _ in 1 2 3 4 5; do
    [[ -s "$group/cgroup.procs" ]] || break
    while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$group/cgroup.procs"
    sleep 0.2
  done
  rmdir "$group"
}

case "${1:-}" in
  create) [[ $# == 2 ]] || usage; create "$2" ;;
  exec)
    [[ $# -ge 3 ]] || usage
    echo $$ >"$2/cgroup.procs"
    shift 2
    exec "$@"
    ;;
  remove) [[ $# == 2 ]] || usage; remove "$2" ;;
  *) usage ;;
esac
