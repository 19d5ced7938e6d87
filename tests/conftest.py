"""Test configuration: property tests are derandomized on CI (CI=true), random elsewhere.

``each_backend``: a fixture that runs a test on both search backends (compiled, python).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from mcts_agent import compiled

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="module", params=["compiled", "python"])
def each_backend(request):
    """Runs a test on the compiled core and on the pure-Python loop (skips the core if unbuilt)."""
    if request.param == "python":
        with compiled.pure_python():
            yield request.param
    elif compiled.core_backend() == "compiled":
        yield request.param
    else:
        pytest.skip("the compiled core is not built")
