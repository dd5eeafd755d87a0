"""Reports for people, shared by every family: one HTML page shell, one table renderer,
one number formatter, one SVG chart frame and one timeline renderer.

- :mod:`.page`: a self-contained HTML page from blocks (Jinja2 templates, autoescaped).
- :mod:`.table`: one table as aligned text, Markdown or HTML.
- :mod:`.numbers`: fixed decimals and percentages, ``n/a`` when missing.
- :mod:`.svg_frame`: the frame every inline SVG chart is drawn in (bars, curves, lines,
  timelines): margins, scales, ticks, grid, axis titles, text widths.
- :mod:`.timeline`: lanes, marks and zoom windows, drawn as inline SVG or PNG/SVG files.
"""
