# Two entry points for a newcomer: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JS_PEER := tests/peers/js
# Redocly CLI, which lints the OpenAPI documents the app saves (tests/lint/test_redocly.py).
JS_LINT := tests/lint
# The MCP Inspector's CLI, a real MCP client of `a2a-workbench mcp` (tests/mcp/test_inspector.py).
MCP_INSPECTOR := tests/mcp/inspector
# The real iac-code A2A server the tests run (tests/peers/iac_fixtures.py), in a venv of its own:
# it needs an older a2a-sdk than the app. Built by tests/peers/iac_venv.py, pinned by its lock.
IAC_VENV := .venv-iac
IAC_REQS := tests/peers/iac/requirements.txt tests/peers/iac/requirements.lock
# The PyInstaller bundle is built in a venv of its own so that .venv stays as `make test` uses it.
BUNDLE_VENV  := .venv-bundle
BUNDLE_PY    := $(BUNDLE_VENV)/bin/python
BUNDLE_STAMP := $(BUNDLE_VENV)/.installed
BUNDLE_EXE   := dist/a2a-workbench/a2a-workbench

.PHONY: run test lint typecheck contracts unit install clean bench bundle

# Not --quiet: a first install takes about a minute and pip's own lines show its progress.
$(STAMP): pyproject.toml constraints.txt
	@echo "==> [1/3] Python virtualenv $(VENV)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "==> [2/3] Upgrading pip"
	$(PY) -m pip install --upgrade pip
	@echo "==> [3/3] Installing the app and its test tools into $(VENV) (about a minute the first time)"
	# setuptools' default (lenient) editable mode: its import finder costs ~0.3 ms at start-up,
	# the modules it imports the app imports anyway (docs/BENCHMARKS.md, "Editable install").
	$(PY) -m pip install -c constraints.txt -e '.[test,bench]'
	touch $(STAMP)
	@echo "==> $(VENV) is ready"

install: $(STAMP)

$(JS_PEER)/node_modules/.installed: $(JS_PEER)/package.json $(JS_PEER)/package-lock.json
	@echo "==> Installing the JavaScript test peer ($(JS_PEER))"
	cd $(JS_PEER) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(JS_LINT)/node_modules/.installed: $(JS_LINT)/package.json $(JS_LINT)/package-lock.json
	@echo "==> Installing Redocly CLI for the OpenAPI lint test ($(JS_LINT))"
	cd $(JS_LINT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(MCP_INSPECTOR)/node_modules/.installed: $(MCP_INSPECTOR)/package.json $(MCP_INSPECTOR)/package-lock.json
	@echo "==> Installing the MCP Inspector for the MCP server tests ($(MCP_INSPECTOR))"
	cd $(MCP_INSPECTOR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Not --quiet either: a first build takes half a minute or more, shown by pip's own lines.
$(IAC_VENV)/.installed: $(IAC_REQS) tests/peers/iac_venv.py | $(STAMP)
	@echo "==> Building the iac-code test peer's venv $(IAC_VENV)"
	$(PY) -m tests.peers.iac_venv
	touch $@

# The app checks for Qt's system libraries itself before it opens a window (app/preflight.py).
run: $(STAMP)
	@echo "==> Starting A2A Workbench with the bundled demo agent"
	$(VENV)/bin/a2a-workbench

lint: $(STAMP)
	$(VENV)/bin/ruff check app tests bench
	$(VENV)/bin/ruff format --check app tests bench

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The exchange seam (docs/ARCHITECTURE.md §1): every line of it is run by some test.
SEAM := app/protocol/events.py,app/protocol/exchange.py,app/protocol/wire/sse.py,app/protocol/wire/jsonrpc_envelope.py

# The suite under coverage ([tool.coverage] in pyproject.toml): the CLI and demo-agent
# processes the tests start count too; the total must stay above fail_under, the seam at 100 %.
# Two pytest-xdist workers, each taking whole files (module fixtures stay in one process): the
# suite mostly waits on its peers, so two halve it (17.5 -> 9.7 min on the 2-core machine).
TEST_WORKERS ?= 2
unit: $(STAMP) $(JS_PEER)/node_modules/.installed $(JS_LINT)/node_modules/.installed \
		$(MCP_INSPECTOR)/node_modules/.installed $(IAC_VENV)/.installed
	$(PY) -m coverage erase
	QT_QPA_PLATFORM=offscreen $(PY) -m coverage run -m pytest -n $(TEST_WORKERS) --dist loadfile
	$(PY) -m coverage combine --quiet
	$(PY) -m coverage report
	$(PY) -m coverage report --include=$(SEAM) --fail-under=100

test: lint contracts typecheck unit

$(BUNDLE_STAMP): pyproject.toml constraints.txt
	@echo "==> [1/2] Python virtualenv $(BUNDLE_VENV) for PyInstaller"
	test -x $(BUNDLE_PY) || $(PYTHON) -m venv $(BUNDLE_VENV)
	$(BUNDLE_PY) -m pip install --upgrade pip
	@echo "==> [2/2] Installing the app's dependencies and PyInstaller into $(BUNDLE_VENV)"
	$(BUNDLE_PY) -m pip install -c constraints.txt '.[bundle]'
	touch $@

# One-folder desktop bundle in dist/a2a-workbench/, smoke-tested offscreen (packaging/README.md).
bundle: $(BUNDLE_STAMP)
	@echo "==> Building $(BUNDLE_EXE) with PyInstaller"
	$(BUNDLE_VENV)/bin/pyinstaller --noconfirm --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/a2a-workbench.spec
	@echo "==> Smoke-testing the bundle (offscreen)"
	QT_QPA_PLATFORM=offscreen $(BUNDLE_PY) packaging/smoke.py $(BUNDLE_EXE)

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) bench/startup.py --scale
	QT_QPA_PLATFORM=offscreen $(PY) bench/large_body.py --scale
	QT_QPA_PLATFORM=offscreen $(PY) bench/editor.py --runs 3
	QT_QPA_PLATFORM=offscreen $(PY) bench/stream.py --runs 5 --scale --soak
	$(PY) bench/spec.py

clean:
	rm -rf $(VENV) $(BUNDLE_VENV) $(IAC_VENV) $(JS_PEER)/node_modules $(JS_LINT)/node_modules \
		$(MCP_INSPECTOR)/node_modules \
		.pytest_cache .mypy_cache .ruff_cache build dist
