// The command line every bot shares, with defaults from the environment (the same options and
// ARBITER_* variables as the Python SDK's arbiter_bot/cli.py). A command-line option wins over
// its environment variable. Logs go to standard error; one line per finished match to standard output.
import { Bot, MatchSummary } from "./bot";
import { DEFAULT_PORT } from "./address";
import { CONNECT_TIMEOUT, run, tlsCredentials } from "./client";
import { ArbiterError, AuthenticationError, LogLevel, ReplacedError, stderrLogger, visible } from "./errors";
import { SeedMismatch } from "./seedcheck";
import { GAMES, GameName, SIZES, TimeControl } from "./wire";

export const DEFAULT_SERVER = "localhost:50051";
export const ENV = {
  server: "ARBITER_SERVER",
  connectTimeout: "ARBITER_CONNECT_TIMEOUT",
  token: "ARBITER_TOKEN",
  game: "ARBITER_GAME",
  size: "ARBITER_SIZE",
  games: "ARBITER_GAMES",
  ladder: "ARBITER_LADDER",
  event: "ARBITER_EVENT",
  version: "ARBITER_BOT_VERSION",
  base: "ARBITER_BASE",
  increment: "ARBITER_INCREMENT",
  perDecision: "ARBITER_PER_DECISION",
  tls: "ARBITER_TLS",
  ca: "ARBITER_CA",
  clientCert: "ARBITER_CLIENT_CERT",
  clientKey: "ARBITER_CLIENT_KEY",
} as const;

export const EXIT = { ok: 0, error: 1, usage: 2, auth: 3, replaced: 4, seed: 5, interrupted: 130 } as const;

/** What the command line and environment asked for. */
export interface BotOptions {
  server: string;
  token: string;
  game: GameName;
  size?: number;
  games?: number;
  timeControl?: TimeControl;
  maxConcurrent: number;
  seed?: number;
  logLevel: LogLevel;
  tls: boolean;
  /** With TLS: the CA of the arbiter's certificate (undefined: the system's roots). */
  ca?: string;
  /** Mutual TLS: this bot's certificate and key. */
  clientCert?: string;
  clientKey?: string;
  strictSeed: boolean;
  ladder?: string;
  /** Enter this event instead of seeking; stop once it is over. */
  event?: string;
  version?: string;
  /** Seconds until the first Welcome before giving up (null: keep trying forever). */
  connectTimeout: number | null;
}

export class UsageError extends Error {}

const VALUE_OPTIONS = ["server", "connect-timeout", "token", "game", "size", "games", "base", "increment", "per-decision", "max-concurrent", "ladder", "event", "version", "seed", "log-level", "ca", "client-cert", "client-key"];
const FLAGS = ["tls", "strict-seed", "help"];

export function usage(program: string, description?: string, games: readonly GameName[] = GAMES): string {
  const rows: Array<[string, string]> = [
    ["--server HOST:PORT", `the arbiter's address ($${ENV.server}; default ${DEFAULT_SERVER}; port ${DEFAULT_PORT} when none is given)`],
    ["--connect-timeout S", `give up (exit status 1) without an answer within S seconds, 0 = never ($${ENV.connectTimeout}; default ${CONNECT_TIMEOUT})`],
    ["--token TOKEN", `this bot's token ($${ENV.token}; safer than the command line, which others can see)`],
    [`--game ${games.join("|")}`, `the game to seek ($${ENV.game}; default ${games[0]})`],
    ["--size N", `Torrent/Fravan board size ($${ENV.size}; default: the arbiter's)`],
    ["--games N", `stop after N finished matches, 0 = never ($${ENV.games}; default 0)`],
    ["--base S", `seconds on each clock ($${ENV.base})`],
    ["--increment S", `seconds added per decision ($${ENV.increment})`],
    ["--per-decision S", `cap per decision in seconds ($${ENV.perDecision})`],
    ["--max-concurrent N", "matches played at once (default 1)"],
    ["--ladder NAME", `join this ladder instead of seeking ($${ENV.ladder})`],
    ["--event NAME", `enter this event instead of seeking; stop once it is over ($${ENV.event})`],
    ["--version TEXT", `the version this bot plays as ($${ENV.version})`],
    ["--seed N", "seed of the bot's random choices (default: random)"],
    ["--tls", `connect with TLS ($${ENV.tls}=1; system root certificates)`],
    ["--ca FILE", `with TLS: trust this CA's PEM certificate instead ($${ENV.ca}; implies --tls)`],
    ["--client-cert FILE", `mutual TLS: this bot's PEM certificate ($${ENV.clientCert})`],
    ["--client-key FILE", `mutual TLS: this bot's PEM private key ($${ENV.clientKey})`],
    ["--strict-seed", "stop with exit code 5 when a Surge seed check fails"],
    ["--log-level LEVEL", "debug, info, warning or error (default info)"],
  ];
  // Every description starts in one column, past the longest option.
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`).join("\n");
  return `${description ? description + "\n\n" : ""}usage: ${program} [options]

${lines}

exit status: 0 done, 1 no connection within the connect timeout or another arbiter error, 2 usage, 3 bad token, 4 replaced, 5 Surge seed check
failed with --strict-seed, 130 interrupted
`;
}

/** Options from `argv` (without node and the script) and `env`; throws UsageError on bad input
 * (and with message "help" for --help). */
export function parseOptions(
  argv: readonly string[] = process.argv.slice(2),
  env: Record<string, string | undefined> = process.env,
  games: readonly GameName[] = GAMES,
): BotOptions {
  const args: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (FLAGS.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      args[name] = true;
    } else if (VALUE_OPTIONS.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      args[name] = value;
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (args.help) throw new UsageError("help");
  const text = (name: string, envName?: string): string | undefined => {
    const v = args[name];
    if (typeof v === "string" && v !== "") return v;
    const e = envName ? env[envName]?.trim() : undefined;
    return e ? e : undefined;
  };
  const number = (name: string, envName: string | undefined, integer: boolean): number | undefined => {
    const v = text(name, envName);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
      const from = typeof args[name] === "string" ? `--${name}` : `$${envName}`;
      throw new UsageError(`${from} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(v)}`);
    }
    return n;
  };
  const server = text("server", ENV.server) ?? DEFAULT_SERVER;
  const connectTimeout = number("connect-timeout", ENV.connectTimeout, false) ?? CONNECT_TIMEOUT;
  if (connectTimeout < 0) throw new UsageError(`--connect-timeout must be a number of seconds, 0 or more, not ${connectTimeout}`);
  const token = text("token", ENV.token);
  if (!token) throw new UsageError(`no token: pass --token or set $${ENV.token}`);
  const game = (text("game", ENV.game) ?? games[0]) as GameName;
  if (!games.includes(game)) throw new UsageError(`this bot plays ${games.join(", ")}, not ${JSON.stringify(game)}`);
  let size = number("size", ENV.size, true);
  if (!SIZES[game].length) size = undefined; // Surge has no board size; a runner may set $ARBITER_SIZE for every game
  else if (size !== undefined && !SIZES[game].includes(size)) {
    throw new UsageError(`${game} is played on sizes ${SIZES[game].join(", ")}, not ${size}`);
  }
  const count = number("games", ENV.games, true);
  if (count !== undefined && count < 0) throw new UsageError("--games must not be negative");
  const base = number("base", ENV.base, false);
  const increment = number("increment", ENV.increment, false);
  const perDecision = number("per-decision", ENV.perDecision, false);
  let timeControl: TimeControl | undefined;
  if (base !== undefined || increment !== undefined || perDecision !== undefined) {
    if (increment && !base) throw new UsageError("an increment needs a base time (--base)");
    if ((base ?? 0) < 0 || (increment ?? 0) < 0 || (perDecision ?? 0) < 0) throw new UsageError("times must not be negative");
    if (!base && !perDecision) throw new UsageError("a time control needs a base time or a per-decision cap");
    timeControl = {};
    if (base) timeControl.base = base;
    if (increment) timeControl.increment = increment;
    if (perDecision) timeControl.perDecision = perDecision;
  }
  const maxConcurrent = number("max-concurrent", undefined, true) ?? 1;
  if (maxConcurrent < 1) throw new UsageError("--max-concurrent must be at least 1");
  const logLevel = (text("log-level") ?? "info") as LogLevel;
  if (!["debug", "info", "warning", "error"].includes(logLevel)) throw new UsageError(`bad --log-level ${JSON.stringify(logLevel)}`);
  const ca = text("ca", ENV.ca);
  const clientCert = text("client-cert", ENV.clientCert);
  const clientKey = text("client-key", ENV.clientKey);
  if ((clientCert === undefined) !== (clientKey === undefined)) throw new UsageError("give --client-cert and --client-key together");
  const tlsEnv = (env[ENV.tls] ?? "").trim().toLowerCase();
  const tls = args.tls === true || ca !== undefined || clientCert !== undefined || ["1", "true", "yes"].includes(tlsEnv);
  const ladder = text("ladder", ENV.ladder);
  const event = text("event", ENV.event);
  if (ladder !== undefined && event !== undefined) throw new UsageError(`give --ladder ($${ENV.ladder}) or --event ($${ENV.event}), not both`);
  return {
    server,
    token,
    game,
    size,
    games: count || undefined,
    timeControl,
    maxConcurrent,
    seed: number("seed", undefined, true),
    logLevel,
    tls,
    ca,
    clientCert,
    clientKey,
    strictSeed: args["strict-seed"] === true,
    ladder,
    event,
    version: text("version", ENV.version),
    connectTimeout: connectTimeout || null,
  };
}

/** One line per finished match, for standard output. */
export function summaryLine(s: MatchSummary): string {
  const score = s.myScore !== undefined && s.opponentScore !== undefined ? ` ${s.myScore}-${s.opponentScore}` : "";
  const seed = s.seedVerified === undefined ? "" : s.seedVerified ? "  seed verified" : "  SEED CHECK FAILED";
  return `${visible(s.matchId)}: ${s.outcome}${score} vs ${visible(s.opponentName)} (${s.game}, ${s.reason})${seed}`;
}

export interface CliConfig {
  description?: string;
  games?: readonly GameName[];
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
  program?: string;
}

/** Parse options, build the bot with makeBot(options), play; resolves to the process exit status. */
export async function runCli(makeBot: (options: BotOptions) => Bot, config: CliConfig = {}): Promise<number> {
  const games = config.games ?? GAMES;
  const program = config.program ?? require("node:path").basename(process.argv[1] ?? "bot");
  let options: BotOptions;
  try {
    options = parseOptions(config.argv ?? process.argv.slice(2), config.env ?? process.env, games);
  } catch (err) {
    if (err instanceof UsageError) {
      if (err.message === "help") {
        process.stdout.write(usage(program, config.description, games));
        return EXIT.ok;
      }
      process.stderr.write(`${usage(program, undefined, games).split("\n")[0]}\n${program}: error: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const inner = makeBot(options);
  const bot: Bot = {
    name: inner.name,
    choose: (o, l, c) => inner.choose(o, l, c),
    onMatchStart: (info) => inner.onMatchStart?.(info),
    onMatchEnd: (summary) => {
      process.stdout.write(summaryLine(summary) + "\n");
      return inner.onMatchEnd?.(summary);
    },
    onMoveRejected: (r) => inner.onMoveRejected?.(r),
  };
  try {
    await run(bot, {
      server: options.server,
      token: options.token,
      game: options.game,
      size: options.size,
      games: options.games,
      timeControl: options.timeControl,
      maxConcurrent: options.maxConcurrent,
      credentials: options.tls ? tlsCredentials({ ca: options.ca, clientCert: options.clientCert, clientKey: options.clientKey }) : undefined,
      strictSeed: options.strictSeed,
      ladder: options.ladder,
      event: options.event,
      version: options.version,
      connectTimeout: options.connectTimeout,
      logger: stderrLogger(options.logLevel),
    });
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    if (err instanceof AuthenticationError) return EXIT.auth;
    if (err instanceof ReplacedError) return EXIT.replaced;
    if (err instanceof SeedMismatch) return EXIT.seed;
    if (err instanceof ArbiterError) return EXIT.error;
    throw err;
  }
  return EXIT.ok;
}

/** Run runCli as a program's main: exit with its status (130 on Ctrl-C). */
export function main(makeBot: (options: BotOptions) => Bot, config: CliConfig = {}): void {
  process.once("SIGINT", () => process.exit(EXIT.interrupted));
  runCli(makeBot, config).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
      process.exit(EXIT.error);
    },
  );
}
