"""Boards and charts as inline SVG, drawn from what a spectator may see.

A board is drawn from a game's public view (``GameDef.public_view``): for a running match that is
all there is, so a face-down Surge stone is drawn face down, without its value. After the match the
whole record is public and a replay may pass ``revealed`` (square -> value) to show those values.

Every stone carries data attributes (``data-point``/``data-square``, ``data-stone``, ``data-value``)
so that the browser tests can read the position drawn and compare it with the engine's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Protocol

from arbiter_games.flank_game import FlankPublicView
from arbiter_games.hexflank import geometry
from arbiter_games.surge_game import SurgePublicView

HEX = 24.0  # a hex cell's radius, px
SQUARE = 44.0  # a Surge square's side, px
COLOURS = {"B": "#1d1d1f", "W": "#f4f4f0", "blue": "#2f6fdf", "orange": "#f08a24"}
PALETTE = ("#2f6fdf", "#f08a24", "#2aa876", "#c0392b", "#8e44ad", "#7f8c8d", "#16a085", "#d35400")


def board_svg(view: object, revealed: Mapping[str, int] | None = None) -> str:
    """The board of a public view (Torrent/Fravan or Surge)."""
    if isinstance(view, FlankPublicView):
        return flank_svg(view)
    if isinstance(view, SurgePublicView):
        return surge_svg(view, revealed or {})
    raise TypeError(f"no drawing for {type(view).__name__}")


def _hex_corners(x: float, y: float, radius: float) -> str:
    points = []
    for k in range(6):
        angle = math.radians(60 * k + 30)
        points.append(f"{x + radius * math.cos(angle):.1f},{y + radius * math.sin(angle):.1f}")
    return " ".join(points)


def flank_svg(view: FlankPublicView) -> str:
    """A hex board with its point names; locked Fravan stones are drawn with a ring and a bar."""
    geo = geometry(view.size)
    cells = view.board.replace("/", "")
    width_unit = math.sqrt(3) * HEX
    positions = [(width_unit * (q + r / 2), -1.5 * HEX * r) for q, r in geo.coords]
    xs = [x for x, _ in positions]
    ys = [y for _, y in positions]
    pad = HEX * 1.3
    left, top = min(xs) - pad, min(ys) - pad
    width, height = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board flank" role="img" '
        f'viewBox="{left:.1f} {top:.1f} {width:.1f} {height:.1f}" width="{width:.0f}" height="{height:.0f}" '
        f'data-game="{escape(view.game)}" data-size="{view.size}" data-ply="{view.action_count}">',
        f"<title>{escape(view.game)} board after {view.action_count} actions</title>",
    ]
    for i, ((x, y), name, cell) in enumerate(zip(positions, geo.names, cells, strict=True)):
        parts.append(
            f'<polygon class="cell" points="{_hex_corners(x, y, HEX * 0.98)}" '
            'fill="#e8d9b0" stroke="#a08850"/>'
        )
        last = view.last_action == name
        if cell == ".":
            parts.append(
                f'<text x="{x:.1f}" y="{y + 4:.1f}" class="point-name" text-anchor="middle" '
                f'font-size="9" fill="#7a6a40" data-point="{name}" data-stone=".">{name}</text>'
            )
            continue
        colour = "B" if cell in "Bb" else "W"
        ink = "#f4f4f0" if colour == "B" else "#1d1d1f"
        stroke = "#d03030" if last else "#555"
        parts.append(
            f'<g class="stone{" locked" if cell in "bw" else ""}" data-point="{name}" data-stone="{cell}" '
            f'data-event="{view.events[i]}">'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{HEX * 0.78:.1f}" fill="{COLOURS[colour]}" '
            f'stroke="{stroke}" stroke-width="{2.5 if last else 1}"/>'
        )
        if cell in "bw":  # a locked Fravan stone: an inner ring and a bar
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{HEX * 0.55:.1f}" fill="none" stroke="{ink}" '
                f'stroke-width="1.5"/><line x1="{x - 6:.1f}" y1="{y - 6:.1f}" x2="{x + 6:.1f}" '
                f'y2="{y - 6:.1f}" stroke="{ink}" stroke-width="2"/>'
            )
        parts.append(
            f'<text x="{x:.1f}" y="{y + 3.5:.1f}" text-anchor="middle" font-size="8" '
            f'fill="{ink}">{name}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def surge_svg(view: SurgePublicView, revealed: Mapping[str, int]) -> str:
    """The 8x8 board, Orange's home rows (7-8) at the top; face-down stones show ``?``.

    ``revealed`` (only after the match) gives the values of the face-down stones; they are
    still drawn face down, with the value small.
    """
    files = "abcdefgh"
    margin = 22.0
    size = 8 * SQUARE + 2 * margin
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board surge" role="img" viewBox="0 0 {size:.0f} '
        f'{size + 30:.0f}" width="{size:.0f}" height="{size + 30:.0f}" data-game="surge" '
        f'data-round="{view.round}">',
        f"<title>Surge Stones, round {view.round}</title>",
    ]

    def corner(square: str) -> tuple[float, float]:
        col, row = files.index(square[0]), int(square[1:]) - 1
        return margin + col * SQUARE, margin + (7 - row) * SQUARE

    for col in range(8):
        for row in range(8):
            x, y = margin + col * SQUARE, margin + (7 - row) * SQUARE
            home = row in (0, 1, 6, 7)
            fill = (
                ("#dfe6f5" if row < 2 else "#f8e6d2")
                if home
                else ("#efefef" if (col + row) % 2 else "#fafafa")
            )
            parts.append(
                f'<rect x="{x:.0f}" y="{y:.0f}" width="{SQUARE:.0f}" height="{SQUARE:.0f}" fill="{fill}" '
                f'stroke="#bbb"/>'
            )
    for i, letter in enumerate(files):
        x = margin + i * SQUARE + SQUARE / 2
        parts.append(
            f'<text x="{x:.0f}" y="{margin - 6:.0f}" text-anchor="middle" font-size="11">{letter}</text>'
        )
    for row in range(8):
        y = margin + (7 - row) * SQUARE + SQUARE / 2 + 4
        parts.append(
            f'<text x="{margin - 12:.0f}" y="{y:.0f}" text-anchor="middle" font-size="11">{row + 1}</text>'
        )
    half = SQUARE / 2
    for square, owner, value in view.face_up:
        x, y = corner(square)
        fill = COLOURS.get(owner, "#888")
        parts.append(
            f'<g class="stone face-up" data-square="{square}" data-owner="{owner}" data-value="{value}">'
            f'<circle cx="{x + half:.0f}" cy="{y + half:.0f}" r="{SQUARE * 0.4:.0f}" fill="{fill}" '
            'stroke="#333"/>'
            f'<text x="{x + half:.0f}" y="{y + half + 6:.0f}" text-anchor="middle" font-size="17" '
            f'font-weight="bold" fill="#fff">{value}</text></g>'
        )
    for square, owner in view.face_down:
        x, y = corner(square)
        fill = COLOURS.get(owner, "#888")
        known = revealed.get(square)
        shown = "" if known is None else f' data-value="{known}"'
        parts.append(
            f'<g class="stone face-down" data-square="{square}" data-owner="{owner}"{shown}>'
            f'<rect x="{x + 6:.0f}" y="{y + 6:.0f}" width="{SQUARE - 12:.0f}" height="{SQUARE - 12:.0f}" '
            f'rx="6" fill="{fill}" fill-opacity="0.45" stroke="#333" stroke-dasharray="3 2"/>'
            f'<text x="{x + half:.0f}" y="{y + half + 6:.0f}" text-anchor="middle" font-size="16">?</text>'
        )
        if known is not None:
            parts.append(
                f'<text x="{x + SQUARE - 9:.0f}" y="{y + 15:.0f}" text-anchor="middle" '
                f'font-size="9">{known}</text>'
            )
        parts.append("</g>")
    hands = dict(view.hand_sizes)
    supplies = dict(view.supply_sizes)
    parts.append(
        f'<text x="{margin:.0f}" y="{size + 2:.0f}" font-size="12">Blue {view.blue_score} '
        f"(hand {hands.get('blue', 0)}, supply {supplies.get('blue', 0)}) · Orange {view.orange_score} "
        f"(hand {hands.get('orange', 0)}, supply {supplies.get('orange', 0)})</text>"
        f'<text x="{margin:.0f}" y="{size + 18:.0f}" font-size="12">round {view.round}'
        f"{' · over' if view.over else ''}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


class ChartPoint(Protocol):
    """A bot version's rating after a rated match (``HistoryPoint``, ``RatingPoint``)."""

    @property
    def ladder(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...


def _ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round values between ``low`` and ``high`` for an axis: at most ``most``, 1, 2 or 5 apart
    times a power of ten."""
    span = high - low
    step = 10 ** math.floor(math.log10(span / most)) if span > 0 else 1.0
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= most:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step) + 1)]


def rating_chart(points: Sequence[ChartPoint], width: int = 640, height: int = 240) -> str:
    """A line per (ladder, version): ``mu`` after each rated match given, with a ±sigma band and,
    dashed, the conservative rating ``mu - 3 sigma`` the standings rank by; labelled axes."""
    if not points:
        return '<p class="empty">No rated matches yet.</p>'
    series: dict[tuple[str, str], list[ChartPoint]] = {}
    for point in points:
        series.setdefault((point.ladder, point.version), []).append(point)
    lows = [p.mu - 3 * p.sigma for p in points]
    highs = [p.mu + p.sigma for p in points]
    low, high = min(lows), max(highs)
    if high - low < 1e-9:
        high = low + 1.0
    left, right, top, bottom = 52, 24, 16, 40
    count = len(points)

    def x_of(index: int) -> float:
        return left + (width - left - right) * (index / max(count - 1, 1))

    def y_of(value: float) -> float:
        return height - bottom - (height - top - bottom) * (value - low) / (high - low)

    order = {id(point): i for i, point in enumerate(points)}
    axis_y = height - bottom
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}"><title>Rating history</title>',
        f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#999"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{axis_y}" stroke="#999"/>',
    ]
    for value in _ticks(low, high):
        y = y_of(value)
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{y + 3:.1f}" font-size="10" text-anchor="end">'
            f"{value:g}</text>"
        )
        parts.append(f'<line x1="{left - 3}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#999"/>')
    parts.append(
        f'<text class="axis y-axis" x="12" y="{(top + axis_y) / 2:.0f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {(top + axis_y) / 2:.0f})">rating (openskill μ)</text>'
    )
    parts.append(
        f'<text class="axis x-axis" x="{(left + width - right) / 2:.0f}" y="{height - 8}" font-size="11" '
        f'text-anchor="middle">rated matches, oldest to newest ({count} shown)</text>'
    )
    parts.append(f'<text class="tick" x="{left}" y="{axis_y + 14}" font-size="10">1</text>')
    parts.append(
        f'<text class="tick" x="{width - right}" y="{axis_y + 14}" font-size="10" text-anchor="end">'
        f"{count}</text>"
    )
    for n, ((ladder, version), line) in enumerate(sorted(series.items())):
        colour = PALETTE[n % len(PALETTE)]
        coords = [(x_of(order[id(p)]), p) for p in line]
        band = [f"{x:.1f},{y_of(p.mu + p.sigma):.1f}" for x, p in coords]
        band += [f"{x:.1f},{y_of(p.mu - p.sigma):.1f}" for x, p in reversed(coords)]
        parts.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.12"/>')
        path = " ".join(f"{x:.1f},{y_of(p.mu):.1f}" for x, p in coords)
        parts.append(
            f'<polyline class="series" data-ladder="{escape(ladder)}" data-version="{escape(version)}" '
            f'points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        ranked = " ".join(f"{x:.1f},{y_of(p.mu - 3 * p.sigma):.1f}" for x, p in coords)
        parts.append(
            f'<polyline class="ranked" data-ladder="{escape(ladder)}" data-version="{escape(version)}" '
            f'points="{ranked}" fill="none" stroke="{colour}" stroke-width="1" stroke-dasharray="4 3"/>'
        )
        parts.append(
            f'<text x="{width - right - 170}" y="{top + 12 + 14 * n}" font-size="11" fill="{colour}">'
            f"{escape(ladder)} {escape(version)}</text>"
        )
    parts.append(
        f'<text class="legend" x="{left + 6}" y="{top + 10}" font-size="10" fill="#555">'
        "line: μ, band: ± &#963;, "
        "dashed: μ &#8722; 3&#963; (the rating the standings rank by)</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
