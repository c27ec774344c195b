#!/usr/bin/env bash
# Runs a command (meridian under mpirun) on a spot or preemptible cloud instance and sends it SIGTERM when the
# cloud announces that it takes the instance back: every rank finishes its step, writes a checkpoint and
# meridian exits 75 before the instance goes. The same command with --restart latest on the next instance
# continues bitwise.
#
#   scripts/cloud/spot_run.sh [--provider auto|aws|gcp|azure] [--poll SECONDS] -- COMMAND...
#
# A boot script that starts or resumes a run:
#   run=(mpirun -n 8 build/release/apps/meridian run configs/cfd/lid_driven_cavity_3d.toml --output /data/cavity)
#   ls /data/cavity/checkpoints/checkpoint_*.h5 > /dev/null 2>&1 && run+=(--restart latest)
#   scripts/cloud/spot_run.sh -- "${run[@]}"
#
# The notices, from each provider's instance metadata service, asked every --poll seconds (default 5):
#   aws    IMDSv2, latest/meta-data/spot/instance-action: 404 until the notice, two minutes before the reclaim
#   gcp    computeMetadata/v1/instance/preempted: TRUE once preempted, about 30 s before the instance stops
#   azure  Scheduled Events: an event of type Preempt, at least 30 s before (the first request enables them
#          and may take two minutes to answer)
# auto (the default) asks gcp, aws and azure in turn, and runs the command unwatched, saying so, where none
# answers; a provider named outright that does not answer is an error. The notice's lead must cover the step
# in progress and writing a checkpoint (GCP's 30 s: keep steps and checkpoints that short); a notice that
# comes while the ranks are still starting is held back until they print their first line (20 s at most). Set
# run.checkpoint_every_minutes as well: an instance can also go without notice.
# SIGTERM or SIGINT to this script (the instance's own shutdown) is passed on to the command the same way.
# MERIDIAN_SPOT_METADATA replaces the metadata service's address (http://HOST:PORT): a proxy, or a test.
#
# Exit code: the command's (meridian: 0 finished, 75 stopped after writing a checkpoint, also where the
# launcher reports 0 for it); 2 for a bad command line or a named provider whose metadata service does not
# answer.
set -uo pipefail

say() { echo "[meridian-spot $(date '+%F %T')] $*" >&2; }
usage() { sed -n '7p' "$0" | sed 's/^#  *//' >&2; }

provider=auto poll=5
while [ $# -gt 0 ]; do
  case $1 in
    --provider) provider=${2:-}; shift 2 ;;
    --poll) poll=${2:-}; shift 2 ;;
    --) shift; break ;;
    -h | --help) usage; exit 0 ;;
    -*) say "unknown option $1"; usage; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { say "no command to run"; usage; exit 2; }
case $provider in
  auto | aws | gcp | azure) ;;
  *) say "--provider $provider: allowed values are auto, aws, gcp and azure"; exit 2 ;;
esac
[[ $poll =~ ^[0-9]*\.?[0-9]+$ ]] && [[ ! $poll =~ ^0*\.?0*$ ]] || { say "--poll $poll: a positive number of seconds"; exit 2; }
command -v curl > /dev/null || { say "curl is needed to ask the cloud's metadata service"; exit 2; }

service() {
  if [ -n "${MERIDIAN_SPOT_METADATA:-}" ]; then echo "$MERIDIAN_SPOT_METADATA"
  elif [ "$1" = gcp ]; then echo http://metadata.google.internal
  else echo http://169.254.169.254
  fi
}

aws_token=""
azure_enabled=0
# notice PROVIDER: 0 when the provider announces the reclaim, 1 when it does not (yet), 2 when its metadata
# service does not answer.
notice() {
  local body code
  case $1 in
    aws)
      if [ -z "$aws_token" ]; then
        aws_token=$(curl -sf -m 2 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 21600" "$(service aws)/latest/api/token") || return 2
      fi
      code=$(curl -s -o /dev/null -w '%{http_code}' -m 2 -H "X-aws-ec2-metadata-token: $aws_token" \
             "$(service aws)/latest/meta-data/spot/instance-action")
      case $code in
        200) return 0 ;;
        404) return 1 ;;
        401) aws_token=""; return 1 ;;   # the token expired: a new one at the next poll
        *) return 2 ;;
      esac ;;
    gcp)
      body=$(curl -sf -m 2 -H "Metadata-Flavor: Google" "$(service gcp)/computeMetadata/v1/instance/preempted") || return 2
      [ "$body" = TRUE ] ;;
    azure)
      # The first request enables Scheduled Events for the instance and may take up to two minutes to answer.
      local limit=2
      [ "$azure_enabled" -eq 1 ] || limit=130
      body=$(curl -sf --connect-timeout 2 -m "$limit" -H "Metadata: true" \
             "$(service azure)/metadata/scheduledevents?api-version=2020-07-01") || return 2
      azure_enabled=1
      [[ $body =~ \"EventType\"[[:space:]]*:[[:space:]]*\"Preempt\" ]] ;;
  esac
}

if [ "$provider" = auto ]; then
  provider=none
  for candidate in gcp aws azure; do
    notice "$candidate"
    [ $? -ne 2 ] && { provider=$candidate; break; }
  done
  [ "$provider" = none ] && say "no cloud metadata service answered (gcp, aws, azure): running without a preemption watch"
else
  notice "$provider"
  [ $? -eq 2 ] && { say "the $provider metadata service at $(service "$provider") does not answer"; exit 2; }
fi

# shellcheck source=../launcher.sh
source "$(dirname "$0")/../launcher.sh" || { say "no $(dirname "$0")/../launcher.sh: keep scripts/ whole"; exit 2; }
scratch=$(mktemp -d)
watcher=""
cleanup() {
  [ -n "$watcher" ] && kill "$watcher" 2> /dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
start_with_copy "$scratch" "$@"
on_signal() {
  say "SIG$1 received: passing it to the command (pid $launcher_pid)"
  forward_when_ready "$1"
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT

if [ "$provider" != none ]; then
  say "watching $provider for a preemption notice every $poll s"
  (
    trap - TERM INT
    while kill -0 "$launcher_pid" 2> /dev/null; do
      if notice "$provider"; then
        say "$provider announces the reclaim of this instance: SIGTERM to the command (pid $launcher_pid)"
        forward_when_ready TERM
        wait
        exit 0
      fi
      sleep "$poll"
    done
  ) &
  watcher=$!
fi

wait_for_launcher
if [ "$launcher_code" -ne 75 ] && stopped_after_checkpoint; then
  say "the command exited $launcher_code after meridian stopped with a checkpoint: exiting 75"
  exit 75
fi
exit "$launcher_code"
