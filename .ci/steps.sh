#!/usr/bin/env bash
# The step runner of .ci/test-all.sh: source it, declare the steps with `step`, then
# call `run_steps`.
#
#   step ID CORES NEEDS TITLE -- COMMAND...
#     ID     a short name: the log is $CI_LOGS/ID.log, NEEDS and the command line
#            name steps by it
#     CORES  how many cores the step keeps busy, from its CPU time over its wall time:
#            `all` for a build or a test run that uses every core, 1 for one emulator,
#            interpreter or debugger at a time, or for a step that mostly waits
#            (on servers, Wine, or cargo's lock on target/ while another step builds)
#     NEEDS  the IDs of the steps that must have passed first (comma-separated), or -
#
# run_steps starts the steps in the order declared, each as soon as the steps it needs
# have passed and its cores are free: at most JOBS cores' worth at a time (default:
# the machine's cores plus two, so that one-core steps run beside a build and two
# builds can run together; most steps wait on an emulator, the network or a test
# child part of the time, and the spare places keep the cores busy then). A step
# whose prerequisite failed is reported as failed without running; any other failure
# leaves the rest running. Each step's output goes to its log and is printed in one
# piece when it ends, between "=== TITLE (at Ns)" and "=== ok: TITLE (Ns, CPU Ms)" or
# "=== FAILED: ...". The last lines give every step's times, the failed steps and the
# count; run_steps returns non-zero if any step failed.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CI_LOGS=${CI_LOGS:-target/ci-logs}
ci_start=$SECONDS
ci_ids=()
declare -A ci_title=() ci_cores=() ci_needs=() ci_cmd=() ci_state=() ci_pid=() ci_began=() \
  ci_wall=() ci_cpu=()

step() {
  local id=$1 cores=$2 needs=$3 title=$4
  [ "$5" = -- ] || { echo "step $id: no -- before the command" >&2; exit 2; }
  shift 5
  [ "$cores" = all ] && cores=$(nproc)
  ci_ids+=("$id")
  ci_title[$id]=$title
  ci_cores[$id]=$cores
  ci_needs[$id]=${needs//,/ }
  [ "$needs" = - ] && ci_needs[$id]=
  ci_cmd[$id]=$(printf '%q ' "$@")
  ci_state[$id]=waiting
}

# only_steps ID...: keeps these steps and the steps they need, drops the others.
only_steps() {
  local -A keep=()
  local id n todo=("$@")
  while [ ${#todo[@]} -gt 0 ]; do
    id=${todo[0]}
    todo=("${todo[@]:1}")
    [ -n "${ci_title[$id]+x}" ] || { echo "no step $id (steps: ${ci_ids[*]})" >&2; exit 2; }
    [ -z "${keep[$id]+x}" ] || continue
    keep[$id]=1
    for n in ${ci_needs[$id]}; do todo+=("$n"); done
  done
  local kept=()
  for id in "${ci_ids[@]}"; do [ -z "${keep[$id]+x}" ] || kept+=("$id"); done
  ci_ids=("${kept[@]}")
}

# The step ID in the background: its output into its log, its CPU time (every
# process it waited for: cpu_so_far) into ID.cpu.
_start_step() {
  local id=$1
  ci_began[$id]=$SECONDS
  ci_state[$id]=running
  printf '=== started: %s (at %ds)\n' "${ci_title[$id]}" $((SECONDS - ci_start))
  (
    eval "( ${ci_cmd[$id]}); s=\$?; cpu_so_far >\"\$CI_LOGS/$id.cpu\"; exit \$s"
  ) </dev/null >"$CI_LOGS/$id.log" 2>&1 &
  ci_pid[$id]=$!
}

# _end_step ID STATUS: prints the step's log and its result.
_end_step() {
  local id=$1 status=$2 cpu=0
  ci_wall[$id]=$((SECONDS - ${ci_began[$id]}))
  [ ! -s "$CI_LOGS/$id.cpu" ] || cpu=$(cat "$CI_LOGS/$id.cpu")
  ci_cpu[$id]=$cpu
  printf '\n=== %s (at %ds)\n' "${ci_title[$id]}" $((${ci_began[$id]} - ci_start))
  cat "$CI_LOGS/$id.log"
  if [ "$status" = 0 ]; then
    ci_state[$id]=passed
    printf '=== ok: %s (%ds, CPU %ss)\n' "${ci_title[$id]}" "${ci_wall[$id]}" "$cpu"
  else
    ci_state[$id]=failed
    printf '=== FAILED: %s (%ds, CPU %ss)\n' "${ci_title[$id]}" "${ci_wall[$id]}" "$cpu"
  fi
}

run_steps() {
  local jobs=${JOBS:-$(($(nproc) + 2))} used=0 id n blocked ready pid status left
  mkdir -p "$CI_LOGS"
  rm -f "$CI_LOGS"/*.log "$CI_LOGS"/*.cpu
  while :; do
    left=0
    for id in "${ci_ids[@]}"; do
      [ "${ci_state[$id]}" = waiting ] || continue
      left=1
      ready=1 blocked=
      for n in ${ci_needs[$id]}; do
        case ${ci_state[$n]:-passed} in
          passed) ;;
          failed) blocked=$n ;;
          *) ready= ;;
        esac
      done
      if [ -n "$blocked" ]; then
        ci_state[$id]=failed ci_wall[$id]=0 ci_cpu[$id]=0
        printf '\n=== FAILED: %s (not run: it needs "%s", which failed)\n' "${ci_title[$id]}" \
          "${ci_title[$blocked]}"
        continue
      fi
      # A step wider than JOBS runs alone.
      if [ -n "$ready" ] && { [ $((used + ci_cores[$id])) -le "$jobs" ] || [ "$used" = 0 ]; }; then
        _start_step "$id"
        used=$((used + ci_cores[$id]))
      fi
    done
    [ "$used" -gt 0 ] || { [ "$left" = 0 ] && break; }
    if [ "$used" = 0 ]; then
      # Waiting steps, none runnable and none running: a cycle in NEEDS.
      for id in "${ci_ids[@]}"; do
        [ "${ci_state[$id]}" = waiting ] || continue
        ci_state[$id]=failed ci_wall[$id]=0 ci_cpu[$id]=0
        printf '\n=== FAILED: %s (not run: its needs cannot be met)\n' "${ci_title[$id]}"
      done
      continue
    fi
    status=0
    wait -n -p pid || status=$?
    for id in "${ci_ids[@]}"; do
      if [ "${ci_state[$id]}" = running ] && [ "${ci_pid[$id]}" = "$pid" ]; then
        _end_step "$id" "$status"
        used=$((used - ci_cores[$id]))
      fi
    done
  done

  local passed=0 failed=0
  printf '\n=== %d s in all\n' $((SECONDS - ci_start))
  printf '%-52s %7s %6s %6s  %s\n' step 'at (s)' 'wall' 'CPU' result
  for id in "${ci_ids[@]}"; do
    printf '%-52s %7s %6s %6s  %s\n' "${ci_title[$id]}" \
      "$([ -n "${ci_began[$id]:-}" ] && echo $((${ci_began[$id]} - ci_start)) || echo -)" \
      "${ci_wall[$id]}" "${ci_cpu[$id]}" "${ci_state[$id]}"
    if [ "${ci_state[$id]}" = passed ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
  for id in "${ci_ids[@]}"; do
    [ "${ci_state[$id]}" = passed ] || printf 'failed step: %s\n' "${ci_title[$id]}"
  done
  echo "steps: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
