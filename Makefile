# Everyday commands; they use the project's venv (`python3 -m venv .venv && .venv/bin/pip install -e '.[test]'`).
PY := .venv/bin/python

.PHONY: test check check-all snapshots ci textual-latest catalogs

test:  ## the whole suite, as README says (two workers: pytest-xdist)
	$(PY) -m pytest -q -n 2

check:  ## the gates .ci/run runs before the tests, over the whole repository (config in pyproject.toml)
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/mypy tests benchmarks
	.venv/bin/lint-imports --no-cache

check-all: check  ## (the old name: the gates now cover everything)

snapshots:  ## rewrite the SVG snapshots in tests/tui/snapshots; look at them (git diff) before committing
	VOLTAGE_UPDATE_SNAPSHOTS=1 $(PY) -m pytest -q tests/tui/test_snapshots.py

catalogs:  ## extract the messages, update tui/locale's catalogs (ca, es), compile them; then translate what is new
	$(PY) tools/catalogs.py

ci:  ## what CI runs, in a fresh venv
	.ci/run

textual-latest:  ## the suite on the newest Textual in a throwaway venv, and what breaks (slow; not CI): TEXTUAL=spec ARGS="--force tests/tui"
	.ci/textual-latest $(if $(TEXTUAL),--textual '$(TEXTUAL)') $(ARGS)
