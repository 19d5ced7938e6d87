"""A user's own module, named by a ``module:attr`` spec: imported as ``import`` does.

Game and env specs may name a user's module (the rule:
:func:`~mcts_agent.evaluation.specs.import_path`): ``my_module:MyEnv-v0`` is
Gymnasium's own syntax (``gymnasium.make`` imports ``my_module``, which
registers ``MyEnv-v0``: ``gymnasium.envs.registration._find_spec``), and
``my_module:env`` a game whose AEC env ``my_module.env`` makes
(:class:`~mcts_agent.evaluation.FactoryGame`). Both import the module here
first, so a module that cannot be imported is an ImportError naming the
module and the spec, with a note on ``PYTHONPATH`` when the module itself is
not found.

The module is imported from ``sys.path``, as ``import`` does: the
``mcts-agent`` command does not look in the current directory
(``python -m mcts_agent.cli`` does); ``PYTHONPATH`` adds a directory. Worker
processes import it again (on a Ray cluster, it must be importable on every
node).
"""

from __future__ import annotations

import importlib
import traceback
from types import ModuleType
from typing import Any

__all__ = ["UserCodeError", "import_attribute", "import_user_module", "user_code_error"]


class UserCodeError(Exception):
    """A user's own factory or env raised: a bug in their code, not a bad spec.

    Its message names the factory or env, the exception's type and message and
    the file:line where it was raised (:func:`user_code_error`); the original
    exception is its ``__cause__``.
    """


def user_code_error(error: BaseException, what: str) -> UserCodeError:
    """Returns the :class:`UserCodeError` saying that ``what`` raised ``error``.

    Args:
        error: the exception the user's code raised (with its traceback).
        what: what raised it, e.g. ``"the factory user_envs:race"`` or
            ``"the env user_envs:Boom-v0"``.

    Returns:
        ``UserCodeError("{what} raised {type}: {message} (at file:line)")``,
        file:line the innermost frame of ``error``'s traceback (left out without one).
        The caller raises it ``from error``.
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return UserCodeError(f"{what} raised {type(error).__name__}: {error}{where}")


def import_user_module(module: str, spec: str) -> ModuleType:
    """Imports ``module``, the module a ``module:attr`` spec names.

    Args:
        module: a dotted module path, e.g. ``"my_module"``.
        spec: the spec that names it, for the message.

    Returns:
        The module.

    Raises:
        ImportError: naming ``module``, ``spec`` and the ImportError raised
            (with a note on ``PYTHONPATH`` when ``module`` itself is not found).
            Any other error of the module's own code propagates as it is.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        note = ""
        missing = getattr(error, "name", None)
        if isinstance(error, ModuleNotFoundError) and missing is not None:
            if module == missing or module.startswith(missing + "."):
                note = (
                    "; it is imported from sys.path: add its directory to PYTHONPATH (the "
                    "mcts-agent command does not look in the current directory)"
                )
        raise ImportError(
            f"cannot import module {module!r} of {spec!r}: {type(error).__name__}: {error}{note}"
        ) from error


def import_attribute(module: str, attribute: str, spec: str) -> Any:
    """Returns ``module.attribute`` (a dotted ``attribute`` too: ``Factory.make``).

    Args:
        module: a dotted module path, e.g. ``"my_module"``.
        attribute: the attribute's name in it, e.g. ``"env"`` or ``"Factory.make"``.
        spec: the spec that names them, for the messages.

    Raises:
        ImportError: as :func:`import_user_module`.
        ValueError: if the module has no such attribute (the message names
            the module's file).
    """
    imported = import_user_module(module, spec)
    found: Any = imported
    for part in attribute.split("."):
        if not hasattr(found, part):
            where = getattr(imported, "__file__", None) or "a namespace package"
            raise ValueError(f"{spec}: module {module!r} ({where}) has no attribute {attribute!r}")
        found = getattr(found, part)
    return found
