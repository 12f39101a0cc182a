// arbiter-bot: the TypeScript/JavaScript SDK for Arbiter bots.
export * from "./address";
export * from "./bot";
export * from "./client";
export * from "./errors";
export * from "./seedcheck";
export * from "./wire";
export * from "./random";
export { runCli, main, parseOptions, BotOptions, summaryLine, UsageError, EXIT, ENV, DEFAULT_SERVER, usage } from "./cli";
export * as pb from "./gen/arbiter/v1/bot_service";
export * as flankPb from "./gen/arbiter/v1/flank";
export * as surgePb from "./gen/arbiter/v1/surge";
export * as commonPb from "./gen/arbiter/v1/common";
export * from "./flank";
export * as engine from "./engine";
