#!/usr/bin/env node
// A greedy Torrent/Fravan bot: the placement with the most immediate flips.
//
//   node dist/src/examples/greedy_flank.js --server localhost:50051 --token TOKEN --game fravan
//
// Simpler than the Python greedy_flank (which runs the real engine one ply deep): for each empty
// point it puts its stone there and counts the enemy stones that the stone makes flanked by its
// colour and by no enemy flanking (the first stage of the cascade, without recency or locks),
// and loses the value when the new stone itself would stand flanked by the enemy alone. Passing
// is only taken to end a game it wins (the opponent just passed and the score favours it) or when
// no placement is left; it never swaps. Ties are broken at random.
import { Bot, Observation, TurnContext, isFlank } from "../bot";
import { main } from "../cli";
import { flankers, onBoard, parseBoard, pointCoords, AXES, Board, stoneAt } from "../flank";
import { Colour } from "../gen/arbiter/v1/common";
import { FlankObservation } from "../gen/arbiter/v1/flank";
import { Rng, choice, makeRng } from "../random";

export const WIN = 10_000;

/** Value of placing `mine` at (q, r): 1 + the enemy stones it flips in stage A, or minus that
 * when the new stone is left flanked by the enemy only (stage B would flip it). */
export function placementValue(board: Board, q: number, r: number, mine: "B" | "W"): number {
  const enemy = mine === "B" ? "W" : "B";
  const after: Board = { size: board.size, stones: new Map(board.stones) };
  after.stones.set(`${q},${r}`, mine);
  // Only stones on the new stone's lines can change: look at the first stone in each direction.
  const candidates = new Set<string>();
  for (const [dq, dr] of AXES) {
    for (const sign of [1, -1]) {
      for (let k = 1; ; k++) {
        const x = q + sign * k * dq;
        const y = r + sign * k * dr;
        if (!onBoard(board.size, x, y)) break;
        if (stoneAt(after, x, y)) {
          candidates.add(`${x},${y}`);
          break;
        }
      }
    }
  }
  let flips = 0;
  for (const c of candidates) {
    const [x, y] = c.split(",").map(Number);
    if (stoneAt(after, x, y) !== enemy) continue;
    const by = flankers(after, x, y);
    if (by.includes(mine) && !by.includes(enemy)) flips += 1;
  }
  const own = flankers(after, q, r);
  const lost = own.includes(enemy) && !own.includes(mine);
  return lost ? -(1 + flips) : 1 + flips;
}

export class GreedyFlankBot implements Bot {
  readonly name = "greedy-flank";
  private readonly rng: Rng;

  constructor(seed?: number) {
    this.rng = makeRng(seed);
  }

  /** The value of each legal action for the observing seat (larger is better). */
  evaluate(observation: FlankObservation, legal: string[]): Map<string, number> {
    const board = parseBoard(observation);
    const mine = observation.colour === Colour.COLOUR_WHITE ? "W" : "B";
    const values = new Map<string, number>();
    for (const action of legal) {
      if (action === "swap") continue;
      if (action === "pass") {
        values.set(action, this.passValue(observation));
        continue;
      }
      const [q, r] = pointCoords(observation.size, action);
      values.set(action, placementValue(board, q, r, mine));
    }
    return values;
  }

  private passValue(o: FlankObservation): number {
    const white = o.colour === Colour.COLOUR_WHITE;
    const margin = white ? o.whiteScore - o.blackScore : o.blackScore - o.whiteScore;
    const last = o.lastAction?.kind?.$case;
    if (last !== "pass") return -WIN; // never pass first: it hands the opponent the tempo
    if (margin === 0) return o.firstPassColour === o.colour ? WIN : -WIN;
    return margin > 0 ? WIN : -WIN;
  }

  choose(observation: Observation, legal: string[], _context: TurnContext): string {
    if (!isFlank(observation)) return choice(this.rng, legal);
    const values = this.evaluate(observation, legal);
    if (!values.size) return choice(this.rng, legal);
    const top = Math.max(...values.values());
    return choice(this.rng, [...values].filter(([, v]) => v === top).map(([a]) => a));
  }
}

if (require.main === module) {
  main((options) => new GreedyFlankBot(options.seed), {
    description: "A greedy Torrent/Fravan bot: the placement with the most immediate flips.",
    games: ["torrent", "fravan"],
  });
}
