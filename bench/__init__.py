"""The standing benches: scripts that measure the court, run again after a change.

Run one from the repository's root as ``uv run python -m bench NAME [ARGS]`` or
``uv run python -m bench.NAME [ARGS]``; ``uv run python -m bench`` lists them. The benches import
each other as ``bench.params``, ``bench.stored`` and so on. Not part of the installed package
(``[tool.setuptools.packages.find]`` includes only ``courtroom_chat``). Probes that were run once
and deleted are in docs/measured-probes.md; results are in bench/results/.
"""
