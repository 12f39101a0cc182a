#!/usr/bin/env node
// A uniformly random legal action in any game; in Torrent/Fravan placements come before passing.
//
//   node dist/src/examples/random_bot.js --server localhost:50051 --token TOKEN --game surge
import { Bot, Observation, TurnContext } from "../bot";
import { main } from "../cli";
import { Rng, choice, makeRng } from "../random";

export class RandomBot implements Bot {
  readonly name = "random";
  private readonly rng: Rng;

  constructor(seed?: number) {
    this.rng = makeRng(seed);
  }

  choose(_observation: Observation, legal: string[], _context: TurnContext): string {
    const places = legal.filter((a) => a !== "pass" && a !== "swap");
    return choice(this.rng, places.length ? places : legal);
  }
}

if (require.main === module) {
  main((options) => new RandomBot(options.seed), { description: "A uniformly random legal action in any game." });
}
