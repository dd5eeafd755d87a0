"""The Jinja2 environment every HTML report renders through.

Autoescaping is on for every template, so a scenario name, a transcript or an agent's
error message is always text on the page, never markup. The templates and the one style
sheet ship inside the package (``speecheval/report/templates``); nothing is fetched.
Jinja2 is imported on the first render, not with this module: the text and JSON outputs
of a command (``transcripts der --json``, say) import this module through the table
renderer but never render HTML, and Jinja2 costs tens of milliseconds to import.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from .fonts import CSS_STACK
from .held_markup import hold

if TYPE_CHECKING:
    from jinja2 import Environment


@cache
def environment() -> Environment:
    """The shared environment: package templates, autoescape, undefined names refused,
    and the ``held`` filter (:func:`.held_markup.hold`) for markup loaded on demand."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    made = Environment(loader=PackageLoader("speecheval.report", "templates"),
                       autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)
    made.filters["held"] = hold
    return made


@cache
def stylesheet() -> Markup:
    """The one style sheet, inlined into every page, with the fonts of :mod:`.fonts`."""
    return Markup(render("report.css.j2", fonts=Markup(CSS_STACK)))


def render(template: str, **context: Any) -> str:
    """A whole template rendered with ``context``."""
    return environment().get_template(template).render(**context)


def render_macro(template: str, macro: str, **arguments: Any) -> Markup:
    """One macro of a template, called with ``arguments``: a fragment for a page."""
    module = environment().get_template(template).module
    return Markup(getattr(module, macro)(**arguments))
