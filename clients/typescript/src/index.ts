// promptc-client: call `promptc serve` from TypeScript.
export { PromptcClient, type SpawnOptions } from "./client.js";
export { Connection } from "./connection.js";
export { PromptSession, type SessionOptions } from "./session.js";
export * from "./errors.js";
export type * from "./types.js";
