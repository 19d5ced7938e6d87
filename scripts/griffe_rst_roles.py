"""A griffe extension: the docstrings' reStructuredText markup, read as Markdown.

The docstrings are Google style with Sphinx cross-reference roles
(``:class:`~mcts_agent.tree.Node```, ``:func:`check_model```) and ``::`` before
literal blocks. mkdocstrings renders docstrings as Markdown, which would show
those roles as they are typed. This extension rewrites each role as inline
code of the name it shows (the last part after ``~``, the title of
``title <target>``) and ``Text::`` as ``Text:`` (the indented block after it is
already a Markdown code block). Listed under the Python handler's
``extensions`` in ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:attr|class|data|exc|func|meth|mod|obj|const):`([^`]+)`")
LITERAL_BLOCK = re.compile(r"(\S)::$", flags=re.MULTILINE)


def _shown(match: re.Match) -> str:
    target = match.group(1)
    if "<" in target and target.endswith(">"):
        return f"`{target.split('<', 1)[0].strip()}`"
    if target.startswith("~"):
        return f"`{target[1:].rsplit('.', 1)[-1]}`"
    return f"`{target}`"


def markdown(docstring: str) -> str:
    """Returns ``docstring`` with its roles as inline code and ``::`` as ``:``."""
    return LITERAL_BLOCK.sub(r"\1:", ROLE.sub(_shown, docstring))


class RstRoles(griffe.Extension):
    """Rewrites every loaded object's docstring with :func:`markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called by griffe for each object it loads."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
