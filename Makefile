# The two commands of the README: `make run` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
## LAN=1 serves the phones on the local network (every interface) and prints the address and its QR code
## (referee/lan.py); without it only this machine can open the app.
LAN    ?=
HOST   ?= $(if $(filter 1,$(LAN)),0.0.0.0,127.0.0.1)
PORT   ?= 5000
WORKERS ?= 2
## Threads per worker: each open live stream (phones following the table) takes one, at most LIVE_STREAMS
## (default 340, referee/config.py) of them, so that 60 are always left for pages and round entry.
THREADS ?= 400
APT_PACKAGES := chromium postgresql poppler-utils libzbar0 zbar-tools fonts-dejavu-core libpango-1.0-0 libpangoft2-1.0-0 \
	caddy openssl

.PHONY: npm run test lint check translations messages deps-system browser-engine static-compressed axe api-docs bench soak clean \
	registries-run registries-test

## The engine in the browser (Pyodide from the npm registry, pinned) and the engine bundle built from
## the source; both under static/pyodide/, which git ignores.
PYODIDE_VERSION := 314.0.7
PYODIDE_DIR := static/pyodide
PYODIDE_FILES := pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e '.[test]'
	touch $@

translations: $(VENV)/.installed
	$(VENV)/bin/pybabel compile -d referee/translations >/dev/null

## make messages: extract every user-facing text (pages, templates, engine message templates) and
## merge it into the Swedish and German catalogs (then translate the new entries and `make translations`).
messages: $(VENV)/.installed
	$(VENV)/bin/pybabel -q extract -F babel.cfg -k _l -k N_ -k RuleViolation:2 -k BadInput:2 \
		--no-location --sort-output -o referee/translations/messages.pot .
	$(VENV)/bin/pybabel -q update -i referee/translations/messages.pot -d referee/translations --no-fuzzy-matching

## Debian's npm, when missing: the browser-side packages (Pyodide, axe-core) come from the npm registry.
npm:
	@command -v npm >/dev/null || { echo "installing npm (Debian)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
		else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; fi; }

$(PYODIDE_DIR)/.version-$(PYODIDE_VERSION): | npm
	rm -rf $(PYODIDE_DIR).tmp && mkdir -p $(PYODIDE_DIR).tmp
	cd $(PYODIDE_DIR).tmp && npm pack --silent pyodide@$(PYODIDE_VERSION) >/dev/null && tar xzf pyodide-$(PYODIDE_VERSION).tgz
	mkdir -p $(PYODIDE_DIR) && for f in $(PYODIDE_FILES); do cp $(PYODIDE_DIR).tmp/package/$$f $(PYODIDE_DIR)/; done
	rm -rf $(PYODIDE_DIR).tmp && rm -f $(PYODIDE_DIR)/.version-* && touch $@

$(PYODIDE_DIR)/referee_engine.zip: $(VENV)/.installed referee/engine/*.py referee/offline/*.py referee/offline/round_parse/*.py \
		$(wildcard referee/translations/*/LC_MESSAGES/messages.po)
	$(MAKE) --no-print-directory translations
	$(PY) -m referee.offline.bundle $@ >/dev/null

## Pyodide's standard library without the modules the engine never imports, its entries stored (brotli on the
## wire does better than deflate file by file): referee/offline/stdlib_trim.py.
$(PYODIDE_DIR)/.stdlib-trimmed: $(PYODIDE_DIR)/.version-$(PYODIDE_VERSION) referee/offline/stdlib_trim.py | $(VENV)/.installed
	$(PY) -m referee.offline.stdlib_trim $(PYODIDE_DIR)/python_stdlib.zip
	touch $@

browser-engine: $(PYODIDE_DIR)/.version-$(PYODIDE_VERSION) $(PYODIDE_DIR)/.stdlib-trimmed $(PYODIDE_DIR)/referee_engine.zip

## Brotli and gzip variants of every static file, Pyodide's included (referee/static_compress.py; only the files
## changed since: Pyodide's WebAssembly takes about a minute once, at brotli's best).
static-compressed: $(VENV)/.installed browser-engine api-docs
	$(PY) -m referee.static_compress static

## axe-core for the browser tests' accessibility checks (npm registry, pinned; git ignores it).
AXE_VERSION := 4.14.1
AXE_DIR := node_modules.axe
$(AXE_DIR)/.version-$(AXE_VERSION): | npm
	rm -rf $(AXE_DIR) && mkdir -p $(AXE_DIR)
	cd $(AXE_DIR) && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null && tar xzf axe-core-$(AXE_VERSION).tgz package/axe.min.js package/LICENSE
	touch $@

axe: $(AXE_DIR)/.version-$(AXE_VERSION)

## The API reference viewer of /api/docs: Swagger UI (npm registry, pinned; git ignores it).
SWAGGER_UI_VERSION := 5.35.0
API_DOCS_DIR := static/api-docs
API_DOCS_FILES := swagger-ui-bundle.js swagger-ui.css LICENSE NOTICE
$(API_DOCS_DIR)/.version-$(SWAGGER_UI_VERSION): | npm
	rm -rf $(API_DOCS_DIR).tmp && mkdir -p $(API_DOCS_DIR).tmp
	cd $(API_DOCS_DIR).tmp && npm pack --silent swagger-ui-dist@$(SWAGGER_UI_VERSION) >/dev/null \
		&& tar xzf swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz
	rm -rf $(API_DOCS_DIR) && mkdir -p $(API_DOCS_DIR)
	for f in $(API_DOCS_FILES); do cp $(API_DOCS_DIR).tmp/package/$$f $(API_DOCS_DIR)/; done
	rm -rf $(API_DOCS_DIR).tmp && touch $@

api-docs: $(API_DOCS_DIR)/.version-$(SWAGGER_UI_VERSION)

## The registries first: when a step still to do fetches from PyPI or the npm registry (`make -q` on its stamp)
## and that registry does not answer, stop at once with one line (referee/registries.py), not in the middle of
## an install; with everything in place nothing is checked and `make run` starts offline. (UP_TO_DATE names
## $(MAKE) through a variable, so that `make -n` does not run the check.)
PYPI_RUN  := $(VENV)/.installed
NPM_RUN   := $(PYODIDE_DIR)/.version-$(PYODIDE_VERSION) $(API_DOCS_DIR)/.version-$(SWAGGER_UI_VERSION)
PYPI_TEST := $(PYPI_RUN) $(VENV)/.installed-test
NPM_TEST  := $(NPM_RUN) $(AXE_DIR)/.version-$(AXE_VERSION)
UP_TO_DATE = $(MAKE) -q -o npm --no-print-directory
registries = need=""; \
	for t in $(1); do $(UP_TO_DATE) $$t >/dev/null 2>&1 || { need=pypi; break; }; done; \
	for t in $(2); do $(UP_TO_DATE) $$t >/dev/null 2>&1 || { need="$$need npm"; break; }; done; \
	[ -z "$$need" ] || python3 -P referee/registries.py --venv $(VENV) $$need

registries-run:
	@$(call registries,$(PYPI_RUN),$(NPM_RUN))

registries-test:
	@$(call registries,$(PYPI_TEST),$(NPM_TEST))

## make run: install, create or migrate the database, serve with gunicorn (LAN=1: print the phones' address).
run: registries-run $(VENV)/.installed translations browser-engine api-docs static-compressed
	$(VENV)/bin/flask --app referee db upgrade
	$(VENV)/bin/flask --app referee round-facts
	$(if $(filter 1,$(LAN)),@$(PY) -m referee.lan --host $(HOST) --port $(PORT))
	LIVE_STREAMS=$${LIVE_STREAMS:-$$(( $(THREADS) - 60 ))} exec $(VENV)/bin/gunicorn --workers $(WORKERS) --worker-class gthread --threads $(THREADS) --bind $(HOST):$(PORT) --access-logfile - \
		--graceful-timeout 5 'referee:create_app()'

## Debian packages the tests use (Chromium, PostgreSQL, poppler, Caddy and openssl for tests/deploy), when allowed.
deps-system:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing:$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "not allowed to install:$$missing (the tests needing them will skip)"; fi

## make test: install what the tests need and run them all (SQLite and PostgreSQL), in PYTEST_WORKERS
## pytest-xdist workers (default 2, the CI machine's cores; a module's tests share a worker, the fault tests
## run one after another on one: tests/conftest.py). PYTEST_WORKERS=0 runs them in one process;
## PYTEST_ARGS are added last; it prints its 30 slowest tests (`PYTEST_ARGS="tests/engine -k kul" make test`).
PYTEST_WORKERS ?= 2
test: registries-test $(VENV)/.installed-test translations deps-system browser-engine axe api-docs static-compressed
	$(VENV)/bin/ruff check referee tests bench gunicorn.conf.py
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=30 $(PYTEST_ARGS)

bench: $(VENV)/.installed-test browser-engine static-compressed
	$(PY) bench/settle.py
	$(PY) bench/pdf.py
	$(PY) bench/season.py
	$(PY) bench/ratings.py
	$(PY) bench/load.py
	$(PY) bench/live.py
	$(PY) bench/tournament.py
	$(PY) bench/guests.py
	$(PY) bench/browser_engine.py
	$(PY) bench/peer.py
	$(PY) bench/size.py
	$(PY) bench/phone.py

## make soak: 50 clients on 25 matches for 10 minutes, SQLite then PostgreSQL (about 21 minutes).
soak: $(VENV)/.installed-test deps-system
	$(PY) bench/soak.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-artifacts $(PYODIDE_DIR) $(AXE_DIR) $(API_DOCS_DIR)
