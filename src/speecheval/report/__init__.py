"""Reports for people, shared by every family: one HTML page shell, one table renderer,
one number formatter and one timeline renderer.

- :mod:`.page`: a self-contained HTML page from blocks (Jinja2 templates, autoescaped).
- :mod:`.table`: one table as aligned text, Markdown or HTML.
- :mod:`.numbers`: fixed decimals and percentages, ``n/a`` when missing.
- :mod:`.timeline`: lanes, marks and zoom windows, drawn as inline SVG or PNG/SVG files.
"""
