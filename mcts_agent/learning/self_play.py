"""Self-play: one game of the search against itself, and the training examples it leaves.

AlphaZero's data (Silver et al., 2018; OpenSpiel's ``alpha_zero`` actor,
alpha-zero-general's ``Coach.executeEpisode``): from each position of the
game the search runs with the current network as its evaluator
(:class:`~mcts_agent.search.MCTS`, PUCT, Dirichlet noise on the root's
priors: ``root_noise=(alpha, 0.25)``), and the position is stored with

* the **policy target**: the root's visit distribution
  (``planner.summary().visit_distribution``), or with the Gumbel search
  (``selection="gumbel"``; Danihelka et al., 2022) its improved policy
  (``planner.improved_policy()``), as a vector over the encoding's
  ``num_actions`` with 0 for the illegal actions;
* the **outcome**: the game's return from the point of view of the player
  who moved there, known when the game ends. It is computed with the
  search's own backup rule (``docs/concepts/iteration.md``): from the last
  move back, ``G = r + G'`` if the same player moves next, else ``G = r - G'``
  (``gamma = 1``), so a win is +1 for the winner's positions and -1 for the
  loser's, a draw 0.

The move played is drawn with temperature 1 (probability proportional to
the visits: :meth:`~mcts_agent.search.MCTS.sample_action`) for the first
``temperature_moves`` moves of the game, then with temperature 0 (the
robust child), AlphaZero's schedule (its first 30 moves in chess and Go;
alpha-zero-general's ``tempThreshold``). The Gumbel search plays its own
choice (``best_action``), whose Gumbel draw is the exploration.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcts_agent.learning.encoding import Encoding, policy_vector
from mcts_agent.learning.replay import Example

__all__ = ["SelfPlayConfig", "SelfPlayGame", "outcomes", "play_game", "policy_target"]


@dataclass(frozen=True)
class SelfPlayConfig:
    """How a self-play game searches and picks its moves.

    Attributes:
        iterations: int >= 1, search iterations per move (AlphaZero: 800).
        exploration: PUCT's c (OpenSpiel's ``uct_c``; alpha-zero-general's
            ``cpuct``), for returns in [-1, 1].
        dirichlet_alpha: float > 0, the root noise's concentration
            (AlphaZero: 0.3 for chess, 0.03 for Go; about 10 / the number of
            legal moves).
        noise_fraction: float in [0, 1], the share of noise in the root's
            priors (AlphaZero: 0.25); 0 turns the noise off.
        temperature_moves: int >= 0, the moves of each game drawn with
            temperature 1; the later ones are played at temperature 0.
        selection: ``"puct"`` (AlphaZero) or ``"gumbel"`` (Gumbel search; no
            root noise, its own move choice, the improved policy as target).
        leaf_batch: int >= 1, the search's ``leaf_batch`` (PUCT only: several
            leaves per evaluator call, through the evaluator's ``batch``).
    """

    iterations: int = 50
    exploration: float = 1.5
    dirichlet_alpha: float = 1.0
    noise_fraction: float = 0.25
    temperature_moves: int = 4
    selection: str = "puct"
    leaf_batch: int = 1

    def __post_init__(self) -> None:
        if self.selection not in ("puct", "gumbel"):
            raise ValueError(f"selection must be 'puct' or 'gumbel', got {self.selection!r}")
        if isinstance(self.iterations, bool) or not isinstance(self.iterations, int):
            raise TypeError(f"iterations must be an int >= 1, got {self.iterations!r}")
        if self.iterations < 1:
            raise ValueError(f"iterations must be an int >= 1, got {self.iterations!r}")
        if self.temperature_moves < 0:
            raise ValueError(f"temperature_moves must be >= 0, got {self.temperature_moves!r}")
        if not 0.0 <= self.noise_fraction <= 1.0:
            raise ValueError(f"noise_fraction must be in [0, 1], got {self.noise_fraction!r}")
        if not self.dirichlet_alpha > 0.0:
            raise ValueError(f"dirichlet_alpha must be > 0, got {self.dirichlet_alpha!r}")

    def planner_options(self) -> dict[str, Any]:
        """Returns the :class:`~mcts_agent.search.MCTS` keywords of a self-play search."""
        options: dict[str, Any] = {
            "iterations": self.iterations,
            "exploration": self.exploration,
            "selection": self.selection,
        }
        if self.selection == "puct":
            if self.noise_fraction > 0.0:
                options["root_noise"] = (self.dirichlet_alpha, self.noise_fraction)
            if self.leaf_batch > 1:
                options["leaf_batch"] = self.leaf_batch
        return options


@dataclass(frozen=True)
class SelfPlayGame:
    """A finished self-play game.

    Attributes:
        examples: one :class:`~mcts_agent.learning.replay.Example` per move,
            in the order played.
        moves: the actions played.
        players: the player to move at each of those positions.
        returns: ``{player: return of the game}`` (the sum of its rewards).
    """

    examples: tuple[Example, ...]
    moves: tuple[Any, ...]
    players: tuple[Any, ...]
    returns: dict[Any, float]


def policy_target(planner: Any, encoding: Encoding) -> Any:
    """Returns the training target of a finished search, over the encoding's actions.

    The improved policy (``planner.improved_policy()``) when
    ``planner.selection == "gumbel"``, else the visit distribution
    (``planner.summary().visit_distribution``); both are in the order of
    ``summary().actions``, and are placed by ``encoding.action_index``.

    Args:
        planner: an :class:`~mcts_agent.search.MCTS` after ``search``.
        encoding: the encoding of the network being trained.

    Returns:
        float32 array of shape ``(num_actions,)``, summing to 1, 0 for the
        actions not at the root.
    """
    summary = planner.summary()
    if planner.selection == "gumbel":
        weights = planner.improved_policy()
    else:
        weights = summary.visit_distribution
    return policy_vector(encoding, summary.actions, weights)


def outcomes(players: Sequence[Any], rewards: Sequence[float]) -> list[float]:
    """Returns each position's return, from its mover's point of view (the backup rule).

    Args:
        players: the player to move at each position of a finished game.
        rewards: the reward each move earned its mover (``step``'s reward).

    Returns:
        ``G_t`` for every ``t``, from the end: ``G_T = 0`` and
        ``G_t = r_t + G_{t+1}`` if ``players[t + 1] == players[t]``, else
        ``r_t - G_{t+1}``.

    Raises:
        ValueError: if the sequences differ in length.
    """
    if len(players) != len(rewards):
        raise ValueError(f"{len(players)} players but {len(rewards)} rewards")
    returns = [0.0] * len(players)
    after = 0.0
    for t in range(len(players) - 1, -1, -1):
        same = t + 1 < len(players) and players[t + 1] == players[t]
        after = float(rewards[t]) + after if same else float(rewards[t]) - after
        returns[t] = after
    return returns


def play_game(
    model: Any,
    initial_state: Any,
    encoding: Encoding,
    evaluator: Any,
    config: SelfPlayConfig,
    seed: int,
    max_moves: int | None = None,
) -> SelfPlayGame:
    """Plays one game of the search against itself and returns its training examples.

    Args:
        model: a two-player model whose ``step`` rewards the mover with a
            float (our models; ``PettingZooModel`` of a zero-sum game).
        initial_state: the state the game starts from.
        encoding: encodes each position (:meth:`~mcts_agent.learning.encoding.Encoding.encode`).
        evaluator: the search's evaluator (a
            :class:`~mcts_agent.learning.network_evaluator.NetworkEvaluator`,
            or any ``(state, actions) -> Evaluation``).
        config: the search and the temperature schedule.
        seed: the seed of the game's planner (noise, move draws, rollouts).
        max_moves: int >= 1 or None: stop after so many moves (the game
            then counts as drawn from there: its returns are the rewards so far).

    Returns:
        The :class:`SelfPlayGame`.

    Raises:
        ValueError: if a reward is not a real number (a model reporting every
            player's reward: self-play trains two-player zero-sum games).
    """
    from mcts_agent.search import MCTS

    planner = MCTS(model, seed=seed, evaluator=evaluator, **config.planner_options())
    state = initial_state
    observations, policies, players, rewards, moves = [], [], [], [], []
    returns: dict[Any, float] = {}
    actions = tuple(model.actions(state))
    while actions and (max_moves is None or len(moves) < max_moves):
        player = model.player(state)
        planner.search(state)
        observations.append(encoding.encode(state))
        policies.append(policy_target(planner, encoding))
        if config.selection == "gumbel":
            action = planner.best_action()
        else:
            temperature = 1.0 if len(moves) < config.temperature_moves else 0.0
            action = planner.sample_action(temperature)
        state, reward, terminated = model.step(state, action)
        if isinstance(reward, bool) or not isinstance(reward, numbers.Real):
            raise ValueError(
                f"self-play trains two-player zero-sum games whose step rewards the mover "
                f"with a number; got the reward {reward!r}"
            )
        players.append(player)
        rewards.append(float(reward))
        moves.append(action)
        returns[player] = returns.get(player, 0.0) + float(reward)
        actions = () if terminated else tuple(model.actions(state))
    targets = outcomes(players, rewards)
    examples = tuple(
        Example(o, p, g) for o, p, g in zip(observations, policies, targets, strict=True)
    )
    return SelfPlayGame(examples, tuple(moves), tuple(players), returns)
