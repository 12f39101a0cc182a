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

export type LogLevel = "debug" | "info" | "warning" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40, silent: 100 };

export interface Logger {
  log(level: Exclude<LogLevel, "silent">, event: string, fields?: Record<string, unknown>): void;
}

/** Lines like `08:12:03 [info     ] match started match_id=... game=torrent` on standard error. */
export function stderrLogger(level: LogLevel = "info"): Logger {
  return {
    log(at, event, fields = {}) {
      if (ORDER[at] < ORDER[level]) return;
      const time = new Date().toISOString().slice(11, 19);
      const parts = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
      process.stderr.write(`${time} [${at.padEnd(9)}] ${event}${parts.length ? " " + parts.join(" ") : ""}\n`);
    },
  };
}
