"""A user's own envs and games on the command line: ``module:attr`` specs.

``plan --env my_module:MyEnv-v0`` is Gymnasium's own syntax: ``gymnasium.make``
imports ``my_module`` (which registers the env) and makes ``MyEnv-v0``
(``gymnasium.envs.registration._find_spec``); the command line imports the
module first (:func:`import_user_module`), so a module that cannot be imported
is an argument error naming it, not a traceback. ``--game my_module:env``
(``evaluate``, ``tournament``, ``search``, ``play``) imports ``my_module``,
calls its ``env`` with the game's options (``my_module:env:size=4``) and
plays in the PettingZoo AEC env it returns (:class:`FactoryGame`). Which specs
are ``module:attr`` is :func:`mcts_agent.evaluation.specs.import_path`'s rule.

The module is imported from ``sys.path``, as ``import`` does: the
``mcts-agent`` command does not look in the current directory
(``python -m mcts_agent.cli`` does); ``PYTHONPATH`` adds a directory. Worker
processes import it again (``--backend ray``: it must be importable on every
node).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mcts_agent.evaluation import PettingZooGame
from mcts_agent.evaluation.specs import import_path, parse_spec

__all__ = ["FactoryGame", "factory_game", "import_user_module"]


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


@dataclass(frozen=True)
class FactoryGame(PettingZooGame):
    """Games played in the PettingZoo AEC env a user's factory returns: ``module:attr``.

    A :class:`~mcts_agent.evaluation.PettingZooGame` whose ``env_id`` is
    ``"module:attr"`` (:func:`~mcts_agent.evaluation.specs.import_path`) and
    whose env is ``module.attr(**env_options)``, made for each game as
    ``PettingZooGame`` makes its registry's envs; players plan through
    :class:`~mcts_agent.adapters.PettingZooModel`. Picklable: a worker process
    imports the module again.

    Raises:
        ValueError: (on construction) if ``env_id`` is not ``module:attr``.
    """

    def __post_init__(self) -> None:
        if import_path(self.env_id) is None:
            raise ValueError(
                f"a FactoryGame's env_id is module:attr such as 'my_module:env', "
                f"got {self.env_id!r}"
            )

    def make_env(self) -> Any:
        """Returns ``module.attr(**env_options)``, checked to be a PettingZoo AEC env.

        Raises:
            ImportError: as :func:`import_user_module`.
            ValueError: if the module has no such attribute, or the factory
                refuses ``env_options`` (a TypeError from the call).
            TypeError: if the attribute is not callable or returns anything
                but a ``pettingzoo.AECEnv`` (a ParallelEnv: the message names
                ``parallel_to_aec``).
        """
        from pettingzoo import AECEnv, ParallelEnv

        module_name, attribute = import_path(self.env_id)
        module = import_user_module(module_name, self.name)
        factory: Any = module
        for part in attribute.split("."):
            if not hasattr(factory, part):
                where = getattr(module, "__file__", None) or "a namespace package"
                raise ValueError(
                    f"{self.name}: module {module_name!r} ({where}) has no attribute {attribute!r}"
                )
            factory = getattr(factory, part)
        if not callable(factory):
            raise TypeError(
                f"{self.name}: {module_name}.{attribute} is a {type(factory).__name__}, not a "
                "callable that returns a PettingZoo AEC env"
            )
        try:
            env = factory(**dict(self.env_options))
        except TypeError as error:  # the factory refused an option
            raise ValueError(f"{self.name}: {error}") from error
        if not isinstance(env, AECEnv):
            made = f"{type(env).__module__}.{type(env).__qualname__}"
            hint = (
                " (wrap it: pettingzoo.utils.conversions.parallel_to_aec)"
                if isinstance(env, ParallelEnv)
                else ""
            )
            raise TypeError(
                f"{self.name}: {module_name}.{attribute}() returned a {made}, expected a "
                f"PettingZoo AEC env (pettingzoo.AECEnv){hint}"
            )
        return env


def factory_game(spec: str) -> FactoryGame | None:
    """Returns the checked :class:`FactoryGame` of a ``module:attr[:options]`` game spec.

    Args:
        spec: a game spec, e.g. ``"my_module:env:size=4"``.

    Returns:
        The game, checked before any game is played
        (:meth:`~mcts_agent.evaluation.PettingZooGame.check`: the env made and
        reset, two agents, what the adapter refuses refused); None if ``spec``
        is not ``module:attr`` (``tictactoe``, ``classic/go-v5:board_size=9``:
        :func:`~mcts_agent.evaluation.make_game`'s).

    Raises:
        ImportError, TypeError, ValueError: as :meth:`FactoryGame.make_env`,
            :func:`~mcts_agent.evaluation.specs.parse_spec` and the check.
    """
    kind, options = parse_spec(spec, what="game")
    if import_path(kind) is None:
        return None
    game = FactoryGame(kind, env_options=tuple(options.items()))
    game.check()
    return game
