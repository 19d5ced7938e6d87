"""One line on the machine and the versions a benchmark ran with (shared by the benchmarks)."""

from __future__ import annotations

import os
import platform
from importlib import metadata


def version(distribution: str) -> str:
    """Returns the installed version of ``distribution``, or "?" if it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def cpu_name() -> str:
    """Returns the CPU model from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine(distributions: tuple[str, ...] = ("mcts-agent",)) -> str:
    """Returns the CPU, OS, load average now, Python and the given packages' versions."""
    load = os.getloadavg()
    versions = ", ".join(f"{name} {version(name)}" for name in distributions)
    return (
        f"Machine: {cpu_name()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
        f"Versions: Python {platform.python_version()}, {versions}"
    )
