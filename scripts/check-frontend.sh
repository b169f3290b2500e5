#!/usr/bin/env bash
# Rebuild the web UI from its committed sources and fail on any drift (run by `make frontend-check`, and
# so by CI): the OpenAPI document and the TypeScript client generated from it, types, component tests,
# and the bundle committed under src/assay/web/dist that `pip install -e .` serves without Node.
# Parts, all by default: `api` (the OpenAPI document and the client: needs the Python packages) and `bundle`
# (types, component tests, the bundle: Node alone), so that CI runs `bundle` while pip still installs.
# Usage: scripts/check-frontend.sh [api] [bundle]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}

fail() { echo "check-frontend: $*" >&2; exit 1; }
# Outside a git checkout (a source archive), generated files are compared with a copy taken first.
SNAPSHOT=""
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  SNAPSHOT=$(mktemp -d)
  trap 'rm -rf "$SNAPSHOT"' EXIT
  mkdir -p "$SNAPSHOT/frontend/src/api" "$SNAPSHOT/src/assay/web"
  cp frontend/openapi.json "$SNAPSHOT/frontend/"
  cp frontend/src/api/schema.d.ts "$SNAPSHOT/frontend/src/api/"
  cp -R src/assay/web/dist "$SNAPSHOT/src/assay/web/"
fi

# Fail with a hint when any of the paths differ from what is committed (or untracked).
drift() {
  local hint=$1
  shift
  local changed
  if [ -n "$SNAPSHOT" ]; then
    changed=$(for path in "$@"; do diff -r "$SNAPSHOT/$path" "$path" >/dev/null 2>&1 || echo "differs: $path"; done)
  else
    changed=$(git status --porcelain -- "$@")
  fi
  if [ -n "$changed" ]; then
    echo "$changed" >&2
    [ -n "$SNAPSHOT" ] || git --no-pager diff --stat -- "$@" >&2 || true
    fail "$hint"
  fi
}

command -v node >/dev/null && command -v npm >/dev/null || fail "node and npm are needed (Node >= 20.19)"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
  || fail "Node $(node --version) is too old: Vite needs >= 20.19"

# CI installs the packages beforehand, beside its other downloads, and says so.
if [ "${FRONTEND_PACKAGES_INSTALLED:-}" != 1 ]; then
  echo "== npm ci"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi

check_api() {
  echo "== OpenAPI document and TypeScript client"
  env -u ASSAY_API_KEY "$PYTHON" scripts/export-openapi.py
  (cd frontend && npm run --silent gen:api)
  drift "the API changed: regenerate (scripts/export-openapi.py; cd frontend && npm run gen:api) and commit" \
    frontend/openapi.json frontend/src/api/schema.d.ts
}

check_bundle() {
  echo "== typecheck"
  (cd frontend && npm run --silent typecheck)

  echo "== component tests"
  (cd frontend && npm test --silent)

  echo "== build"
  (cd frontend && npm run --silent build)
  drift "the bundle differs from the committed src/assay/web/dist: rebuild (cd frontend && npm run build) and commit it" \
    src/assay/web/dist
}

parts=("$@")
[ $# -gt 0 ] || parts=(api bundle)
for part in "${parts[@]}"; do
  case $part in
    api | bundle) "check_$part" ;;
    *) fail "no part '$part': api or bundle" ;;
  esac
done
echo "check-frontend: OK"
