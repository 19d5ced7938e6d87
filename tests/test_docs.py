"""The documentation site (``docs/``, ``mkdocs.yml``): its code runs as written.

Every ```python block of a page runs, in order, in one namespace per page (a
later block may use what an earlier one made); every ```pycon block is a
doctest run in that namespace. Commands to copy (```bash) are not run, but
each ``mcts-agent`` command must parse with the CLI's own parser.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil
import re
import shlex

import pytest

import mcts_agent
from mcts_agent.cli import build_parser

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def blocks(page: pathlib.Path) -> list[tuple[str, str]]:
    return BLOCK.findall(page.read_text())


def page_id(page: pathlib.Path) -> str:
    return str(page.relative_to(DOCS))


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_the_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert len(links) > 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_every_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    assert PAGES, "no pages found"
    missing = [page_id(page) for page in PAGES if f": {page_id(page)}" not in config]
    assert missing == []


RUNNABLE = [page for page in PAGES if any(lang in ("python", "pycon") for lang, _ in blocks(page))]


@pytest.mark.parametrize("page", RUNNABLE, ids=page_id)
def test_page_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block may write files
    namespace: dict = {"__name__": "__docs__"}
    for number, (language, code) in enumerate(blocks(page), 1):
        name = f"{page_id(page)}, block {number}"
        if language == "python":
            exec(compile(code, name, "exec"), namespace)
        elif language == "pycon":
            test = doctest.DocTestParser().get_doctest(code, namespace, name, str(page), 0)
            report: list[str] = []
            runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
            runner.run(test, out=report.append, clear_globs=False)
            assert runner.failures == 0, "".join(report)
            namespace.update(test.globs)


COMMANDS = [
    line
    for page in PAGES
    for language, code in blocks(page)
    if language == "bash"
    for line in code.replace("\\\n", " ").splitlines()
    if line.startswith("mcts-agent ")
]


@pytest.mark.parametrize("command", COMMANDS, ids=[command[:60] for command in COMMANDS])
def test_cli_commands_parse(command):
    words = shlex.split(command)[1:]
    build_parser().parse_args(words)  # exits (SystemExit) on an unknown command or option


def test_the_api_reference_names_every_public_name():
    reference = (DOCS / "reference" / "mcts_agent.md").read_text()
    documented = set(re.findall(r"^::: mcts_agent\.(\w+)$", reference, flags=re.MULTILINE))
    assert documented == set(mcts_agent.__all__)


@pytest.mark.parametrize("package", ["adapters", "envs"])
def test_the_api_reference_covers_every_adapter_and_env_module(package):
    page = (DOCS / "reference" / f"{package}.md").read_text()
    imported = importlib.import_module(f"mcts_agent.{package}")
    modules = [info.name for info in pkgutil.iter_modules(imported.__path__)]
    assert modules, package
    assert [name for name in modules if f"::: mcts_agent.{package}.{name}\n" not in page] == []
