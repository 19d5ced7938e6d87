"""The PettingZoo model of a hidden-information game it can re-deal: planned with ISMCTS.

``PettingZooModel(env)`` of one of
:data:`~mcts_agent.adapters.pettingzoo.hidden_information.PLANNED_GAMES`
(Leduc and Texas hold'em, limit and no limit, rock-paper-scissors) is a
:class:`PettingZooHiddenModel`: the same model, plus ``information_set`` and
``sample_world``, so :class:`~mcts_agent.search.MCTS` searches it with
information-set MCTS (``SPEC.md``, "Hidden information") instead of planning
on a copy that knows every card::

    env = leduc_holdem_v4.env()
    env.reset(seed=3)
    model = PettingZooModel(env)                  # a PettingZooHiddenModel
    state = model.state_of(env)
    model.information_set(state, "player_0")      # (('Q',), (), (), (1, 2))
    world = model.sample_world(state, env.agent_selection, random.Random(0))

Two-player games are planned with the mover's reward (they are zero-sum:
:func:`~mcts_agent.adapters.pettingzoo.known_games.is_known_zero_sum` counts
them), hold'em with more players with every player's reward (max^n,
:mod:`mcts_agent.maxn`).
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from pettingzoo import AECEnv

from mcts_agent.adapters.pettingzoo.checks import check_clone
from mcts_agent.adapters.pettingzoo.cloning import AttributesMethod
from mcts_agent.adapters.pettingzoo.hidden_information import planned_game
from mcts_agent.adapters.pettingzoo.model import PettingZooModel, PettingZooState
from mcts_agent.adapters.pettingzoo.reading import game_name

__all__ = ["PettingZooHiddenModel"]


class PettingZooHiddenModel(PettingZooModel):
    """:class:`PettingZooModel` of a re-dealt game, with ``information_set`` and ``sample_world``.

    Made by ``PettingZooModel(env)`` for the games of
    :data:`~mcts_agent.adapters.pettingzoo.hidden_information.PLANNED_GAMES`
    (module docstring there: what each game hides and how a world is drawn).
    The arguments are :class:`PettingZooModel`'s.

    With the built-in copy, the copies of RLCard's games hold a
    :class:`~mcts_agent.adapters.pettingzoo.hidden_information.GeneratorStandIn`
    in place of the env's random generator, which their steps never draw from
    (but for a split pot's odd chip with three players or more), and their
    legal actions are RLCard's list; the start-up clone check runs on those
    copies too (legal actions compared with the action mask).

    Raises:
        ValueError: for ``clone="replay"`` (a re-dealt world is not a replay of
            the env's actions from its seed), or as :class:`PettingZooModel`;
            while planning, if a copy draws from its stand-in (hold'em with
            three players or more, an odd split pot: the stand-in's message).
    """

    def __init__(self, env: AECEnv, **options: Any) -> None:
        if options.get("clone") == "replay":
            raise ValueError(
                f"{game_name(env)} is planned with information-set MCTS, whose worlds re-deal "
                "the cards a player has not seen; a world is then no replay of the env's "
                "actions from its seed: pass clone=None (a copy of the env's attributes) or "
                "clone=<function env -> independent copy>"
            )
        super().__init__(env, **options)
        game = planned_game(env)
        if game is None:  # PettingZooModel.__new__ makes this model for planned games only
            raise TypeError(f"{game_name(env)} is not a game PettingZooHiddenModel re-deals")
        self._hidden = game
        if self.clone_method == "attributes" and game.copy_memo is not None:
            # The start-up check above reseeded the copies' generators (chance found so is
            # refused); the copies planned on hold a stand-in instead: checked too.
            self._method = AttributesMethod(game.copy_memo)
            if game.legal_actions is not None:
                self._method.legal_actions = game.legal_actions  # checked against the mask
            check_clone(self, env)

    def information_set(self, state: PettingZooState, player: Hashable) -> Hashable:
        """Returns what ``player`` knows in ``state`` (hashable; ``hidden_information``).

        Raises:
            ValueError: if ``player`` is not one of ``possible_agents``.
        """
        self._require_player(player)
        return self._hidden.information_set(state.position.unwrapped, player)

    def sample_world(
        self, state: PettingZooState, player: Hashable, rng: random.Random
    ) -> PettingZooState:
        """Returns a state ``player`` cannot tell from ``state``, drawn uniformly from ``rng``.

        A new copy of ``state``'s game with what ``player`` has not seen
        re-dealt (``hidden_information``: the other hands and the deck; rock-
        paper-scissors' first move); ``state`` is not changed. The world has
        ``player``'s information set and legal actions.

        Raises:
            ValueError: if ``player`` is not one of ``possible_agents``.
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        self._require_player(player)
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        method = self._method
        env = method.load(state.position)
        self._scratch_holds = None
        self._hidden.redeal(env.unwrapped, player, rng)
        return self._state(env, method.commit(env, state.position, None), state.depth)

    def _require_player(self, player: Any) -> None:
        if player not in self.possible_agents:
            raise ValueError(f"player must be one of {list(self.possible_agents)}, got {player!r}")
