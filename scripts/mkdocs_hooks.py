"""MkDocs hook: lets mkdocstrings read ``mcts_agent`` as it is imported.

``mcts_agent.adapters`` and ``mcts_agent.envs`` may live outside the
``mcts_agent/`` directory (a ``package-dir`` mapping in ``pyproject.toml``).
mkdocstrings reads sources from disk, package by directory, so it would not
find them there. Before the build, this hook lays out the package as Python
imports it, in a temporary directory (real directories, files linked), and points
the Python handler there. Where the subpackages already sit inside ``mcts_agent/``, the
layout is the source tree itself.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import tempfile

from mkdocs.plugins import event_priority

PACKAGE = "mcts_agent"
SUBPACKAGES = ("adapters", "envs")

_staging: tempfile.TemporaryDirectory | None = None


def _package_dir(name: str) -> pathlib.Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"cannot find the package {name}: install the project first")
    return pathlib.Path(spec.submodule_search_locations[0])


def _link_tree(source: pathlib.Path, target: pathlib.Path) -> None:
    # griffe walks packages without following directory links: copy the directories.
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(source, target, copy_function=os.symlink, ignore=ignore)


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config):
    """Lays out ``mcts_agent`` as imported and makes it mkdocstrings' search path."""
    global _staging
    _staging = tempfile.TemporaryDirectory(prefix="mcts-agent-api-")
    target = pathlib.Path(_staging.name) / PACKAGE
    _link_tree(_package_dir(PACKAGE), target)
    for sub in SUBPACKAGES:
        if not (target / sub).exists():
            _link_tree(_package_dir(f"{PACKAGE}.{sub}"), target / sub)
    handlers = config.plugins["mkdocstrings"].config["handlers"]
    handlers.setdefault("python", {})["paths"] = [_staging.name]
    return config


def on_post_build(config):
    """Removes the temporary layout."""
    global _staging
    if _staging is not None:
        _staging.cleanup()
        _staging = None
