"""The Jinja2 environment every HTML report renders through.

Autoescaping is on for every template, so a scenario name, a transcript or an agent's
error message is always text on the page, never markup. The templates and the one style
sheet ship inside the package (``speecheval/report/templates``); nothing is fetched.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


@cache
def environment() -> Environment:
    """The shared environment: package templates, autoescape, undefined names refused."""
    return Environment(loader=PackageLoader("speecheval.report", "templates"),
                       autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)


@cache
def stylesheet() -> str:
    """The one style sheet, inlined into every page."""
    return (resources.files("speecheval.report") / "templates" / "report.css").read_text(
        encoding="utf-8")


def render(template: str, **context: Any) -> str:
    """A whole template rendered with ``context``."""
    return environment().get_template(template).render(**context)


def render_macro(template: str, macro: str, **arguments: Any) -> Markup:
    """One macro of a template, called with ``arguments``: a fragment for a page."""
    module = environment().get_template(template).module
    return Markup(getattr(module, macro)(**arguments))
