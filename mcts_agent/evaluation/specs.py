"""Specs: games and agents written as text, ``kind:name=value,name=value``.

The command line and the Python arena read the same specs:

* games (:func:`~mcts_agent.evaluation.make_game`): ``tictactoe``,
  ``connect_four``, or a PettingZoo id with its env's options,
  ``classic/go-v5:board_size=9,komi=7.5``;
* agents (:func:`make_player`): ``random``; ``perfect`` (games small enough
  to solve: tic-tac-toe); ``minimax:depth=4`` (alpha-beta on any game, with
  the game's evaluator at the depth limit where it has one;
  ``evaluator=None`` turns it off); ``mcts:iterations=400,exploration=2.83,
  selection=puct,...`` (every option of :class:`~mcts_agent.search.MCTS` or
  :class:`~mcts_agent.agent.MCTSAgent`, by name; ``exploration`` by default the
  game's own, :func:`~mcts_agent.evaluation.games.default_exploration`; ``evaluator=heuristic``
  names one of the game's evaluators); ``rlcard:MODEL_ID`` (one of RLCard's
  own agents, ``rlcard:leduc-holdem-cfr``, in PettingZoo's RLCard envs:
  :mod:`~mcts_agent.evaluation.rlcard_players`; the model id is read as it
  is, not as options); ``gtp:COMMAND`` (a GTP engine started with the
  command line ``COMMAND``, ``gtp:gnugo --mode gtp --level 1``, in PettingZoo's
  go: :mod:`~mcts_agent.evaluation.gtp_players`; the command is read as it is);
  ``uci:COMMAND[:NAME=VALUE,...]`` (a UCI engine, ``uci:stockfish:Skill Level=0,movetime=10``,
  in PettingZoo's chess: :mod:`~mcts_agent.evaluation.uci_players`, which reads its options).

A game or env spec may name a user's module instead, as Gymnasium's
``gymnasium.make("my_module:MyEnv-v0")`` does (:func:`import_path`):
``my_module:MyEnv-v0`` or ``my_package.games:env``, options after a second
colon (``my_module:env:size=4``). The rule that tells it from
``kind:options``: the part before the first colon is a dotted Python module
path (``my_package.games``, no ``/`` or ``-``) and the part after it, up to
the next colon, is not empty and holds no ``=``. Before this syntax such a
spec was an error (``expected name=value options``), so no spec that was
read before is read otherwise now; ``classic/go-v5:board_size=9`` and
``tictactoe:size=3`` are ``kind:options`` still. Agent specs have no module
path: ``mcts:iterations`` is a malformed option there.

Values are Python literals (``ast.literal_eval``: ``400``, ``2.83``,
``(0.3, 0.25)``, ``None``, ``'text'``); ``true`` and ``false`` are the
bools too (``value_normalization=true``); a bare word that is not one
(``puct``) is the string itself, and so is a file path written bare
(``evaluator=net.pt``, ``evaluator=runs/net-2.pt``: a checkpoint of
``mcts-agent train``, :func:`game_evaluator`). Commas inside brackets or quotes do not
split options. Every agent spec is checked against its game when it is read
(:func:`make_player` makes the planner the games will make), so a bad spec
fails before any game is played.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcts_agent.evaluation.players import (
    MCTSPlayer,
    MinimaxPlayer,
    PerfectPlayer,
    Player,
    RandomPlayer,
)
from mcts_agent.summary import short_float

if TYPE_CHECKING:
    from mcts_agent.evaluation.games import Game

__all__ = [
    "AGENT_KINDS",
    "EvaluatorValue",
    "display_value",
    "format_options",
    "game_evaluator",
    "import_path",
    "make_player",
    "parse_spec",
    "parse_settings",
    "parse_sweep",
]

AGENT_KINDS = ("random", "perfect", "minimax", "mcts", "rlcard", "gtp", "uci")
"""The kinds of agent :func:`make_player` reads."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A file path written bare (evaluator=net.pt, evaluator=runs/net-2.pt): no quotes needed.
_PATH = re.compile(r"^(?=[^/]*[./])[\w.~/-]*[\w~-][\w.~/-]*$")
_MODULE_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_IMPORTING = ("game", "env")
"""The kinds of spec (``parse_spec``'s ``what``) that may start with ``module:attr``."""
_CLOSING = {"(": ")", "[": "]", "{": "}"}
_BOOLS = {"true": True, "false": False}
"""The lower-case words read as bools (the shell's and JSON's spelling of ``True``, ``False``)."""


def _split_options(text: str, spec: str) -> list[str]:
    """Splits ``text`` at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], [], None, 0
    for i, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _CLOSING:
            depth.append(char)
        elif char in ")]}":
            if not depth or _CLOSING[depth.pop()] != char:
                raise ValueError(f"unbalanced {char!r} in {spec!r}")
        elif char == "," and not depth:
            parts.append(text[start:i])
            start = i + 1
    if depth or quote:
        raise ValueError(f"unclosed {(quote or depth[-1])!r} in {spec!r}")
    parts.append(text[start:])
    return parts


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text in _BOOLS:
            return _BOOLS[text]
        if _NAME.match(text) or _PATH.match(text):
            return text
        raise ValueError(f"expected a Python literal or a word, got {text!r}") from None


def import_path(kind: str) -> tuple[str, str] | None:
    """Returns ``(module, attribute)`` if ``kind`` is ``module:attr``, else None.

    The rule of the module docstring: ``module`` a dotted Python module path,
    ``attr`` not empty and without ``=`` or ``:``. What ``attr`` names is the
    caller's: Gymnasium reads it as an env id (``gymnasium.make`` imports
    ``module`` first, ``gymnasium.envs.registration._find_spec``), the command
    line's games as a callable of the module.

    Args:
        kind: a spec's kind, e.g. ``"my_module:MyEnv-v0"`` (``parse_spec``'s first value).

    Returns:
        ``("my_module", "MyEnv-v0")``; None for ``"classic/go-v5"``, ``"tictactoe"``.
    """
    module, colon, attribute = kind.partition(":")
    module, attribute = module.strip(), attribute.strip()
    if not (colon and _MODULE_PATH.match(module) and attribute) or set("=:") & set(attribute):
        return None
    return module, attribute


def parse_spec(spec: str, what: str = "agent") -> tuple[str, dict[str, Any]]:
    """Reads ``kind[:name=value[,name=value...]]``.

    Game and env specs (``what`` ``"game"`` or ``"env"``) may start with a
    user's ``module:attr`` (:func:`import_path`; the module docstring's rule),
    which is then the kind, its options after a second colon.

    Args:
        spec: e.g. ``"mcts:iterations=400,root_noise=(0.3, 0.25)"``,
            ``"classic/go-v5:board_size=9"`` or ``"my_module:env:size=4"``.
        what: what the spec is, for messages (``"agent"``, ``"game"``,
            ``"env"``); games and envs may name a module.

    Returns:
        ``(kind, {name: value})``, the options in the order given:
        ``("my_module:env", {"size": 4})``; an agent spec ``rlcard:MODEL_ID``
        is ``("rlcard", {"model": "MODEL_ID"})``, ``gtp:COMMAND``
        ``("gtp", {"command": "COMMAND"})``, ``uci:COMMAND:NAME=VALUE``
        ``("uci", {"command": "COMMAND", "options": {"NAME": "VALUE"}})``
        (:func:`~mcts_agent.evaluation.uci_players.parse_uci_spec`).

    Raises:
        TypeError: if ``spec`` is not a str.
        ValueError: if the kind is empty, an option is not ``name=value`` with
            a Python name, a value is neither a literal nor a word, a name is
            given twice, or a bracket or quote is not closed.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a {what} spec must be a str such as 'mcts:iterations=100', got {spec!r}")
    kind, colon, rest = spec.strip().partition(":")
    if what in _IMPORTING:
        attribute, second, options_text = rest.partition(":")
        path = import_path(f"{kind}:{attribute}")
        if path is not None:
            kind, colon, rest = ":".join(path), second, options_text
    kind = kind.strip()
    if not kind:
        raise ValueError(f"{what} spec {spec!r} has no {what} before the colon")
    if what == "agent" and kind == "rlcard" and colon:
        return kind, {"model": rest.strip()}
    if what == "agent" and kind == "gtp" and colon:
        return kind, {"command": rest.strip()}
    if what == "agent" and kind == "uci" and colon:
        from mcts_agent.evaluation.uci_players import parse_uci_spec

        return kind, parse_uci_spec(rest)
    options: dict[str, Any] = {}
    if colon:
        for part in _split_options(rest, spec):
            name, equals, text = part.partition("=")
            name = name.strip()
            if not equals or not _NAME.match(name):
                raise ValueError(
                    f"{what} spec {spec!r}: expected name=value options separated by commas, "
                    f"got {part.strip()!r}"
                )
            if name in options:
                raise ValueError(f"{what} spec {spec!r} gives {name!r} twice")
            try:
                options[name] = _value(text.strip())
            except ValueError as error:
                raise ValueError(f"{what} spec {spec!r}, option {name!r}: {error}") from None
    return kind, options


def parse_settings(text: str) -> dict[str, list[Any]]:
    """Reads ``name=value[,value...][,name=value[,value...]...]``: options and their values.

    A comma followed by ``name=`` starts the next option; any other comma separates
    one more value of the option before it (what ``mcts-agent evaluate`` sweeps).
    Values are read as in :func:`parse_spec`: ``gamma=0.95,exploration=0.7`` is two
    options of one value each, ``gamma=0.9,1.0,selection=uct,puct`` two of two values,
    ``root_noise=(0.3, 0.25)`` one tuple.

    Args:
        text: the options, e.g. ``"evaluator=heuristic,selection=puct"``.

    Returns:
        ``{name: [value, ...]}`` in the order given, each with one value or more.

    Raises:
        TypeError: if ``text`` is not a str.
        ValueError: if ``text`` does not start with ``name=`` (a Python name), a
            name is given twice, a value is empty or neither a literal nor a word,
            or a bracket or quote is not closed.
    """
    if not isinstance(text, str):
        raise TypeError(f"options must be a str such as 'gamma=0.9,selection=puct', got {text!r}")
    settings: dict[str, list[Any]] = {}
    name = None
    for part in _split_options(text, text):
        head, equals, rest = part.partition("=")
        if equals and _NAME.match(head.strip()):
            name = head.strip()
            if name in settings:
                raise ValueError(f"{text!r} gives {name!r} twice")
            settings[name] = []
            part = rest
        elif name is None:
            raise ValueError(
                f"expected name=value,... such as gamma=0.9 or selection=uct,puct; got {text!r}"
            )
        if not part.strip():
            raise ValueError(f"option {name!r}: a value is missing in {text!r}")
        try:
            settings[name].append(_value(part.strip()))
        except ValueError as error:
            raise ValueError(f"option {name!r}: {error}") from None
    return settings


def parse_sweep(text: str) -> tuple[str, list[Any]]:
    """Reads ``name=value,value,...``: an option and the values a sweep gives it.

    Values are read as in :func:`parse_spec` (``gamma=0.9,1.0``,
    ``root_noise=(0.3, 0.25),None``); :func:`parse_settings` reads several options.

    Raises:
        TypeError: if ``text`` is not a str.
        ValueError: if ``text`` is not ``name=`` and one or more values of one option.
    """
    settings = parse_settings(text)
    if len(settings) != 1:
        raise ValueError(
            f"expected one option name=value,value,... such as gamma=0.9,1.0; got {text!r}"
        )
    ((name, values),) = settings.items()
    return name, values


def display_value(value: Any, text: Callable[[Any], str] = str) -> str:
    """Returns ``value`` as tables and titles print it (floats to 4 significant digits).

    A float has at most 4 significant digits (``2.8284271247461903`` as
    ``2.828``; one that has no more is as ``repr`` writes it: ``1.0``, ``0.95``),
    any other value is ``text(value)``. Only for display: specs and saved
    results keep the full value.
    """
    if not isinstance(value, float):
        return text(value)
    return short_float(value)


def format_options(options: tuple[tuple[str, Any], ...], display: bool = False) -> str:
    """Returns ``":name=value,..."`` (values as ``repr``), or ``""`` without options.

    With ``display``, floats as :func:`display_value` prints them (for tables,
    not specs: the value read back would differ).
    """
    if not options:
        return ""
    return ":" + ",".join(
        f"{name}={display_value(value, repr) if display else repr(value)}"
        for name, value in options
    )


class EvaluatorValue:
    """An evaluator's value as minimax's evaluation: ``state -> float`` (picklable).

    Args:
        evaluator: ``(state, actions) -> Evaluation`` (its priors are not used).
        model: the model whose ``actions(state)`` the evaluator is given.
        name: the evaluator's name (minimax's ``describe``).
    """

    def __init__(self, evaluator: Any, model: Any, name: str) -> None:
        self.evaluator = evaluator
        self.model = model
        self.label = name

    def __call__(self, state: Any) -> float:
        """Returns the evaluator's value of ``state`` for the player to move there."""
        return float(self.evaluator(state, self.model.actions(state)).value)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, EvaluatorValue)
            and (self.evaluator, self.label) == (other.evaluator, other.label)
            and type(self.model) is type(other.model)
        )

    def __hash__(self) -> int:
        return hash((self.evaluator, self.label))


def game_evaluator(game: Game, name: Any) -> Any:
    """Returns the evaluator ``name`` names for ``game``: one of its own, or a checkpoint's.

    Args:
        game: the game the evaluator will evaluate.
        name: the name of one of ``game.evaluators`` (``"heuristic"``), or
            the path of a checkpoint of ``mcts-agent train`` (ending in
            ``.pt`` or ``.pth``: :func:`mcts_agent.learning.load_evaluator`).

    Raises:
        ValueError: if the game has no evaluator ``name`` and it is no
            checkpoint's path, or the checkpoint is not one, or was trained
            for another game.
        FileNotFoundError: if the checkpoint's file does not exist.
        ImportError: if a checkpoint is named and PyTorch is not installed.
    """
    evaluators = dict(game.evaluators)
    if name in evaluators:
        return evaluators[name]
    from mcts_agent.learning.checkpoints import is_checkpoint_path

    if is_checkpoint_path(name):
        from mcts_agent.learning.checkpoints import load_evaluator

        return load_evaluator(name, game)
    names = ", ".join(map(repr, evaluators)) or "none"
    raise ValueError(
        f"{game.name} has no evaluator {name!r} (it has: {names}; evaluator=None for none; "
        "or a checkpoint of mcts-agent train, a file ending in .pt)"
    )


def _game_evaluator(game: Game, name: Any, spec: str) -> Any:
    evaluators = dict(game.evaluators)
    if name not in evaluators:
        from mcts_agent.learning.checkpoints import is_checkpoint_path

        if is_checkpoint_path(name):
            try:
                return game_evaluator(game, name)
            except (ValueError, FileNotFoundError) as error:
                raise type(error)(f"agent spec {spec!r}: {error}") from None
        names = ", ".join(map(repr, evaluators)) or "none"
        raise ValueError(
            f"agent spec {spec!r}: {game.name} has no evaluator {name!r} (it has: {names}; "
            "evaluator=None for none; or a checkpoint of mcts-agent train, a file ending in .pt)"
        )
    return evaluators[name]


def make_player(spec: str, game: Game) -> Player:
    """Returns the player ``spec`` describes, checked against ``game`` (see the module docstring).

    Args:
        spec: ``random``, ``perfect``, ``minimax[:depth=D,evaluator=NAME]``,
            ``mcts:name=value,...``, ``rlcard:MODEL_ID``, ``gtp:COMMAND`` or
            ``uci:COMMAND[:NAME=VALUE,...]``.
        game: the game it will play (for its model, evaluators and solvability).

    Returns:
        A :class:`RandomPlayer`, :class:`PerfectPlayer`, :class:`MinimaxPlayer`,
        :class:`MCTSPlayer`,
        :class:`~mcts_agent.evaluation.rlcard_players.RLCardPlayer` or
        :class:`~mcts_agent.evaluation.gtp_players.GTPPlayer` or
        :class:`~mcts_agent.evaluation.uci_players.UCIPlayer`.

    Raises:
        ValueError: if the spec is malformed, names an unknown kind, gives
            ``random`` or ``perfect`` options, asks for perfect play on a game
            too big to solve, for minimax or perfect play on a game not
            planned as two-player zero-sum
            (:func:`~mcts_agent.evaluation.games.require_zero_sum`), names an
            evaluator the game lacks, or an option is out of range (the
            message of the planner that refused it), or names an RLCard model
            that is unknown or does not play ``game``, or a GTP engine on
            a game other than PettingZoo's go, or a UCI engine on a game other than
            PettingZoo's chess.
        TypeError: if an option is unknown or has the wrong type.
        ImportError: for ``rlcard:...`` if rlcard is not installed.
        FileNotFoundError: for ``gtp:...`` and ``uci:...`` if the engine's program is not
            found.
    """
    kind, options = parse_spec(spec)
    try:
        return _make_player(kind, options, game, spec)
    except (TypeError, ValueError) as error:
        if str(error).startswith(f"agent spec {spec!r}"):
            raise
        raise type(error)(f"agent spec {spec!r}: {error}") from None


def _make_player(kind: str, options: dict[str, Any], game: Game, spec: str) -> Player:
    from mcts_agent.evaluation.games import ModelGame, require_zero_sum

    model = getattr(game, "model", None)
    if kind in ("random", "perfect"):
        if options:
            raise ValueError(f"{kind} takes no options, got {', '.join(options)}")
        if kind == "random":
            return RandomPlayer()
        if not game.solvable:
            raise ValueError(
                f"perfect play needs a game small enough to solve outright; {game.name} is "
                "not: use minimax instead"
            )
        perfect = PerfectPlayer()
        require_zero_sum(game, perfect)
        return perfect
    if kind == "minimax":
        unknown = set(options) - {"depth", "evaluator"}
        if unknown:
            raise TypeError(
                f"unknown minimax option(s) {', '.join(sorted(unknown))}; valid: depth, evaluator"
            )
        name = options.get("evaluator", game.evaluators[0][0] if game.evaluators else None)
        evaluation = None
        if name is not None:
            if model is None:
                raise ValueError(f"{game.name} has no model for an evaluator to read")
            evaluation = EvaluatorValue(_game_evaluator(game, name, spec), model, name)
        minimax = MinimaxPlayer(depth=options.get("depth", 4), evaluation=evaluation)
        require_zero_sum(game, minimax)
        return minimax
    if kind == "mcts":
        if "exploration" not in options:  # the game's own (MCTSAgent's) when it has one
            from mcts_agent.evaluation.games import default_exploration

            options["exploration"] = default_exploration(game)
        if isinstance(options.get("evaluator"), str):
            options["evaluator"] = _game_evaluator(game, options["evaluator"], spec)
        player = MCTSPlayer(options.pop("iterations", None), **options)
        player.check(model if isinstance(game, ModelGame) else None)
        return player
    if kind == "rlcard":
        from mcts_agent.evaluation.rlcard_players import RLCardPlayer

        if set(options) != {"model"}:
            raise ValueError("expected rlcard:MODEL_ID such as rlcard:leduc-holdem-cfr")
        player = RLCardPlayer(options["model"])
        player.check(getattr(game, "env_id", game.name))
        return player
    if kind == "gtp":
        from mcts_agent.evaluation.gtp_players import GTPPlayer

        if set(options) != {"command"} or not options["command"]:
            raise ValueError("expected gtp:COMMAND such as 'gtp:gnugo --mode gtp --level 1'")
        player = GTPPlayer(options["command"])
        player.check(getattr(game, "env_id", game.name))
        return player
    if kind == "uci":
        from mcts_agent.evaluation.uci_players import UCIPlayer

        if set(options) != {"command", "options"}:
            raise ValueError("expected uci:COMMAND[:NAME=VALUE,...] such as 'uci:stockfish'")
        player = UCIPlayer(options["command"], options["options"])
        player.check(getattr(game, "env_id", game.name))
        return player
    raise ValueError(f"unknown agent {kind!r}; valid agents: {', '.join(AGENT_KINDS)}")
