# toolwire developer entry points. `make help` lists them.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SERVE_STAMP := $(VENV)/.installed-serve
SERVE_EXTRAS := mcp,cli,web,browser
SRC := src tests benchmarks

.DEFAULT_GOAL := help
.PHONY: help run test lint typecheck unit services sysdeps conformance bench clean

help: ## List the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 12

define venv
	@test -x $(PY) || { echo "==> creating the virtualenv $(VENV)"; python3 -m venv $(VENV); }
	@echo "==> upgrading pip"
	@$(PY) -m pip install --progress-bar on -U pip
endef

# One venv, two installs: serving needs .[$(SERVE_EXTRAS)]; make test adds the test tooling
# (.[test]: every extra, pytest, mypy, ruff, ...), which includes them, so it marks both done.
$(SERVE_STAMP): pyproject.toml
	$(venv)
	@echo "==> installing toolwire with what serving needs: .[$(SERVE_EXTRAS)]"
	@$(PY) -m pip install --progress-bar on -e '.[$(SERVE_EXTRAS)]'
	@touch $(SERVE_STAMP)
	@echo "==> installed; next time this step is skipped until pyproject.toml changes"

$(STAMP): pyproject.toml
	$(venv)
	@echo "==> installing toolwire with every extra and the test tools (a few minutes the first time)"
	@$(PY) -m pip install --progress-bar on -e '.[test]'
	@touch $(STAMP) $(SERVE_STAMP)
	@echo "==> installed; next time this step is skipped until pyproject.toml changes"

run: $(SERVE_STAMP) ## Serve the built-in tools over MCP, sandboxed to ./workspace (toolwire serve)
	@mkdir -p workspace
	cd workspace && $(abspath $(VENV))/bin/toolwire serve

lint: $(STAMP) ## ruff check + ruff format --check
	$(VENV)/bin/ruff check $(SRC)
	$(VENV)/bin/ruff format --check $(SRC)

typecheck: $(STAMP) ## mypy --strict over src/
	$(VENV)/bin/mypy

services: ## Start PostgreSQL and Redis if they are down
	@bash scripts/services.sh

sysdeps: ## Install the Debian packages the tests use for real (bubblewrap, ...) when missing
	@bash scripts/system-deps.sh

conformance: ## Install Node 22 and the MCP conformance suite (pinned, from npm) when missing
	@bash scripts/conformance-setup.sh >/dev/null

unit: $(STAMP) services sysdeps conformance ## pytest with branch coverage
	$(VENV)/bin/pytest -q --cov=toolwire --cov-branch --cov-report=term:skip-covered

test: lint typecheck unit ## Everything CI runs: venv, install, lint, types, every test

bench: $(STAMP) services ## Benchmarks (never part of make test)
	$(PY) benchmarks/run_all.py

clean: ## Remove the venv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage
