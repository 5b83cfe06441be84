"""What the tests of tools/ share: loading a script from tools/ as a module, and the front
matter of a MyST chapter."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FRONT_MATTER = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def load_tool(name: str):
    """tools/<name>.py as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
