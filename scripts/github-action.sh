#!/usr/bin/env bash
# The Assay GitHub Action's steps after install (action.yml runs it; tests run it against a fake GitHub API):
# run the eval into a results file, push it to a server when one is given, create or update the pull
# request's comment, and exit as the run did (0 gate held, 1 gate missed, 2 configuration, 3 a bug).
# Inputs arrive as ASSAY_ACTION_* variables; ASSAY is the command (default: assay). docs/ci.md.
set -uo pipefail

read -r -a assay <<< "${ASSAY:-assay}"
say() { printf '%s\n' "$*" >&2; }
output_line() { [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; return 0; }

results=${ASSAY_ACTION_OUTPUT:-}
if [ -z "$results" ]; then
  results="$(mktemp -d "${RUNNER_TEMP:-/tmp}/assay-XXXXXX")/results.jsonl"
fi
output_line results "$results"

if [ -n "${ASSAY_ACTION_CONFIG:-}" ]; then
  # The assay.yaml says the suites, target, assertions and gates; its own server is left to this script,
  # which pushes each suite's results file once and comments on it.
  if [ -n "${ASSAY_ACTION_MIN_PASS_RATE:-}" ]; then
    say "error: with the config input, the gate is the file's gates (gates.min_pass_rate), not min-pass-rate"
    exit 2
  fi
  args=(eval "$ASSAY_ACTION_CONFIG" --output "$results" --no-server)
else
  if [ -z "${ASSAY_ACTION_SUITE:-}" ] || [ -z "${ASSAY_ACTION_GRADER:-}" ]; then
    say "error: give the suite and grader inputs (or config)"
    exit 2
  fi
  args=(run "$ASSAY_ACTION_SUITE" --grader "$ASSAY_ACTION_GRADER" --output "$results")
  [ -n "${ASSAY_ACTION_GRADER_CONFIG:-}" ] && args+=(--config "$ASSAY_ACTION_GRADER_CONFIG")
  [ -n "${ASSAY_ACTION_TARGET_URL:-}" ] && args+=(--target-url "$ASSAY_ACTION_TARGET_URL")
  [ -n "${ASSAY_ACTION_PYTHON:-}" ] && args+=(--python "$ASSAY_ACTION_PYTHON")
  [ -n "${ASSAY_ACTION_COMMAND:-}" ] && args+=(--command "$ASSAY_ACTION_COMMAND")
  [ -n "${ASSAY_ACTION_RESPONSES:-}" ] && args+=(--responses "$ASSAY_ACTION_RESPONSES")
  [ -n "${ASSAY_ACTION_MIN_PASS_RATE:-}" ] && args+=(--min-pass-rate "$ASSAY_ACTION_MIN_PASS_RATE")
fi
if [ -n "${ASSAY_ACTION_ARGS:-}" ]; then
  read -r -a extra <<< "$ASSAY_ACTION_ARGS"
  args+=("${extra[@]}")
fi

"${assay[@]}" "${args[@]}"
ran=$?
output_line exit-code "$ran"
if [ "$ran" -gt 1 ] || [ -z "${ASSAY_ACTION_SERVER:-}" ]; then
  exit "$ran"  # a configuration error or a bug has no run to push; without a server there is nothing to post
fi

# One results file; an eval of several suites writes one per suite beside it (results.<suite>.jsonl).
files=("$results")
if [ ! -f "$results" ]; then
  shopt -s nullglob
  files=("${results%.jsonl}".*.jsonl)
  shopt -u nullglob
fi
if [ "${#files[@]}" -eq 0 ]; then
  say "error: the run wrote no results file at $results"
  exit 3
fi

evaluations=()
for file in "${files[@]}"; do
  evaluation=$("${assay[@]}" push "$file" --server "$ASSAY_ACTION_SERVER") || exit $?
  evaluations+=("$evaluation")
  output_line evaluation-id "${evaluations[*]}"
  say "stored as evaluation $evaluation on ${ASSAY_ACTION_PUBLIC_URL:-$ASSAY_ACTION_SERVER}"
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target)
      if [ "${ASSAY_ACTION_COMMENT:-true}" = true ]; then
        comment=(github comment --server "$ASSAY_ACTION_SERVER" --evaluation "$evaluation")
        title=${ASSAY_ACTION_TITLE:-}
        if [ "${#files[@]}" -gt 1 ]; then  # a comment per suite, each by its own title
          base=${results##*/}
          name=${file##*/}
          name=${name%.jsonl}
          name=${name#"${base%.jsonl}".}
          title=${title:+$title ($name)}
          title=${title:-$name}
        fi
        [ -n "$title" ] && comment+=(--title "$title")
        [ -n "${ASSAY_ACTION_PUBLIC_URL:-}" ] && comment+=(--public-url "$ASSAY_ACTION_PUBLIC_URL")
        [ -n "${ASSAY_ACTION_BASE_BRANCH:-}" ] && comment+=(--base-branch "$ASSAY_ACTION_BASE_BRANCH")
        [ -n "${ASSAY_ACTION_MIN_PASS_RATE:-}" ] && comment+=(--min-pass-rate "$ASSAY_ACTION_MIN_PASS_RATE")
        "${assay[@]}" "${comment[@]}" || exit $?
      fi
      ;;
  esac
done
exit "$ran"
