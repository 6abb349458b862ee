.PHONY: demo test install

install:
	bash scripts/install-system-packages.sh
	python3 -m pip install --quiet -e .

# The main job: a whole simulated campaign on the embedded default (SQLite, bundled sample data).
demo: install
	da-platform demo

# The whole test suite, exactly as CI runs it (installs what it needs, starts PostgreSQL).
test:
	bash .ci/run
