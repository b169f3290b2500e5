# One command surface for people and CI alike (.ci/run calls `make test`).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
SERVE_STAMP := $(VENV)/.installed-serve-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install install-serve serve lint format typecheck test tiers coverage unit bench clean frontend-check frontend

install: $(STAMP)

# The packages come through uv, installed into the venv first: it fetches and unpacks them side by side, where
# pip takes them one at a time (a fresh install of '.[dev]': ~30 s against ~70-110 s, most of it network).
# --compile-bytecode, as pip does: written once at install, in parallel, not by every process that first imports.
# `.venv/bin/pip` stays there for anyone who adds a package by hand.
define venv_with
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '$(1)'
endef

$(STAMP): pyproject.toml
	$(call venv_with,.[dev])
	touch $(STAMP) $(SERVE_STAMP)

install-serve: $(SERVE_STAMP)

# What serving needs and nothing more (no test or lint tools); `make install` adds the dev extras.
$(SERVE_STAMP): pyproject.toml
	$(call venv_with,.)
	touch $(SERVE_STAMP)

serve: install-serve  ## start Assay (API + web UI) on an embedded SQLite database
	$(BIN)/assay serve --host $(HOST) --port $(PORT)

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest tests/unit -q

# The tiers run in one pytest session on several processes (pytest-xdist: each has its own temporary folders,
# SQLite files, PostgreSQL database and browser; servers take free ports). The end-to-end tests that kill or stop
# processes on purpose share one process (xdist group "processes"), one at a time, and go first: their minutes of
# waiting for kills, leases and restarts overlap the other workers' CPU work; the browser tests go last
# (tests/conftest.py says why and sets that order, which --no-loadscope-reorder keeps).
# Three workers on two cores: the API and end-to-end tests wait (agents, heartbeats, process starts, the
# browser), and a third worker fills those waits. One session rather than one per tier: the API tests' waits
# are filled too, and the run does not end each tier on its slowest worker.
# In CI, .ci/run runs lint, typecheck and frontend-check beside the installs, then `CHECKED=1 make test`.
test: install  ## the whole suite: lint, types, (CI) the web UI check, unit, API, end-to-end
	if [ -z "$$CHECKED" ]; then $(MAKE) lint typecheck; fi
	if [ -n "$$CI" ] && [ -z "$$CHECKED" ]; then $(MAKE) frontend-check; fi
	$(MAKE) tiers

TEST_WORKERS ?= 3

# The session prints its slowest tests: where the time of a CI run goes, run by run.
tiers: install  ## the test tiers alone: unit, API and end-to-end
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=40 \
		tests/unit tests/api tests/e2e

coverage: install  ## line and branch coverage of src/ by the unit and API tiers (coverage.py, via pytest-cov)
	$(BIN)/pytest -q -n 2 --cov=assay --cov-branch --cov-report=term:skip-covered tests/unit tests/api

frontend-check: install  ## web UI: regenerate the API client and the bundle, fail on drift; types, tests
	PYTHON=$(BIN)/python scripts/check-frontend.sh

frontend: install  ## web UI: regenerate the API client (after an API change) and rebuild the bundle, to commit
	$(BIN)/python scripts/export-openapi.py
	cd frontend && npm ci --no-audit --no-fund --loglevel=error && npm run gen:api && npm run typecheck && npm run build

bench: install
	$(BIN)/python bench/graders.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis .coverage .coverage.*
