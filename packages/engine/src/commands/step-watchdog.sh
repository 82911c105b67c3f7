#!/usr/bin/env bash
# The step watchdog of one worker host.
#
# Kills the host's step jails when the host stops proving that it is alive, so
# that no step outlives the host's lease, by which other hosts judge that the host
# is gone and recover its runs. A host that is frozen (SIGSTOP, a stalled VM) or cut
# off from Redis cannot stop its own steps; this process, which is not frozen with
# it, can. Each jail dies with its outermost process (bwrap --die-with-parent and
# its PID namespace), so killing that one process ends every process of the step.
#
# Reads one message per line on stdin, from the host:
#   alive MS          the host renewed its lease: its steps may run MS more milliseconds
#   add PID START     a step jail: its outermost process, and that process's start
#                     time (field 22 of /proc/PID/stat), so that a reused pid is never hit
#   del PID           that jail has ended
# When the deadline passes without a new "alive", every registered jail gets
# SIGKILL (as does any added later, until the next "alive"). On end of input (the
# host has died) it does the same and exits.
set -u

declare -A steps=()
deadline=0 # microseconds of the wall clock; nothing may run before the first "alive"

start_time_of() {
  local stat
  read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
  stat=${stat##*) }
  local -a fields
  read -r -a fields <<<"$stat"
  printf '%s' "${fields[19]}"
}

kill_all() {
  local pid
  for pid in "${!steps[@]}"; do
    if [[ "$(start_time_of "$pid")" == "${steps[$pid]}" ]]; then kill -KILL "$pid" 2>/dev/null; fi
    unset "steps[$pid]"
  done
}

while :; do
  timeout=()
  if ((${#steps[@]} > 0)); then
    left=$((deadline - ${EPOCHREALTIME/./}))
    if ((left <= 0)); then
      kill_all
      continue
    fi
    printf -v seconds '%d.%06d' $((left / 1000000)) $((left % 1000000))
    timeout=(-t "$seconds")
  fi
  if read -r "${timeout[@]}" verb first second; then
    case $verb in
      alive) deadline=$((${EPOCHREALTIME/./} + first * 1000)) ;;
      add) steps[$first]=$second ;;
      del) unset "steps[$first]" ;;
    esac
  elif (($? <= 128)); then
    kill_all
    exit 0
  fi
done
