"""Every player's results in games of n players (mcts_agent.evaluation.multiplayer, the CLI)."""

import json

import pytest

from mcts_agent.cli import main
from mcts_agent.evaluation import MCTSPlayer, RandomPlayer
from mcts_agent.evaluation.multiplayer import make_multiplayer_game, play_multiplayer


def test_three_in_a_row_rotates_seats_and_reports_every_player():
    game = make_multiplayer_game("three_in_a_row")
    players = [MCTSPlayer(300), RandomPlayer(), RandomPlayer()]
    result = play_multiplayer(game, players, ["mcts", "random a", "random b"], 3, seed=0)
    assert result.seatings == ((0, 1, 2), (1, 2, 0), (2, 0, 1))  # every player in every seat
    for returns in result.returns:  # the game's rewards sum to 0
        assert sum(returns) == pytest.approx(0.0)
    rows = result.results()
    assert [row.name for row in rows] == ["mcts", "random a", "random b"]
    assert rows[0].wins == 3 and rows[0].mean_return == 1.0  # MCTS wins every game
    assert rows[1].wins + rows[2].wins == 0
    assert "mcts" in result.table().splitlines()[2]


def test_the_cooperative_game_is_a_shared_win():
    game = make_multiplayer_game("shared_total")
    result = play_multiplayer(game, [MCTSPlayer(600), MCTSPlayer(600)], ["a", "b"], 2, seed=1)
    assert [(row.mean_return, row.wins, row.shared_wins) for row in result.results()] == [
        (1.0, 0, 2),
        (1.0, 0, 2),
    ]


def test_bad_arguments_are_errors():
    game = make_multiplayer_game("three_in_a_row")
    with pytest.raises(ValueError, match=r"has 3 seats \[1, 2, 3\]; got 2 players"):
        play_multiplayer(game, [RandomPlayer()] * 2, ["a", "b"], 1)
    with pytest.raises(ValueError, match=r"unknown multiplayer game 'go'"):
        make_multiplayer_game("go")


def test_the_multiplayer_command(tmp_path, capsys):
    path = tmp_path / "result.json"
    argv = ["multiplayer", "--game", "three_in_a_row", "--agents", "mcts:iterations=200"]
    assert main([*argv, "random", "random", "--json", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "three_in_a_row: 3 games, seats [1, 2, 3] rotated"
    assert lines[2].split()[:2] == ["mcts:iterations=200", "+1.000"]
    saved = json.loads(path.read_text())
    assert [row["wins"] for row in saved["players"]] == [3, 0, 0]
    with pytest.raises(SystemExit):
        main(["multiplayer", "--game", "three_in_a_row", "--agents", "perfect", "random", "random"])
    assert "a game of n players takes random or mcts agents" in capsys.readouterr().err
