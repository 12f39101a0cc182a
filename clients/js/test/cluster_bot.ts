// A TypeScript SDK bot for tests/cluster/test_js_sdk.py, which starts a real cluster (PostgreSQL and
// two `arbiter serve --advertise` nodes) and runs this program against it. It is not a node --test
// file: it needs the cluster the Python test makes.
//
//   node dist/test/cluster_bot.js SERVER TOKEN LADDER GAMES HOLD_AT
//
// It joins LADDER through SERVER with a Session and plays GAMES matches with random moves. At its
// HOLD_AT-th decision of its last match it writes {"event": "holding", ...} on standard output and
// waits for a line "drop" on standard input; then it drops its connection (Session.dropConnection,
// what a network failure does) and answers the turn once the match is resumed. Standard output
// carries one JSON line per event (holding, ended, done); standard error the SDK's log as JSON lines.
import { InterceptingCall, Interceptor } from "@grpc/grpc-js";
import { createInterface } from "node:readline";
import { Backoff, Bot, Logger, MatchInfo, MatchSummary, Observation, Session, TurnContext } from "../src";
import { RandomBot } from "../src/examples/random_bot";

function say(event: string, fields: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
}

const jsonLogger: Logger = {
  log(level, event, fields = {}) {
    process.stderr.write(JSON.stringify({ level, event, ...fields }) + "\n");
  },
};

/** The authorization each Play call was made with: "own" (the bot's token) or a join token
 * without its nonce and signature (jt1.EPOCH.EXPIRES.NAME), in the order of the calls. */
function recordAuthorizations(token: string, into: string[]): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const value = String(metadata.get("authorization")[0] ?? "").replace(/^Bearer /, "");
        into.push(value === token ? "own" : value.split(".").slice(0, 4).join("."));
        next(metadata, listener);
      },
    });
}

class HoldingBot implements Bot {
  readonly name = "cluster-holding";
  private readonly inner: RandomBot;
  private readonly started: string[] = [];
  private readonly decisions = new Map<string, number>();
  private held = false;
  session: Session | undefined;

  constructor(
    seed: number,
    private readonly games: number,
    private readonly holdAt: number,
    private readonly dropped: Promise<void>,
  ) {
    this.inner = new RandomBot(seed);
  }

  onMatchStart(info: MatchInfo): void {
    if (!info.resumed && !this.started.includes(info.matchId)) this.started.push(info.matchId);
  }

  async choose(observation: Observation, legal: string[], context: TurnContext): Promise<string> {
    const count = (this.decisions.get(context.matchId) ?? 0) + 1;
    this.decisions.set(context.matchId, count);
    const move = this.inner.choose(observation, legal, context);
    const last = this.started.length === this.games && context.matchId === this.started[this.games - 1];
    if (last && count === this.holdAt && !this.held) {
      this.held = true;
      say("holding", { match_id: context.matchId, turn_id: context.turnId });
      await this.dropped;
      this.session?.dropConnection(); // this answer cannot go out now: it waits for the re-sent turn
    }
    return move;
  }

  onMatchEnd(summary: MatchSummary): void {
    say("ended", { match_id: summary.matchId, outcome: summary.outcome, reason: summary.reason, opponent: summary.opponentName });
  }
}

async function main(): Promise<number> {
  const [server, token, ladder, games, holdAt] = process.argv.slice(2);
  if (holdAt === undefined) {
    process.stderr.write("usage: cluster_bot.js SERVER TOKEN LADDER GAMES HOLD_AT\n");
    return 2;
  }
  const lines = createInterface({ input: process.stdin });
  const dropped = new Promise<void>((resolve) => lines.on("line", (line) => line.trim() === "drop" && resolve()));
  const authorizations: string[] = [];
  const bot = new HoldingBot(7, Number(games), Number(holdAt), dropped);
  const session = new Session(bot, {
    server,
    token,
    ladder,
    games: Number(games),
    backoff: new Backoff(0.1, 2, 0.5, 0.25),
    maxReconnects: 20,
    logger: jsonLogger,
    // grpc-js takes interceptors among the client's options, which the Session passes on.
    channelOptions: { interceptors: [recordAuthorizations(token, authorizations)] } as unknown as Record<string, number>,
  });
  bot.session = session;
  const summaries = await session.run();
  say("done", { stats: session.stats, authorizations, matches: summaries.map((s) => s.matchId) });
  lines.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
