# Two entry points for a newcomer: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JS_PEER := tests/peers/js

.PHONY: run test lint typecheck contracts unit install clean bench

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# compat: a plain .pth path entry; the default import-hook finder costs ~35 ms at start-up.
	$(PY) -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

install: $(STAMP)

$(JS_PEER)/node_modules/.installed: $(JS_PEER)/package.json $(JS_PEER)/package-lock.json
	cd $(JS_PEER) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

run: $(STAMP)
	$(VENV)/bin/a2a-workbench

lint: $(STAMP)
	$(VENV)/bin/ruff check app tests bench
	$(VENV)/bin/ruff format --check app tests bench

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP) $(JS_PEER)/node_modules/.installed
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

test: lint contracts typecheck unit

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) bench/startup.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/large_body.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/stream.py
	$(PY) bench/spec.py

clean:
	rm -rf $(VENV) $(JS_PEER)/node_modules .pytest_cache .mypy_cache .ruff_cache
