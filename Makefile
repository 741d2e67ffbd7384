# Sleuth — developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
QUESTION ?= How does Sleuth check that a citation is supported by its source?

.PHONY: setup demo test lint format bench docs clean soak screenshots

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

## Answer a real question, with citations, from Sleuth's own docs/: no web search and no LLM
## (the first run installs Sleuth into .venv from the package index; the question itself is offline).
demo: setup
	$(BIN)/sleuth ask "$(QUESTION)" --search=none --include=docs/

test: setup
	$(BIN)/python -m pytest -q

## Long fault-matrix and concurrency runs (minutes); figures to bench/results/<date>-soak.md
soak: setup
	SLEUTH_SOAK_REPORT=bench/results/$$(date +%F)-soak.md $(BIN)/python -m pytest -q -m soak tests/faults

## Refresh docs/screenshots/ (the README's pictures) from the browser tests, in Debian's Chromium.
screenshots:
	$(MAKE) setup EXTRAS=$(if $(findstring browser,$(EXTRAS)),$(EXTRAS),$(EXTRAS)$(comma)browser)
	SLEUTH_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q \
	  tests/server/ui/test_browser_flow.py tests/server/ui/test_browser_pages.py

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

format: setup
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

## Report card on ../shared/bench (offline web); writes bench/results/<date>-<version>.md
bench: setup
	$(BIN)/python -m bench.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

## Regenerate the README's command reference from the CLI itself.
docs: setup
	$(BIN)/python -m sleuth.cli.reference README.md
