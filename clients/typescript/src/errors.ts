// Every error an answer can carry, as its own class: the JSON-RPC kinds (-32700…-32603) and
// promptc's own (-32000…-32099, one code per error class; `data` says what the CLI would print).
// `instanceof` works on every level: `err instanceof PromptcError` catches all of promptc's.

import type { BudgetRow, Diagnostic, Json } from "./types.js";

/** The error object of a JSON-RPC answer. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: Json;
}

/** The base of everything this package throws. */
export class PromptcClientError extends Error {
  override name = "PromptcClientError";
}

/** The server is not running (it could not start, it exited, or `close()` was called); the
 * request was not answered. `stderr` holds the server's last log lines when it was spawned. */
export class ServerClosedError extends PromptcClientError {
  override name = "ServerClosedError";
  constructor(message: string, readonly exitCode: number | null = null,
              readonly stderr: string = "") {
    super(stderr ? `${message}\n${stderr}` : message);
  }
}

/** The request's timeout passed before its answer came (the server may still do the work; its
 * late answer is dropped). */
export class TimeoutError extends PromptcClientError {
  override name = "TimeoutError";
  constructor(readonly method: string, readonly timeout: number) {
    super(`promptc serve did not answer ${method} within ${timeout} ms`);
  }
}

/** An error answer. `code` and `data` as the server sent them. */
export class RpcError extends PromptcClientError {
  override name = "RpcError";
  readonly code: number;
  readonly data: Json | undefined;
  constructor(error: RpcErrorObject) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

/** -32700: the server could not read a line as JSON. */
export class ParseError extends RpcError { override name = "ParseError"; }
/** -32600: the line was JSON but not a request. */
export class InvalidRequestError extends RpcError { override name = "InvalidRequestError"; }
/** -32601: the server has no such method (`version()` lists those it has). */
export class MethodNotFoundError extends RpcError { override name = "MethodNotFoundError"; }
/** -32602: a param is unknown, of the wrong type, out of range or missing. */
export class InvalidParamsError extends RpcError { override name = "InvalidParamsError"; }
/** -32603: a bug in the server; it logged it and goes on. */
export class InternalError extends RpcError { override name = "InternalError"; }

/** What promptc's own errors carry in `data`. */
export interface PromptcErrorData {
  /** The Python class, e.g. "ContextError", "TemplateError". */
  type: string;
  /** The message the CLI prints after `promptc: error: ` (also the error's `message`). */
  message: string;
  field: string | null;
  source: string | null;
  line: number | null;
  /** When strict mode raised the error for a diagnostic. */
  diagnostic?: Diagnostic;
}

/** -32000…-32099: promptc refused the request (bad context, no variant, strict, budget, …).
 * An unknown code in the range (a newer server) is this class itself. */
export class PromptcError extends RpcError {
  override name = "PromptcError";
  readonly type: string;
  readonly field: string | null;
  readonly source: string | null;
  readonly line: number | null;
  readonly diagnostic: Diagnostic | undefined;
  constructor(error: RpcErrorObject) {
    super(error);
    const data = (error.data ?? {}) as Partial<PromptcErrorData>;
    this.type = data.type ?? "PromptcError";
    this.field = data.field ?? null;
    this.source = data.source ?? null;
    this.line = data.line ?? null;
    this.diagnostic = data.diagnostic;
  }
}

/** -32001: the context has an unknown or mistyped field (`field` names it). */
export class ContextError extends PromptcError { override name = "ContextError"; }
/** -32002: no variant matched and there is no fallback, or the `variant` id is unknown. */
export class NoVariantError extends PromptcError { override name = "NoVariantError"; }
/** -32003: the required sections alone do not fit the budget. */
export class BudgetExceededError extends PromptcError {
  override name = "BudgetExceededError";
  readonly budget: number | null;
  /** The tokens the smallest prompt still needs. */
  readonly tokens: number | null;
  readonly sections: BudgetRow[];
  constructor(error: RpcErrorObject) {
    super(error);
    const data = (error.data ?? {}) as { budget?: number; tokens?: number;
                                         sections?: BudgetRow[] };
    this.budget = data.budget ?? null;
    this.tokens = data.tokens ?? null;
    this.sections = data.sections ?? [];
  }
}
/** -32004: strict mode turned a diagnostic into an error (no more specific class applied). */
export class StrictModeError extends PromptcError { override name = "StrictModeError"; }
/** -32005: a runtime input is missing, mistyped, outside its options or undeclared. */
export class InputError extends PromptcError { override name = "InputError"; }
/** -32006: a placeholder has no value, or one of the wrong kind. */
export class PlaceholderError extends PromptcError { override name = "PlaceholderError"; }
/** -32007: a component raised, returned a non-string, or is missing. */
export class ComponentError extends PromptcError { override name = "ComponentError"; }
/** -32008: a prompt folder's file is malformed (variant, template, tool spec; `type` says). */
export class ConfigError extends PromptcError { override name = "ConfigError"; }
/** -32009: a plugin failed to import or register. */
export class PluginError extends PromptcError { override name = "PluginError"; }
/** -32010: a variant's matcher raised. */
export class MatcherError extends PromptcError { override name = "MatcherError"; }
/** -32011: data promptc reads from an installed package is missing or altered. */
export class OfflineDataError extends PromptcError { override name = "OfflineDataError"; }

/** -32012: `check` was given an object that is no provider's call object. */
export class CallShapeError extends PromptcError { override name = "CallShapeError"; }

type RpcErrorClass = new (error: RpcErrorObject) => RpcError;

/** The class for each code. */
export const ERROR_CLASSES: ReadonlyMap<number, RpcErrorClass> = new Map<number, RpcErrorClass>([
  [-32700, ParseError],
  [-32600, InvalidRequestError],
  [-32601, MethodNotFoundError],
  [-32602, InvalidParamsError],
  [-32603, InternalError],
  [-32000, PromptcError],
  [-32001, ContextError],
  [-32002, NoVariantError],
  [-32003, BudgetExceededError],
  [-32004, StrictModeError],
  [-32005, InputError],
  [-32006, PlaceholderError],
  [-32007, ComponentError],
  [-32008, ConfigError],
  [-32009, PluginError],
  [-32010, MatcherError],
  [-32011, OfflineDataError],
  [-32012, CallShapeError],
]);

/** The typed error for an error answer. */
export function errorFromAnswer(error: RpcErrorObject): RpcError {
  const cls = ERROR_CLASSES.get(error.code);
  if (cls !== undefined) {
    return new cls(error);
  }
  return error.code <= -32000 && error.code >= -32099 ? new PromptcError(error)
    : new RpcError(error);
}
