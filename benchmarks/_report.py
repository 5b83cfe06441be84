"""What the benchmark scripts that keep a CSV of runs and a Markdown report share.

``python benchmarks/NAME.py`` adds the runs its CSV is missing, then writes the report;
``--table-only`` writes the report from the CSV alone.
"""

from __future__ import annotations

import argparse

import pandas as pd


def cli(run, write_markdown, csv) -> None:
    """Parse ``--table-only``; call ``run()`` unless given; then ``write_markdown`` on the CSV."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--table-only", action="store_true",
                    help="write the report from the committed CSV, running nothing")
    if not ap.parse_args().table_only:
        run()
    write_markdown(pd.read_csv(csv))


def publish(path, lines) -> None:
    """Write the report's lines to ``path`` and print them."""
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def provenance(script) -> str:
    """"Written by `python benchmarks/NAME.py` on DATE at commit HASH." for a report's head."""
    import subprocess
    from datetime import date
    from pathlib import Path

    script = Path(script)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=script.parent).stdout.strip()
    return f"Written by `python benchmarks/{script.name}` on {date.today()} at commit {commit}."
