"""Compare the printed outputs (text/plain, text/markdown, text/html, stdout/stderr) of two
executed-book folders (e.g. two copies of _build/jupyter_execute), cell by cell, number by
number; image bytes are ignored.  Usage: python tools/compare_outputs.py OLD_DIR NEW_DIR"""
import json
import re
import sys
from pathlib import Path

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
ADDR = re.compile(r"0x[0-9a-f]+|T_[0-9a-f]{5}")  # addresses, pandas Styler table ids
KINDS = ("text/plain", "text/markdown", "text/html", "text/latex")


def texts(cell):
    out, streams = [], {}
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":  # one text per stream: flushes may split it
            if o["name"] not in streams:
                streams[o["name"]] = len(out)
                out.append((o["name"], ""))
            k = streams[o["name"]]
            out[k] = (o["name"], out[k][1] + "".join(o["text"]))
        elif o["output_type"] in ("execute_result", "display_data"):
            for k in KINDS:
                if k in o.get("data", {}):
                    v = o["data"][k]
                    out.append((k, v if isinstance(v, str) else "".join(v)))
        elif o["output_type"] == "error":
            out.append(("error", o["ename"] + ": " + o["evalue"]))
    return out


def main(old_dir, new_dir):
    old_dir, new_dir = Path(old_dir), Path(new_dir)
    total = same = 0
    for old in sorted(old_dir.rglob("*.ipynb")):
        new = new_dir / old.relative_to(old_dir)
        if not new.exists():
            print(f"MISSING {new}")
            continue
        a, b = json.loads(old.read_text()), json.loads(new.read_text())
        ca = [c for c in a["cells"] if c["cell_type"] == "code"]
        cb = [c for c in b["cells"] if c["cell_type"] == "code"]
        if len(ca) != len(cb):
            print(f"{old.name}: {len(ca)} vs {len(cb)} code cells")
        for i, (x, y) in enumerate(zip(ca, cb, strict=False)):
            ta, tb = texts(x), texts(y)
            for (ka, va), (_kb, vb) in zip(ta, tb, strict=False):
                total += 1
                va, vb = ADDR.sub("0x", va), ADDR.sub("0x", vb)
                if va == vb:
                    same += 1
                    continue
                na, nb = NUM.findall(va), NUM.findall(vb)
                diffs = [(p, q) for p, q in zip(na, nb, strict=False) if p != q]
                src = "".join(x["source"]).strip().splitlines()
                print(f"--- {old.name} code cell {i} [{ka}] ({len(diffs)} numbers differ"
                      f"{', text differs' if len(na) != len(nb) else ''}); first line: "
                      f"{src[0][:80] if src else ''}")
                for p, q in diffs[:12]:
                    try:
                        rel = abs(float(p) - float(q)) / max(abs(float(p)), 1e-300)
                    except ValueError:
                        rel = float('nan')
                    print(f"    {p} -> {q}   (rel {rel:.1e})")
                if len(na) == len(nb) and not diffs:
                    print("    (non-numeric text differs)", repr(va[:200]), "->", repr(vb[:200]))
            if len(ta) != len(tb):
                print(f"--- {old.name} code cell {i}: {len(ta)} vs {len(tb)} text outputs")
    print(f"{same}/{total} text outputs identical")


if __name__ == "__main__":
    main(*sys.argv[1:3])
