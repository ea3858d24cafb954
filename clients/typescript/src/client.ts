// A typed client for `promptc serve`: one method per server method, errors as typed exceptions.

import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";

import { Connection, type RequestOptions } from "./connection.js";
import { ServerClosedError } from "./errors.js";
import type {
  AnthropicPayload, AnthropicTool, CompileParams, CompileResult, ExplainResult, GeminiPayload,
  GeminiTool, OpenAIChatTool, OpenAIPayload, OpenAIResponsesTool, ParseParams, ParseResult, CheckParams, CheckResult,
  SessionParams, SessionResult,
  ReloadResult, TargetParams, ToolsParams, ToolsText, VariantRow, VersionResult,
} from "./types.js";

/** Options of a client, whether it spawned its server or not. */
export interface ClientOptions {
  /** Milliseconds each request may wait for its answer before failing with `TimeoutError`
   * (default: no limit); a call's own `{ timeout }` overrides it. */
  timeout?: number;
}

export interface SpawnOptions extends ClientOptions {
  /** The program to run; default: $PROMPTC_COMMAND, else `promptc` (found on PATH). */
  command?: string;
  /** Arguments before `serve` (e.g. `["-m", "promptc"]` with command `python3`). */
  args?: string[];
  /** The project (`--project`): its root, its project file or its prompt folder; default: the
   * project file (or `.promptc/`) found from `cwd` upwards. */
  project?: string;
  noProject?: boolean;
  noUser?: boolean;
  noPlugins?: boolean;
  /** Leave out the built-in coding-agent pack (`--no-builtins`), whatever the project says. */
  noBuiltins?: boolean;
  /** Only the built-in variants (the three `no…` options together). */
  builtinsOnly?: boolean;
  /** Requests the server answers at the same time (default 4). */
  workers?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The server's log: "pipe" (default) keeps its last lines for `ServerClosedError`. */
  stderr?: "pipe" | "inherit" | "ignore";
}

const STDERR_KEPT = 4000; // characters of the server's log kept for an error message

function serveArgs(options: SpawnOptions): string[] {
  const flags: [boolean | undefined, string][] = [
    [options.noProject, "--no-project"], [options.noUser, "--no-user"],
    [options.noPlugins, "--no-plugins"], [options.noBuiltins, "--no-builtins"],
    [options.builtinsOnly, "--builtins-only"],
  ];
  const args = [...(options.args ?? []), "serve", ...flags.filter(([on]) => on).map(([, f]) => f)];
  if (options.project !== undefined) {
    args.push("--project", options.project);
  }
  if (options.workers !== undefined) {
    args.push("--workers", String(options.workers));
  }
  return args;
}

export class PromptcClient {
  private readonly connection: Connection;

  /** A client on a running server's streams: `output` is its stdout, `input` its stdin. */
  constructor(output: Readable, input: Writable, options: ClientOptions = {},
              private readonly child?: ChildProcess, private readonly log: () => string = () => "") {
    this.connection = new Connection(output, input, () => {}, () => this.closedError(),
                                     options.timeout);
  }

  /** Start `promptc serve` and connect to it. */
  static spawn(options: SpawnOptions = {}): PromptcClient {
    const command = options.command ?? process.env.PROMPTC_COMMAND ?? "promptc";
    const child = spawn(command, serveArgs(options), {
      cwd: options.cwd, env: options.env ?? process.env,
      stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
    });
    let log = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => { log = (log + chunk).slice(-STDERR_KEPT); });
    // stdin and stdout are pipes (stdio above), so Node always creates them
    const client = new PromptcClient(child.stdout!, child.stdin!,
                                     options.timeout === undefined ? {} : { timeout: options.timeout },
                                     child, () => log);
    child.on("error", (error) => client.connection.fail(
      () => new ServerClosedError(`could not start ${command}: ${error.message}`, null, log)));
    return client;
  }

  /** The prompt for one request: render's JSON (default), or a provider payload (`format`). */
  compile(params: CompileParams & { format?: "json" },
          options?: RequestOptions): Promise<CompileResult>;
  compile(params: CompileParams & { format: "anthropic" },
          options?: RequestOptions): Promise<AnthropicPayload>;
  compile(params: CompileParams & { format: "openai" },
          options?: RequestOptions): Promise<OpenAIPayload>;
  compile(params: CompileParams & { format: "gemini" },
          options?: RequestOptions): Promise<GeminiPayload>;
  compile(params: CompileParams, options?: RequestOptions): Promise<
    CompileResult | AnthropicPayload | OpenAIPayload | GeminiPayload>;
  compile(params: CompileParams, options?: RequestOptions): Promise<unknown> {
    return this.request("compile", params, options);
  }

  /** The tools a request gets: the tools section and names (default), or native definitions. */
  tools(params: ToolsParams & { format?: "text" }, options?: RequestOptions): Promise<ToolsText>;
  tools(params: ToolsParams & { format: "anthropic" },
        options?: RequestOptions): Promise<AnthropicTool[]>;
  tools(params: ToolsParams & { format: "openai" },
        options?: RequestOptions): Promise<(OpenAIChatTool | OpenAIResponsesTool)[]>;
  tools(params: ToolsParams & { format: "gemini" },
        options?: RequestOptions): Promise<GeminiTool[]>;
  tools(params: ToolsParams, options?: RequestOptions): Promise<unknown>;
  tools(params: ToolsParams, options?: RequestOptions): Promise<unknown> {
    return this.request("tools", params, options);
  }

  /** The calls in a reply written in the text tool-call format, with the prose around them. */
  parse(params: ParseParams, options?: RequestOptions): Promise<ParseResult> {
    return this.request("parse", params, options) as Promise<ParseResult>;
  }

  /** A provider's call object through the call checker: the checked call, or the error
   * result ready to send back in the same API's shape. */
  check(params: CheckParams, options?: RequestOptions): Promise<CheckResult> {
    return this.request("check", params, options) as Promise<CheckResult>;
  }

  /** A session script replayed under its provider's caching rules. */
  session(params: SessionParams, options?: RequestOptions): Promise<SessionResult> {
    return this.request("session", params, options) as Promise<SessionResult>;
  }

  /** Why this variant, and where each section and tool came from. */
  explain(params: TargetParams, options?: RequestOptions): Promise<ExplainResult> {
    return this.request("explain", params, options) as Promise<ExplainResult>;
  }

  /** Every registered variant, in the order they are tried. */
  variants(options?: RequestOptions): Promise<VariantRow[]> {
    return this.request("variants", undefined, options) as Promise<VariantRow[]>;
  }

  version(options?: RequestOptions): Promise<VersionResult> {
    return this.request("version", undefined, options) as Promise<VersionResult>;
  }

  /** Read the prompt folders again; requests sent after this one use them. */
  reload(options?: RequestOptions): Promise<ReloadResult> {
    return this.request("reload", undefined, options) as Promise<ReloadResult>;
  }

  /** Any method by name (for methods newer than this package). */
  request(method: string, params?: object, options?: RequestOptions): Promise<unknown> {
    return this.connection.request(method, params as Parameters<Connection["request"]>[1],
                                   options);
  }

  /** End the server's input and wait: it answers every request already sent, then exits.
   * Resolves to its exit code (null for a server this client did not spawn). */
  async close(): Promise<number | null> {
    this.connection.end();
    await this.connection.ended;
    const child = this.child;
    if (child === undefined) {
      return null;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      return child.exitCode;
    }
    return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  private closedError(): ServerClosedError {
    return new ServerClosedError("promptc serve ended before answering",
                                 this.child?.exitCode ?? null, this.log());
  }
}
