// promptc-client: call `promptc serve` from TypeScript.
export { type ClientOptions, PromptcClient, type SpawnOptions } from "./client.js";
export { Connection, type RequestOptions } from "./connection.js";
export { PromptSession, type SessionOptions } from "./session.js";
export * from "./errors.js";
export type * from "./types.js";
