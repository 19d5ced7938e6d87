"""The env's view of a model state, for evaluators written against observations.

A network trained on an env's observations wants, at each node, what the env
would show the player to move: its observation and its action mask. The
search calls an evaluator with the model's state and actions
(``evaluator(state, actions)``, :mod:`mcts_agent.evaluator`); these helpers
convert:

* :meth:`mcts_agent.adapters.PettingZooModel.env_view` and
  :meth:`mcts_agent.adapters.GymnasiumModel.env_view` return the
  :class:`EnvView` of one state;
* :class:`EnvViewEvaluator` wraps ``network(observation, action_mask) ->
  Evaluation(value, priors over the whole action space)`` into an evaluator
  of one model's states, picking the legal actions' priors.

:class:`~mcts_agent.agent.MCTSAgent` binds an ``EnvViewEvaluator`` to the
model of each env it plans on (PettingZoo envs are then planned through
``PettingZooModel``, also tic-tac-toe and connect four; Gymnasium envs
through ``GymnasiumModel``)::

    def network(observation, action_mask):       # e.g. a torch model behind it
        value, logits = net(observation)
        return Evaluation(value, softmax(logits) * action_mask)

    agent = MCTSAgent(800, selection="puct", evaluator=EnvViewEvaluator(network))

Used directly: ``MCTS(model, 800, selection="puct",
evaluator=EnvViewEvaluator(network).bind(model))``.

Gymnasium envs have no ``observe``: ``GymnasiumModel`` keeps in each state
the observation its step returned (and reads the live position's from the
envs it knows or an env's ``_get_obs()``), and shows it through the live
env's stateless observation wrappers. A plain evaluator there receives
``GymnasiumState``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from mcts_agent.evaluator import Evaluation, Evaluator

__all__ = ["EnvView", "EnvViewEvaluator"]


class EnvView(NamedTuple):
    """What the env shows the player to move in one state.

    Attributes:
        observation: the env's observation for that player (PettingZoo:
            ``env.observe(agent)``, or its ``"observation"`` entry when the
            observation is a dict with an ``"action_mask"``, as in PettingZoo's
            classic games; Gymnasium: what ``env.step`` returned on the way
            to the state).
        action_mask: numpy int8 array, shape ``[n]`` for a ``Discrete(n)``
            action space (Gymnasium ``MultiDiscrete``: one entry per
            combination): 1 for the legal actions of the state, 0 elsewhere.
            Entry ``i`` is action ``i`` (PettingZoo), action
            ``model.action_index(a) == i`` (Gymnasium: ``a - start``).
    """

    observation: Any
    action_mask: np.ndarray


class EnvViewEvaluator:
    """An evaluator written against env views: ``network(observation, action_mask)``.

    Args:
        network: ``(observation, action_mask) -> Evaluation(value, priors)``,
            ``value`` from the point of view of the player to move (or None
            to roll out), ``priors`` over the env's whole action space
            (shape of the mask, indexed as the mask; entries of illegal
            actions are ignored) or None for uniform priors.

    Raises:
        TypeError: if ``network`` is not callable.
    """

    def __init__(self, network: Callable[[Any, np.ndarray], Evaluation]) -> None:
        if not callable(network):
            raise TypeError(
                f"network must be a callable (observation, action_mask) -> Evaluation, got "
                f"{network!r}"
            )
        self.network = network

    def bind(self, model: Any) -> Evaluator:
        """Returns the evaluator of ``model``'s states.

        Args:
            model: a model with ``env_view(state) -> EnvView`` (``PettingZooModel``,
                ``GymnasiumModel``) and, if its actions are not the mask's
                indices, ``action_index(action) -> int`` (``GymnasiumModel``).

        Returns:
            ``evaluator(state, actions) -> Evaluation`` with the legal actions'
            priors, in the order of ``actions``.

        Raises:
            TypeError: if ``model`` has no ``env_view``.
        """
        env_view = getattr(model, "env_view", None)
        if not callable(env_view):
            raise TypeError(
                f"EnvViewEvaluator needs a model with env_view(state) (PettingZooModel, "
                f"GymnasiumModel); "
                f"{type(model).__name__} has none"
            )
        network = self.network
        action_index = getattr(model, "action_index", None)

        def evaluator(state: Any, actions: Sequence[Any]) -> Evaluation:
            value, priors = network(*env_view(state))
            if priors is not None:
                if action_index is None:
                    priors = [priors[a] for a in actions]
                else:
                    priors = [priors[action_index(a)] for a in actions]
            return Evaluation(value, priors)

        return evaluator

    def __call__(self, state: Any, actions: Sequence[Any]) -> Evaluation:
        """Unbound: raises TypeError (``bind`` it to a model first)."""
        raise TypeError(
            "an EnvViewEvaluator must be bound to the model it evaluates: pass "
            "EnvViewEvaluator(network).bind(model) to MCTS (MCTSAgent binds it itself)"
        )
