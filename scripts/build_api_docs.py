"""Build the API reference from the public modules' docstrings (``make docs``), offline.

pdoc renders one HTML page per public module (``speecheval.html``,
``speecheval/transcripts.html``, ...) into ``docs/api/`` (or ``--out``); only the names in
each module's ``__all__`` appear. The private modules are left out by name, so a module
added under a family does not appear in the reference until it is listed here.

    python scripts/build_api_docs.py [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

PUBLIC_MODULES = ("speecheval", "speecheval.transcripts", "speecheval.vad", "speecheval.fdb10",
                  "speecheval.fdb15", "speecheval.session")
"""The modules whose ``__all__`` is the public API (a family's module joins here)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/api"),
                        help="output folder (default: docs/api)")
    args = parser.parse_args(argv)

    import pdoc
    import pdoc.render

    import speecheval

    families = "|".join(name.removeprefix("speecheval.") for name in PUBLIC_MODULES[1:])
    pdoc.render.configure(docformat="restructuredtext", show_source=False,
                          footer_text=f"speecheval {speecheval.__version__}")
    # the root package walks its submodules: every one but the families' modules is private
    pdoc.pdoc(*PUBLIC_MODULES, rf"!speecheval\.(?!({families})$).*", output_directory=args.out)
    print(f"API reference written to {args.out}/index.html")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
