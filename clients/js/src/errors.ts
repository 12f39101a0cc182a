// The errors that end a session for good (none of them is retried), and a small logger.
import { status } from "@grpc/grpc-js";

export class ArbiterError extends Error {
  constructor(
    message: string,
    readonly code?: status,
    readonly reason?: string,
  ) {
    super(message);
    this.name = "ArbiterError";
  }
}

/** The arbiter refused the token (UNAUTHENTICATED, BAD_TOKEN) or the bot is disabled. */
export class AuthenticationError extends ArbiterError {
  override name = "AuthenticationError";
}

/** Another connection with the same token took over (ABORTED, REPLACED). */
export class ReplacedError extends ArbiterError {
  override name = "ReplacedError";
}

/** The arbiter refused a request that would be refused again (a bad seek, an unknown ladder). */
export class BadRequestError extends ArbiterError {
  override name = "BadRequestError";
}

/** No connection to the arbiter (no Welcome) within the connect timeout since the session started:
 * a wrong address, or no arbiter running there. Reconnects after a Welcome never throw it. */
export class ConnectError extends ArbiterError {
  override name = "ConnectError";
}

export type LogLevel = "debug" | "info" | "warning" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40, silent: 100 };

export interface Logger {
  log(level: Exclude<LogLevel, "silent">, event: string, fields?: Record<string, unknown>): void;
}

// What a terminal would act on rather than show: controls (ESC, BEL, DEL, C1), format characters
// (bidi overrides, zero-width), surrogates, private use, unassigned, line and paragraph
// separators, and spaces other than the plain one.
const NOT_PRINTABLE = /[\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;

function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
  if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
  return "\\U" + code.toString(16).padStart(8, "0");
}

/** `text` with every character a terminal would act on written as its escape (ESC as `\x1b`,
 * a bidi override as `\u202e`): for text from outside (an opponent's name, a detail). */
export function visible(text: string): string {
  return text.replace(NOT_PRINTABLE, escaped);
}

/** Lines like `08:12:03 [info     ] match started match_id=... game=torrent` on standard error;
 * every value is shown with its control characters made visible. */
export function stderrLogger(level: LogLevel = "info"): Logger {
  return {
    log(at, event, fields = {}) {
      if (ORDER[at] < ORDER[level]) return;
      const time = new Date().toISOString().slice(11, 19);
      const parts = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${visible(typeof v === "string" ? v : String(JSON.stringify(v)))}`);
      process.stderr.write(`${time} [${at.padEnd(9)}] ${event}${parts.length ? " " + parts.join(" ") : ""}\n`);
    },
  };
}
