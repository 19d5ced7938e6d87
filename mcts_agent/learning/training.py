"""The trainer: generations of self-play, a replay buffer, SGD, evaluation, checkpoints.

AlphaZero's loop (Silver et al., 2018), in the synchronous form of
alpha-zero-general's ``Coach`` and OpenSpiel's ``alpha_zero`` run in one
process. Each generation:

1. **Self-play**: ``games_per_generation`` games of the search against
   itself with the current network as evaluator
   (:func:`~mcts_agent.learning.self_play.play_game`: PUCT, Dirichlet root
   noise, the temperature schedule), each position stored in the
   :class:`~mcts_agent.learning.replay.ReplayBuffer` with its policy target
   and outcome.
2. **Training**: ``steps_per_generation`` steps of Adam on batches drawn
   from the buffer (each example in a random symmetry of the board when
   the encoding has ``symmetries``), minimising AlphaZero's loss
   ``(z - v)^2 - pi . log p + c ||theta||^2``: the mean squared error of the
   value to the outcome, the cross-entropy of the policy to the search's
   target, and L2 regularisation (Adam's ``weight_decay``).
3. **Evaluation** (``evaluation_games`` > 0): the new network, in a search
   of ``evaluation_iterations`` iterations (PUCT, no noise, the best move),
   plays ``evaluation_games`` games in each seat against the network of the
   generation before (the same search) and against plain UCT (random
   rollouts, the game's UCT exploration) at the same iterations, each game
   opened by ``evaluation_opening_plies`` random moves; the scores are
   ``(wins + draws / 2) / games``. AlphaZero does not gate: the new
   network is kept whatever its score.
4. **Checkpoint**: ``out`` is rewritten (:func:`~mcts_agent.learning.checkpoints.save_checkpoint`).

A fixed seed and a fixed number of generations give the same weights on
every run: the network's initial weights come from ``torch.manual_seed(seed)``
(in a forked RNG: torch's global generator is left as it was), the games'
planners from seeds derived from ``seed``, the batches from
``numpy.random.default_rng(seed)``, and torch runs on one thread during
:func:`train` (``torch.set_num_threads(1)``, restored after), so its sums
are done in one order. A run limited by ``minutes`` stops after the last
generation that fits in the time, so how many generations it trains
depends on the machine.
"""

from __future__ import annotations

import copy
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from mcts_agent.learning._torch import import_torch
from mcts_agent.learning.encoding import Encoding, encoding_for_game
from mcts_agent.learning.network import NetworkConfig, PolicyValueNet, default_network_config
from mcts_agent.learning.network_evaluator import NetworkEvaluator
from mcts_agent.learning.replay import Batch, ReplayBuffer
from mcts_agent.learning.self_play import SelfPlayConfig, play_game

torch = import_torch()

__all__ = [
    "GenerationRecord",
    "TrainingConfig",
    "TrainingResult",
    "default_self_play",
    "evaluate_losses",
    "losses",
    "train",
]

_SEED_MODULUS = 2**63


@dataclass(frozen=True)
class TrainingConfig:
    """Everything a training run is made of (saved in the checkpoint as a dict).

    Attributes:
        generations: int >= 1, generations to train, or None (then
            ``minutes`` limits the run).
        minutes: float > 0, the run's time budget, or None: a generation is
            started only if the one before, as long again, would still end
            within it (the first always runs).
        games_per_generation: int >= 1, self-play games a generation.
        self_play: the self-play search (:class:`~mcts_agent.learning.self_play.SelfPlayConfig`);
            None for :func:`default_self_play` of the game.
        network: the network (:class:`~mcts_agent.learning.network.NetworkConfig`);
            None for :func:`~mcts_agent.learning.network.default_network_config`
            of the encoding's shape.
        steps_per_generation: int >= 0, Adam steps a generation.
        batch_size: int >= 1, examples a step.
        learning_rate: Adam's learning rate.
        weight_decay: L2 coefficient (Adam's ``weight_decay``).
        buffer_capacity: int >= 1, positions the replay buffer keeps.
        evaluation_games: int >= 0, games in each seat of each evaluation
            match (against the previous network and against plain UCT); 0
            for no evaluation.
        evaluation_iterations: int >= 1, iterations of the evaluation
            searches (both sides), or None for the self-play iterations.
        uct_exploration: c of the plain UCT opponent, or None for the
            game's (:func:`~mcts_agent.evaluation.default_exploration`: 2*sqrt(2)).
        evaluation_opening_plies: int >= 0, uniformly random moves that start
            each evaluation game (``play_match``'s ``opening_plies``): the
            network's searches are deterministic, so without them a match
            would repeat one game per seat.
        augment: use the encoding's ``symmetries`` (if it has them) on
            every sampled example.
        max_moves: int >= 1 or None: cut self-play games after so many moves.
        seed: int >= 0, the run's seed.
    """

    generations: int | None = 10
    minutes: float | None = None
    games_per_generation: int = 20
    self_play: SelfPlayConfig | None = None
    network: NetworkConfig | None = None
    steps_per_generation: int = 100
    batch_size: int = 64
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    buffer_capacity: int = 20_000
    evaluation_games: int = 10
    evaluation_iterations: int | None = None
    uct_exploration: float | None = None
    evaluation_opening_plies: int = 2
    augment: bool = True
    max_moves: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.generations is None and self.minutes is None:
            raise ValueError("give generations or minutes (or both): the run must end")
        checks = (
            ("generations", self.generations, 1, True),
            ("games_per_generation", self.games_per_generation, 1, False),
            ("steps_per_generation", self.steps_per_generation, 0, False),
            ("batch_size", self.batch_size, 1, False),
            ("buffer_capacity", self.buffer_capacity, 1, False),
            ("evaluation_games", self.evaluation_games, 0, False),
            ("evaluation_iterations", self.evaluation_iterations, 1, True),
            ("evaluation_opening_plies", self.evaluation_opening_plies, 0, False),
            ("max_moves", self.max_moves, 1, True),
            ("seed", self.seed, 0, False),
        )
        for name, value, low, optional in checks:
            if value is None and optional:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                rule = f"an int >= {low}" + (" or None" if optional else "")
                raise ValueError(f"{name} must be {rule}, got {value!r}")
        if self.minutes is not None and not (
            isinstance(self.minutes, int | float) and self.minutes > 0
        ):
            raise ValueError(f"minutes must be a number > 0 or None, got {self.minutes!r}")
        if not (self.learning_rate > 0 and self.weight_decay >= 0):
            raise ValueError(
                f"learning_rate must be > 0 and weight_decay >= 0, got {self.learning_rate!r} "
                f"and {self.weight_decay!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """Returns the settings as plain values (nested configs as dicts)."""
        return asdict(self)


class GenerationRecord(NamedTuple):
    """What one generation did and measured (one line of ``mcts-agent train``).

    Attributes:
        generation: 1 for the first.
        games: self-play games played.
        positions: positions they added to the buffer.
        buffer: positions in the buffer after them.
        policy_loss: mean cross-entropy of the policy to its targets over
            the generation's training steps (nan without steps).
        value_loss: mean squared error of the value to the outcomes, likewise.
        score_vs_previous: the new network's score against the previous
            one, in [0, 1] (None without evaluation).
        tally_vs_previous: ``[wins, draws, losses]`` of that match, or None.
        score_vs_uct: the new network's score against plain UCT.
        tally_vs_uct: ``[wins, draws, losses]`` of that match, or None.
        seconds: the generation's duration.
        elapsed: the run's duration at its end.
    """

    generation: int
    games: int
    positions: int
    buffer: int
    policy_loss: float
    value_loss: float
    score_vs_previous: float | None
    tally_vs_previous: list[int] | None
    score_vs_uct: float | None
    tally_vs_uct: list[int] | None
    seconds: float
    elapsed: float


@dataclass
class TrainingResult:
    """What :func:`train` returns.

    Attributes:
        network: the trained :class:`~mcts_agent.learning.network.PolicyValueNet`.
        encoding: its encoding.
        history: one :class:`GenerationRecord` per generation.
        config: the run's settings, defaults filled in.
        game: the game's name.
    """

    network: Any
    encoding: Encoding
    history: list[GenerationRecord] = field(default_factory=list)
    config: TrainingConfig | None = None
    game: str = ""

    def evaluator(self, **options: Any) -> NetworkEvaluator:
        """Returns ``NetworkEvaluator(network, encoding, **options)``: the trained evaluator.

        Args:
            **options: ``label``, ``cache_size``, ``threads`` of
                :class:`~mcts_agent.learning.network_evaluator.NetworkEvaluator`.
        """
        return NetworkEvaluator(self.network, self.encoding, **options)


def default_self_play(encoding: Encoding, iterations: int = 50) -> SelfPlayConfig:
    """Returns the self-play settings used for a game when none are given.

    Dirichlet alpha ``min(1, 10 / num_actions)`` (AlphaZero's rule of thumb:
    about 10 / the typical number of legal moves; 1.0 for tic-tac-toe and
    connect four, OpenSpiel's default), fraction 0.25, PUCT's c 1.5, and
    temperature 1 for the first ``max(2, num_actions // 2)`` moves (4 in
    tic-tac-toe, 3 in connect four).
    """
    return SelfPlayConfig(
        iterations=iterations,
        exploration=1.5,
        dirichlet_alpha=min(1.0, 10.0 / encoding.num_actions),
        noise_fraction=0.25,
        temperature_moves=max(2, encoding.num_actions // 2),
    )


def losses(network: Any, batch: Batch) -> tuple[Any, Any]:
    """Returns AlphaZero's two losses of ``network`` on ``batch``, as scalar tensors.

    Args:
        network: a :class:`~mcts_agent.learning.network.PolicyValueNet`.
        batch: observations ``(B, *shape)``, policy targets ``(B, num_actions)``,
            outcomes ``(B,)`` (numpy arrays).

    Returns:
        ``(policy_loss, value_loss)``: the mean cross-entropy
        ``-sum(pi * log_softmax(logits))`` and the mean of ``(z - v)^2``.
    """
    observations = torch.from_numpy(np.ascontiguousarray(batch.observations))
    policies = torch.from_numpy(np.ascontiguousarray(batch.policies))
    outcomes = torch.from_numpy(np.ascontiguousarray(batch.outcomes))
    logits, values = network(observations)
    policy_loss = -(policies * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
    value_loss = ((values - outcomes) ** 2).mean()
    return policy_loss, value_loss


def evaluate_losses(network: Any, batch: Batch) -> tuple[float, float]:
    """Returns :func:`losses` as floats, computed without gradients (the network left in eval)."""
    network.eval()
    with torch.inference_mode():
        policy_loss, value_loss = losses(network, batch)
    return float(policy_loss), float(value_loss)


def _augmented(encoding: Encoding, batch: Batch, rng: np.random.Generator) -> Batch:
    """``batch`` with each example in one of the encoding's symmetries, drawn by ``rng``."""
    symmetries = getattr(encoding, "symmetries", None)
    if symmetries is None:
        return batch
    observations, policies = [], []
    choices = None
    for observation, policy in zip(batch.observations, batch.policies, strict=True):
        pairs = symmetries(observation, policy)
        if choices is None:
            choices = rng.integers(0, len(pairs), size=len(batch.outcomes))
        chosen = pairs[choices[len(observations)]]
        observations.append(chosen[0])
        policies.append(chosen[1])
    return Batch(np.stack(observations), np.stack(policies), batch.outcomes)


def _game_setup(game: Any) -> tuple[Any, Any, Encoding, Any]:
    """``(model, initial_state, encoding, model_game)`` of a game to train on.

    The model game (a :class:`~mcts_agent.evaluation.ModelGame` on the same
    model and initial state) is where the evaluation matches are played.
    """
    from mcts_agent.evaluation import ModelGame

    encoding = encoding_for_game(game)
    model = getattr(game, "model", None)
    if isinstance(game, ModelGame):
        initial_state = game.initial_state
    elif model is not None:  # a PettingZoo game planned on our model
        env = game.make_env()
        env.reset(seed=0)
        initial_state = game.state_of(env)
        env.close()
    else:  # planned through the adapter: the encoding made its env and model
        model = encoding.model
        initial_state = model.state_of(encoding.env)
    model_game = ModelGame(model, initial_state, game.name, tuple(game.seat_names))
    return model, initial_state, encoding, model_game


def _derived_seed(seed: int, *parts: int) -> int:
    """A seed for one game or match of the run, from the run's seed (same inputs, same seed)."""
    state = np.random.SeedSequence([seed, *parts]).generate_state(1, dtype=np.uint64)
    return int(state[0]) % _SEED_MODULUS


def _hashable(state: Any) -> bool:
    try:
        hash(state)
    except TypeError:
        return False
    return isinstance(state, int | tuple)  # cheap to hash and compare (our models' states)


def _score(tally: Any) -> float:
    """The match's score, draws counted half (ratings.score_interval's)."""
    from mcts_agent.evaluation.ratings import score_interval

    return score_interval(tally.wins, tally.draws, tally.losses)[0]


def _evaluate(
    model_game: Any,
    network: Any,
    previous: Any,
    encoding: Encoding,
    config: TrainingConfig,
    self_play: SelfPlayConfig,
    generation: int,
) -> tuple[Any, Any]:
    """The tallies of the new network against the previous one and against plain UCT."""
    from mcts_agent.evaluation import MCTSPlayer, default_exploration, play_match

    iterations = config.evaluation_iterations or self_play.iterations
    cache = 100_000 if _hashable(model_game.initial_state) else 0

    def network_player(net: Any, label: str) -> Any:
        evaluator = NetworkEvaluator(net, encoding, label=label, cache_size=cache)
        return MCTSPlayer(
            iterations,
            exploration=self_play.exploration,
            selection=self_play.selection,
            evaluator=evaluator,
        )

    new = network_player(network, f"generation {generation}")
    old = network_player(previous, f"generation {generation - 1}")
    uct_c = config.uct_exploration
    uct = MCTSPlayer(
        iterations, exploration=default_exploration(model_game) if uct_c is None else uct_c
    )
    tallies = []
    for index, opponent in enumerate((old, uct), 1):
        match = play_match(
            model_game,
            new,
            opponent,
            config.evaluation_games,
            seed=_derived_seed(config.seed, generation, index),
            opening_plies=config.evaluation_opening_plies,
            workers=1,
        )
        tallies.append(match.tally())
    return tallies[0], tallies[1]


def train(
    game: Any,
    config: TrainingConfig | None = None,
    *,
    out: str | os.PathLike | None = None,
    network: Any = None,
    progress: bool = False,
    on_generation: Callable[[GenerationRecord], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> TrainingResult:
    """Trains a policy-value network by self-play on ``game`` (see the module docstring).

    Args:
        game: a game of :func:`~mcts_agent.evaluation.make_game` or its name
            (``"tictactoe"``, ``"connect_four"``, ``"classic/connect_four-v3"``,
            a PettingZoo game planned through the adapter).
        config: the run's settings (default: ``TrainingConfig()``).
        out: the checkpoint written after each generation, or None.
        network: a :class:`~mcts_agent.learning.network.PolicyValueNet` to
            continue training (its weights are changed in place), or None
            for a new one.
        progress: show a tqdm progress bar (self-play games; the time with
            ``minutes`` alone).
        on_generation: called with each :class:`GenerationRecord` as its
            generation ends (after the checkpoint is written).
        clock: seconds, for ``minutes`` and the records' durations.

    Returns:
        The :class:`TrainingResult`.

    Raises:
        ValueError: if the game has no encoding
            (:func:`~mcts_agent.learning.encoding.encoding_for_game`), or
            ``network`` does not fit its encoding.
        OSError: if the checkpoint cannot be written.
    """
    from tqdm.auto import tqdm

    if isinstance(game, str):
        from mcts_agent.evaluation import make_game

        game = make_game(game)
    config = TrainingConfig() if config is None else config
    model, initial_state, encoding, model_game = _game_setup(game)
    self_play = config.self_play or default_self_play(encoding)
    network_config = config.network or default_network_config(encoding.shape)
    config = replace(config, self_play=self_play, network=network_config)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            if network is None:
                network = PolicyValueNet(encoding.shape, encoding.num_actions, network_config)
            elif (tuple(network.input_shape), network.num_actions) != (
                tuple(encoding.shape),
                encoding.num_actions,
            ):
                raise ValueError(
                    f"the network reads {network.input_shape} and scores {network.num_actions} "
                    f"actions; {game.name}'s encoding is {encoding.shape}, "
                    f"{encoding.num_actions} actions"
                )
            else:
                network_config = network.config
                config = replace(config, network=network_config)
            result = TrainingResult(network, encoding, [], config, game.name)
            generations = config.generations or math.inf
            games_total = (
                config.generations * config.games_per_generation if config.generations else None
            )
            with tqdm(
                total=games_total if games_total else round(config.minutes * 60),
                unit="game" if games_total else "s",
                disable=not progress,
                leave=False,
            ) as bar:
                _run(
                    result, model, initial_state, model_game, config, generations, out,
                    bar, games_total is not None, on_generation, clock,
                )  # fmt: skip
    finally:
        torch.set_num_threads(threads)
    network.eval()
    return result


def _run(
    result: TrainingResult,
    model: Any,
    initial_state: Any,
    model_game: Any,
    config: TrainingConfig,
    generations: float,
    out: str | os.PathLike | None,
    bar: Any,
    count_games: bool,
    on_generation: Callable[[GenerationRecord], None] | None,
    clock: Callable[[], float],
) -> None:
    """The generations of :func:`train` (its arguments resolved)."""
    from mcts_agent.learning.checkpoints import save_checkpoint

    network, encoding = result.network, result.encoding
    self_play = config.self_play
    assert self_play is not None
    optimizer = torch.optim.Adam(
        network.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    buffer = ReplayBuffer(config.buffer_capacity, encoding.shape, encoding.num_actions)
    rng = np.random.default_rng(config.seed)
    cache = 100_000 if _hashable(initial_state) else 0
    budget = None if config.minutes is None else config.minutes * 60.0
    start = clock()
    last_seconds = 0.0
    generation = 0
    while generation < generations:
        elapsed = clock() - start
        if budget is not None and generation > 0 and elapsed + last_seconds > budget:
            break
        generation += 1
        began = clock()
        previous = copy.deepcopy(network)
        evaluator = NetworkEvaluator(network, encoding, cache_size=cache)
        positions = 0
        for index in range(config.games_per_generation):
            seed = _derived_seed(config.seed, generation, 0, index)
            played = play_game(
                model, initial_state, encoding, evaluator, self_play, seed, config.max_moves
            )
            buffer.extend(played.examples)
            positions += len(played.examples)
            if count_games:
                bar.update(1)
            else:
                bar.update(min(round(clock() - start), bar.total) - bar.n)
        network.train()
        policy_sum = value_sum = 0.0
        for _ in range(config.steps_per_generation):
            batch = buffer.sample(config.batch_size, rng)
            if config.augment:
                batch = _augmented(encoding, batch, rng)
            policy_loss, value_loss = losses(network, batch)
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            policy_sum += float(policy_loss.detach())
            value_sum += float(value_loss.detach())
        network.eval()
        steps = config.steps_per_generation
        vs_previous = vs_uct = None
        if config.evaluation_games:
            vs_previous, vs_uct = _evaluate(
                model_game, network, previous, encoding, config, self_play, generation
            )
        now = clock()
        record = GenerationRecord(
            generation=generation,
            games=config.games_per_generation,
            positions=positions,
            buffer=len(buffer),
            policy_loss=policy_sum / steps if steps else math.nan,
            value_loss=value_sum / steps if steps else math.nan,
            score_vs_previous=None if vs_previous is None else _score(vs_previous),
            tally_vs_previous=None if vs_previous is None else list(vs_previous),
            score_vs_uct=None if vs_uct is None else _score(vs_uct),
            tally_vs_uct=None if vs_uct is None else list(vs_uct),
            seconds=now - began,
            elapsed=now - start,
        )
        last_seconds = record.seconds
        result.history.append(record)
        if out is not None:
            save_checkpoint(
                out,
                network,
                game=result.game,
                encoding=encoding,
                generation=generation,
                history=[r._asdict() for r in result.history],
                training=config.to_dict(),
            )
        if not count_games:
            bar.update(min(round(clock() - start), bar.total) - bar.n)
        if on_generation is not None:
            on_generation(record)
