"""Load a module as it is at another git revision, next to the working copy's (benchmarks)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType


def module_at(revision: str, relative_path: str, folder: str) -> ModuleType:
    """Imports the file ``relative_path`` of the repository as it is at git ``revision``.

    The source is written into ``folder`` and imported as a separate module (named after the
    file, ``_base`` appended), so that both versions can run side by side in one process; its
    own imports resolve to the working copy's package.

    Args:
        revision: any git revision (``main``, a commit, ``HEAD~1``).
        relative_path: a path from the repository's root, e.g. ``mcts_agent/search.py``.
        folder: a writable directory (a ``tempfile.TemporaryDirectory``) for the source.

    Returns:
        The imported module.

    Raises:
        subprocess.CalledProcessError: if git has no such file at ``revision``.
    """
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{revision}:{relative_path}"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = f"{Path(relative_path).stem}_base"
    path = Path(folder) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
