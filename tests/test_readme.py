"""The README's commands and Python snippets work as written."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def code_blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_ci_runs_exactly_the_readme_test_command():
    install_and_test = [line for line in code_blocks("bash")[1].splitlines() if line.strip()]
    assert len(install_and_test) == 1 and "pytest" in install_and_test[0]
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install_and_test[0] in ci_lines


def test_the_main_command_evaluates_on_pettingzoo_tictactoe():
    main_command = code_blocks("bash")[0]
    expected = "mcts-agent evaluate --game classic/tictactoe-v3 --opponent random perfect"
    assert expected in main_command


@pytest.mark.parametrize("snippet", code_blocks("python"), ids=lambda s: s.splitlines()[0][:40])
def test_python_snippet_runs(snippet, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a snippet may write files
    namespace = {"__name__": "__readme__"}
    exec(compile(snippet, "README.md", "exec"), namespace)
    if "plot_root" in snippet:  # the files the snippet says it writes
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "convergence.png",
            "root.png",
            "tree.dot",
        ]
    if 'parse_board("XX.OO....")' in snippet:
        assert namespace["action"] == 2  # what the quick start says it plays
