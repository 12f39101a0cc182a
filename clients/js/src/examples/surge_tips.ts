#!/usr/bin/env node
// A Surge Stones bot that follows the designer's tips (docs/rules/surge-stones.md, "Tips from the
// designer"), scoring every legal placement and playing the best one:
//
//   node dist/src/examples/surge_tips.js --server localhost:50051 --token TOKEN --game surge
//
// Each tip is a term of the score: the stone's value (big stones early), the front home row, own
// stones already in the column (keep to a few columns; opening a new one costs), backing up an
// own stone when placing first, answering the opponent's face-down stone's column when placing
// second. The Python surge_tips also looks a few surges ahead with the engine; this SDK has no
// Surge engine, so instead a fight term judges the column: the strength the column would have
// with this stone against the opponent's revealed stones there (a hidden opponent stone counts as
// the average of the values it may still be). Fights it would lose score low, fights it would
// win score by the margin. Ties are broken at random.
import { Bot, Observation, TurnContext, isSurge } from "../bot";
import { main } from "../cli";
import { Colour } from "../gen/arbiter/v1/common";
import { SurgeObservation } from "../gen/arbiter/v1/surge";
import { Rng, choice, makeRng } from "../random";

const FILES = "abcdefgh";
/** Every player's stones: two of each value 1 to 10. */
const STONES = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10];

/** How much each tip counts (points per unit). */
export interface Weights {
  value: number; // big stones early: per point of the stone's value
  frontRow: number; // on the front home row
  columnStones: number; // per own stone already in the column
  newColumn: number; // opening a column with no own stone
  backUp: number; // placing first: right behind an own stone
  answer: number; // placing second: in the column of the opponent's face-down stone
  answerValue: number; // ... per point of value there
  fight: number; // per point the column's own strength would exceed the opponent's there
  losingFight: number; // a column where even with this stone the opponent is stronger
}

export const DEFAULT_WEIGHTS: Weights = {
  value: 1,
  frontRow: 4,
  columnStones: 2,
  newColumn: -3,
  backUp: 6,
  answer: 6,
  answerValue: 0.6,
  fight: 0.5,
  losingFight: -8,
};

/** [column 0-7, row 0-7] of a square name ("c2" -> [2, 1]). */
export function squareCR(square: string): [number, number] {
  return [FILES.indexOf(square[0]), Number(square.slice(1)) - 1];
}

/** What the opponent's face-down stone is worth on average: the values not yet seen revealed. */
export function hiddenGuess(o: SurgeObservation, enemy: Colour): number {
  const pool = [...STONES];
  const seen = [...o.faceUp.filter((s) => s.colour === enemy).map((s) => s.value), ...(enemy === Colour.COLOUR_ORANGE ? o.removedOrange : o.removedBlue)];
  for (const v of seen) {
    const i = pool.indexOf(v);
    if (i >= 0) pool.splice(i, 1);
  }
  return pool.length ? pool.reduce((a, b) => a + b, 0) / pool.length : 5;
}

export class SurgeTipsBot implements Bot {
  readonly name = "surge-tips";
  private readonly rng: Rng;

  constructor(
    seed?: number,
    readonly weights: Weights = DEFAULT_WEIGHTS,
  ) {
    this.rng = makeRng(seed);
  }

  /** The score of each placement ("VALUE@SQUARE") for the observing seat (larger is better). */
  evaluate(o: SurgeObservation, legal: string[]): Map<string, number> {
    const w = this.weights;
    const blue = o.colour === Colour.COLOUR_BLUE;
    const enemy = blue ? Colour.COLOUR_ORANGE : Colour.COLOUR_BLUE;
    const frontRow = blue ? 1 : 6;
    const step = blue ? 1 : -1;
    const placingFirst = o.firstPlacer === o.colour;
    const guess = hiddenGuess(o, enemy);
    // Per column: own strength, opponent strength (hidden stones at the guess), own stones, and
    // what stands on each square (+1 own, -1 opponent).
    const mine = new Array<number>(8).fill(0);
    const theirs = new Array<number>(8).fill(0);
    const count = new Array<number>(8).fill(0);
    const owner = new Map<string, number>();
    let answerColumn: number | undefined;
    for (const stone of [...o.faceUp, ...o.faceDown]) {
      const [c] = squareCR(stone.square);
      if (stone.colour === o.colour) {
        mine[c] += stone.value;
        count[c] += 1;
        owner.set(stone.square, 1);
      } else {
        const hidden = stone.value === 0;
        theirs[c] += hidden ? guess : stone.value;
        owner.set(stone.square, -1);
        if (hidden) answerColumn = c;
      }
    }
    const values = new Map<string, number>();
    for (const action of legal) {
      const at = action.indexOf("@");
      if (at < 0) continue;
      const v = Number(action.slice(0, at));
      const square = action.slice(at + 1);
      const [c, r] = squareCR(square);
      let total = w.value * v;
      if (r === frontRow) total += w.frontRow;
      total += count[c] ? w.columnStones * count[c] : w.newColumn;
      const ahead = `${FILES[c]}${r + step + 1}`;
      if (placingFirst && owner.get(ahead) === 1) total += w.backUp;
      if (!placingFirst && answerColumn === c) total += w.answer + w.answerValue * v;
      if (theirs[c] > 0) {
        const margin = mine[c] + v - theirs[c];
        total += margin > 0 ? w.fight * margin : w.losingFight;
      }
      values.set(action, total);
    }
    return values;
  }

  choose(observation: Observation, legal: string[], _context: TurnContext): string {
    if (!isSurge(observation)) return choice(this.rng, legal);
    const values = this.evaluate(observation, legal);
    if (!values.size) return choice(this.rng, legal);
    const top = Math.max(...values.values());
    return choice(
      this.rng,
      [...values].filter(([, v]) => Math.abs(v - top) <= 1e-9).map(([a]) => a),
    );
  }
}

if (require.main === module) {
  main((options) => new SurgeTipsBot(options.seed), {
    description: "A Surge Stones bot that follows the designer's tips: every placement scored, the best one played.",
    games: ["surge"],
  });
}
