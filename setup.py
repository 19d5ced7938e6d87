"""Builds the optional compiled core ``mcts_agent._core`` (the metadata is in pyproject.toml).

The extension is optional: without a C compiler, or if it fails to build, the
install goes on and ``mcts_agent.core_backend()`` says ``"python"``. It is built
with floating-point contraction off on every compiler (``-ffp-contract=off`` on
gcc and clang, ``/fp:strict`` on MSVC): a fused multiply-add rounds once where
the pure-Python loop rounds twice, and changes trees at gamma < 1.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

STRICT_FLAGS = {"msvc": ["/O2", "/fp:strict"]}
DEFAULT_FLAGS = ["-O2", "-ffp-contract=off"]


class StrictFloatBuildExt(build_ext):
    """``build_ext`` passing the compiler's flags for IEEE floating point without contraction."""

    def build_extensions(self) -> None:
        """Sets every extension's flags for this compiler (MSVC or a gcc-like one), then builds."""
        flags = STRICT_FLAGS.get(self.compiler.compiler_type, DEFAULT_FLAGS)
        for extension in self.extensions:
            extension.extra_compile_args = list(flags)
        super().build_extensions()


setup(
    ext_modules=[
        Extension(
            "mcts_agent._core",
            ["mcts_agent/_core.c", "mcts_agent/_chance_loop.c", "mcts_agent/_gym_rollouts.c",
             "mcts_agent/_information_set_loop.c", "mcts_agent/_go.c",
             "mcts_agent/_rave_loop.c"],
            depends=["mcts_agent/_core.h"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": StrictFloatBuildExt},
)
