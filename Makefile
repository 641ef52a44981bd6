# Empire Hall. Needs only python3 and make: uv and the environment bootstrap themselves.
SHELL := /bin/bash
PY ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
RUN := $(VENV)/bin/python
export UV_PYTHON_DOWNLOADS := never
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help install run test test-unit test-property test-integration test-e2e lint type fmt \
        schema schema-check bench reliability slow clean test-browser

help:
	@echo "make run    start everything (private Valkey unless REDIS_URL is set) and print the URL"
	@echo "make test   install everything and run the whole suite (lint, types, all tiers)"
	@echo "make test-unit | test-property | test-integration | test-e2e | lint | type | schema"
	@echo "make slow   long runs (bot-vs-random, big fuzzing) excluded from make test"

$(UV):
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q uv

$(VENV)/.installed: pyproject.toml uv.lock | $(UV)
	$(UV) sync --all-groups --frozen --python $(PY)
	@touch $@

uv.lock: pyproject.toml | $(UV)
	$(UV) lock --python $(PY)

install: $(VENV)/.installed

run: install
	$(RUN) -m services.supervisor

lint: install
	$(VENV)/bin/ruff check shared services clients bench tests deploy

fmt: install
	$(VENV)/bin/ruff format shared services clients bench tests deploy
	$(VENV)/bin/ruff check --fix shared services clients bench tests deploy

type: install
	$(VENV)/bin/mypy shared services clients bench deploy/docker/healthcheck.py

schema: install
	$(RUN) -m shared.protocol.schema_gen

schema-check: install
	$(RUN) -m shared.protocol.schema_gen --check

test-unit: install
	$(VENV)/bin/pytest -q -m "unit and not slow" -p no:cacheprovider

test-property: install
	$(VENV)/bin/pytest -q -m "property and not slow" -p no:cacheprovider

test-integration: install
	$(VENV)/bin/pytest -q -m "integration and not slow" -p no:cacheprovider

test-e2e: install
	$(VENV)/bin/pytest -q -m "e2e and not slow" -p no:cacheprovider

test: install lint type schema-check
	$(VENV)/bin/pytest -q -m "not slow" -p no:cacheprovider --durations=15

slow: install
	$(VENV)/bin/pytest -q -m slow -p no:cacheprovider -s

# full-size reliability figures (make test runs the same tier at a small size)
reliability: install
	EMPIRE_RELIABILITY_SCALE=full $(VENV)/bin/pytest -q -m reliability -p no:cacheprovider -s

test-browser: install
	$(VENV)/bin/pytest -q -m browser -p no:cacheprovider

bench: install
	$(RUN) -m bench

clean:
	rm -rf $(VENV) $(TOOLS) .run .pytest_cache .mypy_cache .ruff_cache
