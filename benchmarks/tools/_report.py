"""What the benchmark scripts that keep a CSV of runs and a Markdown report share.

``python benchmarks/data/NAME.py`` adds the runs its CSV is missing, then writes the report;
``--table-only`` writes the report from the CSV alone.
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import pandas as pd
from provenance import ROOT, head_commit


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


def written_by(script) -> str:
    """"Written by `python benchmarks/data/NAME.py` on DATE at commit HASH." for a report's
    head."""
    rel = Path(script).resolve().relative_to(ROOT).as_posix()
    return f"Written by `python {rel}` on {date.today()} at commit {head_commit(short=True)}."
