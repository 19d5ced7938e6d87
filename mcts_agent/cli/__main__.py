"""``python -m mcts_agent.cli``: the ``mcts-agent`` command."""

import sys

from mcts_agent.cli import main

sys.exit(main())
