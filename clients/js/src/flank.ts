// A little Torrent/Fravan geometry for bots: point names, the board text, and the flank test of
// docs/rules/torrent-fravan.md ("Flanking"). The engine (cascade, scores) is in engine.ts.
import { FlankObservation } from "./gen/arbiter/v1/flank";

/** The three axes; with their opposites, the six directions to a point's neighbours. */
export const AXES: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [1, -1],
];

export interface Board {
  size: number;
  /** (q, r) key "q,r" -> "B" | "W" (locked Fravan stones as their colour); absent: empty. */
  stones: Map<string, "B" | "W">;
}

const key = (q: number, r: number) => `${q},${r}`;

export function onBoard(size: number, q: number, r: number): boolean {
  const m = size - 1;
  return Math.abs(q) <= m && Math.abs(r) <= m && Math.abs(q + r) <= m;
}

/** The name of point (q, r): the letter q + n - 1 places after "a", then the number r + n. */
export function pointName(size: number, q: number, r: number): string {
  return String.fromCharCode(97 + q + size - 1) + String(r + size);
}

export function pointCoords(size: number, name: string): [number, number] {
  return [name.charCodeAt(0) - 97 - (size - 1), Number(name.slice(1)) - size];
}

/** Every point in board-text order: rows from the top (highest number), each from its lowest letter. */
export function points(size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let r = size - 1; r >= -(size - 1); r--) {
    for (let q = -(size - 1); q <= size - 1; q++) if (onBoard(size, q, r)) out.push([q, r]);
  }
  return out;
}

export function parseBoard(observation: FlankObservation): Board {
  const size = observation.size;
  const cells = observation.board.replace(/\//g, "");
  const stones = new Map<string, "B" | "W">();
  points(size).forEach(([q, r], i) => {
    const c = cells[i]?.toUpperCase();
    if (c === "B" || c === "W") stones.set(key(q, r), c);
  });
  return { size, stones };
}

export function stoneAt(board: Board, q: number, r: number): "B" | "W" | undefined {
  return board.stones.get(key(q, r));
}

/** The colours flanking point (q, r) on each axis (undefined where it is not flanked): walk both
 * ways over empty points to the first stone; flanked when both stones are at the same distance
 * and of one colour. The edge never flanks. */
export function flankers(board: Board, q: number, r: number): ("B" | "W" | undefined)[] {
  return AXES.map(([dq, dr]) => {
    const first = (sign: number): [number, "B" | "W"] | undefined => {
      for (let k = 1; ; k++) {
        const x = q + sign * k * dq;
        const y = r + sign * k * dr;
        if (!onBoard(board.size, x, y)) return undefined;
        const s = stoneAt(board, x, y);
        if (s) return [k, s];
      }
    };
    const a = first(1);
    const b = first(-1);
    return a && b && a[0] === b[0] && a[1] === b[1] ? a[1] : undefined;
  });
}
