// A small Torrent/Fravan engine for bots' searches: placement with the whole cascade (stages A
// and B, the recency rule for double flanks, Fravan's lock, the cascade guard) and the score
// (stones plus territory), exactly as docs/rules/torrent-fravan.md defines them. Checked against
// the conformance cases in tests/vectors/ (torrent.jsonl, fravan.jsonl).
import { FlankObservation } from "./gen/arbiter/v1/flank";
import { AXES, onBoard, pointName, points } from "./flank";

export const EMPTY = 0;
export const BLACK = 1;
export const WHITE = 2;
export type Stone = typeof BLACK | typeof WHITE;

/** Per board size: the points in board-text order, their names, and for every point and axis the
 * points walked in each direction (nearest first). */
interface Geometry {
  size: number;
  names: string[];
  index: Map<string, number>;
  rays: number[][][][]; // [point][axis][0: + direction, 1: - direction] -> points
}

const GEOMETRIES = new Map<number, Geometry>();

export function geometry(size: number): Geometry {
  let g = GEOMETRIES.get(size);
  if (g) return g;
  const pts = points(size);
  const names = pts.map(([q, r]) => pointName(size, q, r));
  const index = new Map(pts.map(([q, r], i) => [`${q},${r}`, i]));
  const rays = pts.map(([q, r]) =>
    AXES.map(([dq, dr]) =>
      [1, -1].map((sign) => {
        const out: number[] = [];
        for (let k = 1; onBoard(size, q + sign * k * dq, r + sign * k * dr); k++) {
          out.push(index.get(`${q + sign * k * dq},${r + sign * k * dr}`) as number);
        }
        return out;
      }),
    ),
  );
  g = { size, names, index: new Map(names.map((n, i) => [n, i])), rays };
  GEOMETRIES.set(size, g);
  return g;
}

/** A position: the colour, lock and event number of every point (board-text order). */
export interface FlankState {
  size: number;
  fravan: boolean;
  colours: Uint8Array;
  locked: Uint8Array;
  events: Float64Array;
  /** The number the next event takes. */
  nextEvent: number;
}

export function newState(size: number, fravan: boolean): FlankState {
  const n = geometry(size).names.length;
  return { size, fravan, colours: new Uint8Array(n), locked: new Uint8Array(n), events: new Float64Array(n), nextEvent: 1 };
}

export function copyState(s: FlankState): FlankState {
  return { ...s, colours: s.colours.slice(), locked: s.locked.slice(), events: s.events.slice() };
}

/** The position of an observation (events from `observation.events`; the next event follows the
 * largest, which the last event always leaves on the board). */
export function stateFromObservation(observation: FlankObservation, fravan: boolean): FlankState {
  const s = newState(observation.size, fravan);
  const cells = observation.board.replace(/\//g, "");
  for (let i = 0; i < s.colours.length; i++) {
    const c = cells[i];
    s.colours[i] = c === "B" || c === "b" ? BLACK : c === "W" || c === "w" ? WHITE : EMPTY;
    s.locked[i] = c === "b" || c === "w" ? 1 : 0;
    s.events[i] = observation.events[i] ?? 0;
  }
  s.nextEvent = Math.max(0, ...s.events) + 1;
  return s;
}

export function boardText(s: FlankState): string {
  const rows: string[] = [];
  let i = 0;
  for (let row = 2 * s.size - 1; row >= 1; row--) {
    const length = 2 * s.size - 1 - Math.abs(row - s.size);
    let text = "";
    for (let k = 0; k < length; k++, i++) {
      const c = s.colours[i];
      const ch = c === BLACK ? "B" : c === WHITE ? "W" : ".";
      text += s.locked[i] ? ch.toLowerCase() : ch;
    }
    rows.push(text);
  }
  return rows.join("/");
}

/** The flankings of point p: [colour, age] for each axis that flanks it. */
function flankings(s: FlankState, p: number, out: [number, number][]): [number, number][] {
  out.length = 0;
  for (const [plus, minus] of geometry(s.size).rays[p]) {
    let a = -1;
    let da = 0;
    for (; da < plus.length; da++) if (s.colours[plus[da]] !== EMPTY) { a = plus[da]; break; }
    if (a < 0) continue;
    let b = -1;
    let db = 0;
    for (; db < minus.length && db <= da; db++) if (s.colours[minus[db]] !== EMPTY) { b = minus[db]; break; }
    if (b < 0 || db !== da || s.colours[a] !== s.colours[b]) continue;
    out.push([s.colours[a], Math.max(s.events[a], s.events[b])]);
  }
  return out;
}

/** One stage: the stones of `judged` that flip (and whether each becomes locked). */
function stage(s: FlankState, judged: Stone): [number, boolean][] {
  const flips: [number, boolean][] = [];
  const buffer: [number, number][] = [];
  for (let p = 0; p < s.colours.length; p++) {
    if (s.colours[p] !== judged) continue;
    let enemy = -1;
    let friendly = -1;
    for (const [colour, age] of flankings(s, p, buffer)) {
      if (colour === judged) friendly = Math.max(friendly, age);
      else enemy = Math.max(enemy, age);
    }
    if (enemy < 0) continue; // case 1
    if (friendly < 0) flips.push([p, false]); // case 2 (a locked stone stays locked)
    else if (s.fravan && s.locked[p]) continue; // case 4
    else if (enemy > friendly) flips.push([p, s.fravan]); // case 3: recency; Fravan locks it
  }
  return flips;
}

const positionKey = (s: FlankState) => `${s.colours.join("")}|${s.locked.join("")}`;

/** The state after `colour` places on point `p` (a name or an index) and the cascade runs. */
export function place(state: FlankState, p: number | string, colour: Stone): FlankState {
  const g = geometry(state.size);
  const at = typeof p === "string" ? g.index.get(p) : p;
  if (at === undefined || state.colours[at] !== EMPTY) throw new Error(`cannot place on ${p}`);
  const s = copyState(state);
  s.colours[at] = colour;
  s.events[at] = s.nextEvent++;
  const seen = new Set([positionKey(s)]);
  const opponent: Stone = colour === BLACK ? WHITE : BLACK;
  for (;;) {
    let flipped = false;
    for (const judged of [opponent, colour]) {
      const flips = stage(s, judged);
      if (!flips.length) continue;
      const before = { colours: s.colours.slice(), locked: s.locked.slice() };
      for (const [q, lock] of flips) {
        s.colours[q] = judged === BLACK ? WHITE : BLACK;
        if (lock) s.locked[q] = 1;
      }
      const key = positionKey(s);
      if (seen.has(key)) {
        s.colours = before.colours; // the guard: the stage is not applied and the turn ends
        s.locked = before.locked;
        return s;
      }
      seen.add(key);
      const event = s.nextEvent++;
      for (const [q] of flips) s.events[q] = event;
      flipped = true;
    }
    if (!flipped) return s;
  }
}

/** Stones plus territory of each colour now. */
export function scores(s: FlankState): { black: number; white: number } {
  let black = 0;
  let white = 0;
  const buffer: [number, number][] = [];
  for (let p = 0; p < s.colours.length; p++) {
    const c = s.colours[p];
    if (c === BLACK) black++;
    else if (c === WHITE) white++;
    else {
      let byBlack = false;
      let byWhite = false;
      for (const [colour] of flankings(s, p, buffer)) {
        if (colour === BLACK) byBlack = true;
        else byWhite = true;
      }
      if (byBlack && !byWhite) black++;
      else if (byWhite && !byBlack) white++;
    }
  }
  return { black, white };
}
