#!/usr/bin/env node
// A one-ply greedy Torrent/Fravan bot: the action that leaves the best score margin.
//
//   node dist/src/examples/greedy_flank.js --server localhost:50051 --token TOKEN --game fravan
//
// Like the Python greedy_flank: it rebuilds the position with the SDK's engine
// (engine.stateFromObservation), tries every legal placement (the whole cascade) and keeps the
// best margin (own stones plus territory minus the opponent's). Passing keeps the margin as it
// is, except that a pass right after the opponent's pass ends the game: the bot takes that when it
// wins and never when it loses. A swap is judged like a move (the first stone becomes ours).
// Among equal margins it prefers placing; ties are broken at random.
import { Bot, Observation, TurnContext, isFlank } from "../bot";
import { main } from "../cli";
import { BLACK, WHITE, place, scores, stateFromObservation } from "../engine";
import { Colour } from "../gen/arbiter/v1/common";
import { FlankObservation } from "../gen/arbiter/v1/flank";
import { Rng, choice, makeRng } from "../random";

/** The value of ending the game as the winner (and minus it for ending it as the loser). */
export const WIN = 10_000;

export class GreedyFlankBot implements Bot {
  readonly name = "greedy-flank";
  private readonly rng: Rng;

  constructor(seed?: number) {
    this.rng = makeRng(seed);
  }

  /** The value of each legal action for the observing seat (larger is better). */
  evaluate(observation: FlankObservation, legal: string[], fravan: boolean): Map<string, number> {
    const state = stateFromObservation(observation, fravan);
    const white = observation.colour === Colour.COLOUR_WHITE;
    const values = new Map<string, number>();
    for (const action of legal) {
      if (action === "pass") {
        values.set(action, this.passValue(observation));
      } else if (action === "swap") {
        const s = scores(state); // we would take Black and its stone; the board stays
        values.set(action, s.black - s.white);
      } else {
        const s = scores(place(state, action, white ? WHITE : BLACK));
        values.set(action, white ? s.white - s.black : s.black - s.white);
      }
    }
    return values;
  }

  private passValue(o: FlankObservation): number {
    const white = o.colour === Colour.COLOUR_WHITE;
    const margin = white ? o.whiteScore - o.blackScore : o.blackScore - o.whiteScore;
    if (o.lastAction?.kind?.$case !== "pass") return margin;
    // Our pass would be the second in a row: the game ends now. Equal scores: the first passer
    // of the game wins (set by now: the opponent just passed, if nobody did before).
    if (margin === 0) return o.firstPassColour === o.colour ? WIN : -WIN;
    return margin > 0 ? WIN : -WIN;
  }

  choose(observation: Observation, legal: string[], context: TurnContext): string {
    if (!isFlank(observation)) return choice(this.rng, legal);
    const values = this.evaluate(observation, legal, context.game === "fravan");
    if (!values.size) return choice(this.rng, legal);
    const top = Math.max(...values.values());
    const best = [...values].filter(([, v]) => v === top).map(([a]) => a);
    const placements = best.filter((a) => a !== "pass" && a !== "swap");
    // Among equal margins prefer placing: passing early hands the opponent the tempo.
    return choice(this.rng, placements.length ? placements : best);
  }
}

if (require.main === module) {
  main((options) => new GreedyFlankBot(options.seed), {
    description: "A one-ply greedy Torrent/Fravan bot: the action that leaves the best score margin.",
    games: ["torrent", "fravan"],
  });
}
