"""Plots of a search (mcts_agent.plots) and the trace they draw from (mcts_agent.trace)."""

import math

import pytest
from matplotlib.patches import Rectangle

from mcts_agent import MCTS
from mcts_agent.envs import connect_four, tic_tac_toe
from mcts_agent.plots import (
    BAR_ACTIONS,
    CONVERGENCE_ACTIONS,
    BoardLayout,
    plot_convergence,
    plot_root,
)
from mcts_agent.trace import RootTrace

C = 2 * math.sqrt(2)


def traced(model, state, iterations, **options):
    trace = RootTrace(**options)
    planner = MCTS(model, iterations, exploration=C, seed=0, on_iteration=trace)
    planner.search(state)
    trace.finish(planner)
    return planner, trace


def test_the_trace_records_every_early_iteration_then_about_twenty_a_decade():
    planner, trace = traced(tic_tac_toe.TicTacToeModel(), tic_tac_toe.EMPTY_BOARD, 1000)
    assert trace.iterations[:20] == list(range(1, 21))
    assert trace.iterations[-1] == 1000
    later = trace.iterations[20:]
    assert all(b / a <= 10 ** (1 / 20) + 1 / a for a, b in zip(later, later[1:], strict=False))
    assert abs(len(trace.iterations) - 54) <= 3  # 20 + 20 * log10(1000 / 20), about
    # A new tree: the root's children hold every iteration's visit.
    assert [sum(counts) for counts in trace.visit_counts] == trace.iterations
    summary = planner.summary()
    assert trace.actions == summary.actions
    assert trace.visit_counts[-1] == summary.visit_counts
    assert trace.values[-1] == pytest.approx(summary.values, nan_ok=True)
    assert trace.action == summary.action
    assert math.isnan(trace.values[0][1]) and trace.visit_counts[0][1] == 0  # untried at first


def test_a_new_search_starts_a_new_trace_and_finish_needs_one():
    planner, trace = traced(tic_tac_toe.TicTacToeModel(), tic_tac_toe.EMPTY_BOARD, 50)
    planner.search(tic_tac_toe.parse_board("X........"), iterations=30)
    trace.finish(planner)
    assert trace.iterations[0] == 1 and trace.iterations[-1] == 30
    assert len(trace.actions) == 8
    untraced = MCTS(tic_tac_toe.TicTacToeModel(), 10)
    untraced.search(tic_tac_toe.EMPTY_BOARD)
    with pytest.raises(ValueError, match="recorded no iteration: pass it as the planner's"):
        RootTrace().finish(untraced)
    with pytest.raises(ValueError, match="points_per_decade must be >= 1"):
        RootTrace(0)


def texts(ax):
    return [t.get_text() for t in ax.texts]


def test_a_tic_tac_toe_heat_map_shows_each_move_its_marks_and_the_move_played():
    state = tic_tac_toe.parse_board("XX.OO....")
    planner = MCTS(tic_tac_toe.TicTacToeModel(), 2000, exploration=C, seed=0)
    planner.search(state)
    summary = planner.summary()
    figure = plot_root(summary, tic_tac_toe.board_layout(state))
    visits, values = figure.axes[:2]  # then the two colour bars
    assert len(figure.axes) == 4
    for ax in (visits, values):
        shown = texts(ax)
        assert shown.count("X") == 2 and shown.count("O") == 2
        for n, q in zip(summary.visit_counts, summary.values, strict=True):
            assert f"{n}\n{q:+.2f}" in shown
        (outline,) = [p for p in ax.patches if isinstance(p, Rectangle)]
        x, y = outline.get_xy()
        assert (round(x + outline.get_width() / 2), round(y + outline.get_height() / 2)) == (2, 0)
    assert summary.action == 2
    # The colours: the cell of move 2 holds its share of the visits and its value.
    share = visits.images[0].get_array()
    assert share[0, 2] == pytest.approx(summary.visit_counts[0] / 2000)
    assert values.images[0].get_array()[0, 2] == pytest.approx(summary.values[0])
    assert share.mask[0, 0]  # an occupied cell has no colour


def test_a_connect_four_heat_map_colours_each_columns_free_cells():
    state = connect_four.parse_board("." * 35 + "..OXX..")
    layout = connect_four.board_layout(state)
    assert layout.cells[3] == tuple((row, 3) for row in (4, 3, 2, 1, 0))  # landing cell first
    assert layout.cells[0][0] == (5, 0) and layout.marks == {(5, 2): "O", (5, 3): "X", (5, 4): "X"}
    planner = MCTS(connect_four.ConnectFourModel(), 500, exploration=C, seed=0)
    planner.search(state)
    figure = plot_root(planner.summary(), layout)
    (outline,) = [p for p in figure.axes[0].patches if isinstance(p, Rectangle)]
    column = planner.best_action()
    assert outline.get_x() == pytest.approx(column - 0.46)
    assert outline.get_height() == pytest.approx(len(layout.cells[column]) - 1 + 0.92)


def test_bars_show_the_most_visited_actions_and_the_move_played_darker():
    planner = MCTS(connect_four.ConnectFourModel(), 300, exploration=C, seed=0)
    planner.search(connect_four.EMPTY_BOARD)
    summary = planner.summary()
    figure = plot_root(summary, labels=lambda a: f"col {a}")
    visits, values = figure.axes
    heights = [bar.get_height() for bar in visits.patches]
    assert heights == sorted(summary.visit_counts, reverse=True)
    names = [t.get_text() for t in values.get_xticklabels()]
    assert names[0] == f"col {summary.action}"
    colours = {bar.get_facecolor() for bar in visits.patches[1:]}
    assert len(colours) == 1 and visits.patches[0].get_facecolor() not in colours


def test_bars_keep_the_most_visited_of_many_actions():
    from scripted_games import ScriptedGame

    game = ScriptedGame({"": (1, {i: (str(i), i / 40, True) for i in range(40)})})
    planner = MCTS(game, 400, seed=0)
    planner.search("")
    figure = plot_root(planner.summary())
    assert len(figure.axes[0].patches) == BAR_ACTIONS
    assert "(20 fewer visited actions not shown)" in figure.texts[0].get_text()


def test_a_layout_must_place_every_action():
    state = tic_tac_toe.parse_board(".........")
    planner = MCTS(tic_tac_toe.TicTacToeModel(), 50, seed=0)
    planner.search(state)
    layout = BoardLayout((3, 3), {0: ((0, 0),)}, {})
    with pytest.raises(ValueError, match=r"no cell for the actions \[1, 2"):
        plot_root(planner.summary(), layout)


def test_the_convergence_plot_draws_each_action_against_the_iterations(tmp_path):
    planner, trace = traced(connect_four.ConnectFourModel(), connect_four.EMPTY_BOARD, 2000)
    figure = plot_convergence(trace)
    shares, values = figure.axes
    assert len(shares.lines) == len(values.lines) == min(7, CONVERGENCE_ACTIONS)
    (played,) = [line for line in shares.lines if line.get_label().endswith("(played)")]
    assert played.get_label() == f"{planner.best_action()} (played)"
    assert played.get_linewidth() > max(
        line.get_linewidth() for line in shares.lines if line is not played
    )
    assert list(played.get_xdata()) == trace.iterations
    index = trace.actions.index(trace.action)
    assert played.get_ydata()[-1] == pytest.approx(trace.visit_counts[-1][index] / 2000)
    assert shares.get_xscale() == "log"
    path = tmp_path / "convergence.png"
    figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="recorded no iteration"):
        plot_convergence(RootTrace())
