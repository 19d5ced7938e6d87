"""The network, its evaluator, checkpoints and reproducible training (PyTorch)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="mcts_agent.learning's networks need PyTorch")

from mcts_agent import MCTS  # noqa: E402
from mcts_agent.envs import connect_four, tic_tac_toe  # noqa: E402
from mcts_agent.evaluation import make_game  # noqa: E402
from mcts_agent.learning import (  # noqa: E402
    ConnectFourEncoding,
    NetworkConfig,
    NetworkEvaluator,
    PolicyValueNet,
    SelfPlayConfig,
    TicTacToeEncoding,
    TrainingConfig,
    load_checkpoint,
    load_evaluator,
    load_network,
    save_checkpoint,
    train,
)


def network(shape=(2, 3, 3), actions=9, config=None, seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(shape, actions, config)


def test_the_network_outputs_logits_and_a_value_in_minus_one_one():
    for shape, actions, kind in (((2, 3, 3), 9, "mlp"), ((2, 6, 7), 7, "conv")):
        net = network(shape, actions)
        assert net.config.kind == kind
        logits, value = net(torch.randn(5, *shape))
        assert logits.shape == (5, actions) and value.shape == (5,)
        assert bool(((value > -1) & (value < 1)).all())
    with pytest.raises(ValueError, match=r"\[C, H, W\]"):
        PolicyValueNet((18,), 9, NetworkConfig(kind="conv"))
    with pytest.raises(ValueError, match="kind"):
        NetworkConfig(kind="resnet")


def test_priors_are_a_softmax_over_the_legal_actions_only():
    net = network()
    evaluator = NetworkEvaluator(net, TicTacToeEncoding())
    state = tic_tac_toe.parse_board("XX.OO....")
    actions = tic_tac_toe.TicTacToeModel().actions(state)
    value, priors = evaluator(state, actions)
    assert len(priors) == len(actions) == 5
    assert sum(priors) == pytest.approx(1.0, abs=1e-12)
    with torch.inference_mode():
        logits, net_value = net(torch.from_numpy(TicTacToeEncoding().encode(state)[None]))
    legal = logits[0, list(actions)].double()
    assert priors == pytest.approx(torch.softmax(legal, 0).tolist(), abs=1e-6)
    assert value == pytest.approx(float(net_value[0]), abs=1e-6)
    assert -1.0 < value < 1.0


def test_the_batch_equals_the_single_calls():
    evaluator = NetworkEvaluator(network((2, 6, 7), 7), ConnectFourEncoding())
    model = connect_four.ConnectFourModel()
    states = [connect_four.EMPTY_BOARD]
    for column in (3, 3, 2, 6, 0):
        states.append(model.step(states[-1], column).next_state)
    actions_list = [model.actions(s) for s in states]
    batched = evaluator.batch(states, actions_list)
    assert len(batched) == len(states)
    for state, actions, (value, priors) in zip(states, actions_list, batched, strict=True):
        single_value, single_priors = evaluator(state, actions)
        assert value == pytest.approx(single_value, abs=1e-5)
        assert priors == pytest.approx(single_priors, abs=1e-5)
    assert evaluator.batch([], []) == []


def test_a_cached_evaluator_answers_as_the_network():
    net = network()
    plain = NetworkEvaluator(net, TicTacToeEncoding())
    cached = NetworkEvaluator(net, TicTacToeEncoding(), cache_size=2)
    model = tic_tac_toe.TicTacToeModel()
    for board in ("XX.OO....", "X........", "XX.OO....", ".........", "X........"):
        state = tic_tac_toe.parse_board(board)
        assert cached(state, model.actions(state)) == plain(state, model.actions(state))
    assert len(cached._cache) == 2


def test_the_evaluator_guides_the_search_with_leaf_batching():
    evaluator = NetworkEvaluator(network(), TicTacToeEncoding())
    state = tic_tac_toe.parse_board("XX.OO....")
    for leaf_batch in (1, 4):
        planner = MCTS(
            tic_tac_toe.TicTacToeModel(),
            iterations=300,
            selection="puct",
            evaluator=evaluator,
            leaf_batch=leaf_batch,
            seed=0,
        )
        assert planner(state) == 2  # the win, found through the untrained network


def test_a_checkpoint_round_trip_gives_the_same_outputs(tmp_path):
    net = network((2, 6, 7), 7, NetworkConfig(kind="conv", hidden=16, channels=8, blocks=1))
    path = tmp_path / "net.pt"
    history = [{"generation": 1, "policy_loss": 1.5, "tally_vs_uct": [3, 1, 2]}]
    save_checkpoint(
        path, net, game="connect_four", encoding=ConnectFourEncoding(), generation=1,
        history=history, training={"seed": 0},
    )  # fmt: skip
    checkpoint = load_checkpoint(path)
    assert (checkpoint.game, checkpoint.encoding, checkpoint.generation) == (
        "connect_four", "connect_four", 1,
    )  # fmt: skip
    assert checkpoint.input_shape == (2, 6, 7) and checkpoint.num_actions == 7
    assert checkpoint.network == {"kind": "conv", "hidden": 16, "channels": 8, "blocks": 1}
    assert checkpoint.history == tuple(history)
    loaded, _ = load_network(path)
    x = torch.randn(4, 2, 6, 7)
    with torch.inference_mode():
        for a, b in zip(net.eval()(x), loaded(x), strict=True):
            assert torch.equal(a, b)
    evaluator = load_evaluator(path, "classic/connect_four-v3")  # the same model and encoding
    assert isinstance(evaluator, NetworkEvaluator) and evaluator.label == str(path)
    state = connect_four.parse_board("." * 35 + "XXXOOO.")
    assert evaluator(state, (0, 1, 2, 3, 4, 5, 6)) == NetworkEvaluator(net, ConnectFourEncoding())(
        state, (0, 1, 2, 3, 4, 5, 6)
    )


def test_loading_says_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        load_evaluator(tmp_path / "missing.pt", "tictactoe")
    junk = tmp_path / "junk.pt"
    junk.write_text("not a network")
    with pytest.raises(ValueError, match="not a checkpoint of mcts-agent train"):
        load_checkpoint(junk)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(ValueError, match="format None"):
        load_checkpoint(other)
    path = tmp_path / "ttt.pt"
    save_checkpoint(path, network(), game="tictactoe", encoding=TicTacToeEncoding())
    with pytest.raises(ValueError, match=r"trained on tictactoe .* connect_four needs encoding"):
        load_evaluator(path, make_game("connect_four"))
    with pytest.raises(ValueError, match="no encoding"):
        load_evaluator(path, "classic/chess-v6")


def test_one_seed_and_fixed_generations_give_identical_weights():
    config = TrainingConfig(
        generations=2,
        games_per_generation=2,
        steps_per_generation=4,
        batch_size=16,
        evaluation_games=1,
        self_play=SelfPlayConfig(iterations=8, temperature_moves=2),
        network=NetworkConfig(kind="conv", hidden=16, channels=4, blocks=1),
        seed=3,
    )
    first, second = train("connect_four", config), train("connect_four", config)
    for name, tensor in first.network.state_dict().items():
        assert torch.equal(tensor, second.network.state_dict()[name]), name
    strip = [r._replace(seconds=0, elapsed=0) for r in first.history]
    assert strip == [r._replace(seconds=0, elapsed=0) for r in second.history]
    assert [r.generation for r in first.history] == [1, 2]
    assert first.history[0].tally_vs_uct is not None and sum(first.history[0].tally_vs_uct) == 2
    other = train("connect_four", TrainingConfig(**{**config.__dict__, "seed": 4}))
    assert any(
        not torch.equal(t, other.network.state_dict()[n])
        for n, t in first.network.state_dict().items()
    )


def test_training_writes_a_checkpoint_after_each_generation(tmp_path):
    path = tmp_path / "net.pt"
    seen = []
    result = train(
        "tictactoe",
        TrainingConfig(
            generations=3,
            games_per_generation=6,
            steps_per_generation=30,
            evaluation_games=0,
            self_play=SelfPlayConfig(iterations=20),
            seed=0,
        ),
        out=path,
        on_generation=lambda record: seen.append(load_checkpoint(path).generation),
    )
    assert seen == [1, 2, 3]
    checkpoint = load_checkpoint(path)
    assert [h["generation"] for h in checkpoint.history] == [1, 2, 3]
    assert checkpoint.training["self_play"]["iterations"] == 20
    assert result.history[0].score_vs_uct is None  # no evaluation asked
    assert result.history[-1].policy_loss < result.history[0].policy_loss


def test_training_config_refuses_a_run_without_an_end():
    with pytest.raises(ValueError, match="generations or minutes"):
        TrainingConfig(generations=None)
    with pytest.raises(ValueError, match="games_per_generation"):
        TrainingConfig(games_per_generation=0)
