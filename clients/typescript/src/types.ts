// The params and results of `promptc serve`'s methods, as `promptc help serve` describes them.
// A result is the JSON the matching command prints (`render --format json`, `tools --format …`,
// `parse`, `explain --json`, `variants --json`), so these types follow those commands.

/** Anything JSON can carry. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema object (an MCP tool's input schema, a native tool's parameters). */
export type JsonSchema = { [key: string]: Json };

// --- the context: the context file's shape (`promptc help context`) -------------------------------

export interface ProviderFacts {
  id?: string;
  model?: string;
  context_window?: number;
  max_output?: number;
  native_tools?: boolean;
  parallel_tools?: boolean;
  images?: boolean;
  prompt_caching?: boolean;
  cache_min_tokens?: number;
  reasoning?: boolean;
  family?: string;
}

export interface McpTool {
  name: string;
  description?: string;
  input_schema?: JsonSchema;
}

export interface McpServer {
  name: string;
  command?: string;
  url?: string;
  tools?: McpTool[];
  resources?: { uri: string; name?: string; description?: string; mime_type?: string }[];
  resource_templates?: {
    uri_template: string;
    name?: string;
    description?: string;
    mime_type?: string;
  }[];
}

/** What the client knows about one request. Every field is optional; an unknown one is a
 * `ContextError`. */
export interface PromptContextData {
  provider?: ProviderFacts;
  cwd?: string;
  os?: string;
  shell?: string;
  home?: string;
  ide?: string;
  mode?: "act" | "plan";
  /** YYYY-MM-DD; default: the server's today. */
  date?: string;
  workspace_roots?: { path: string; name?: string; vcs?: string }[];
  rules?: { name: string; text: string; origin?: string }[];
  mcp_servers?: McpServer[];
  skills?: { name: string; description?: string; content?: string; references?: string[] }[];
  features?: { [name: string]: boolean };
  attachments?: { name: string; type?: string; size?: number }[];
  /** Values for the variant's declared runtime inputs. */
  runtime?: { [name: string]: Json };
}

// --- params ---------------------------------------------------------------------------------------

/** The request: which model, and what the client knows. `provider`/`model` override the
 * context's `provider` table (a different model drops the capabilities given for the old one);
 * without either, the project file's `model`. */
export interface TargetParams {
  provider?: string;
  model?: string;
  context?: PromptContextData;
  /** Values for the variant's declared inputs, over the context's `runtime` (a missing required
   * one, or a value that breaks its declaration, is an `InputError` in every mode). */
  runtime?: { [name: string]: Json };
  /** A variant id instead of matching (`variants()` lists them). */
  variant?: string;
  native_tools?: boolean;
  images?: boolean;
  context_window?: number;
  family?: string;
}

/** How native tool definitions are shaped. */
export interface ShapeParams {
  openai_api?: "chat" | "responses";
  strict_tools?: boolean;
  gemini_schema?: "openapi" | "json";
}

export type PayloadFormat = "anthropic" | "openai" | "gemini";

export interface CompileParams extends TargetParams, ShapeParams {
  /** Any warning or error diagnostic becomes an error (its own class, with the diagnostic). */
  strict?: boolean;
  /** Fit the prompt into this many tokens (`BudgetExceededError` when it cannot). */
  budget?: number;
  /** Where the text that changes during a session goes: "message" (the default) a first user
   * message of its own (`message`), the system prompt the part every session shares
   * (`system`); "system" the whole prompt as the system prompt. */
  dynamic?: "system" | "message";
  /** A session id: the server remembers the session's last prompt, and answers with the
   * update since it (`PromptSession` does this for you). */
  session?: string;
  /** "json" (default): the prompt with sections, tokens and diagnostics; else a payload. */
  format?: "json" | PayloadFormat;
  /** Anthropic cache breakpoints, 0-4 (default 2). */
  breakpoints?: number;
}

export interface ToolsParams extends TargetParams, ShapeParams {
  strict?: boolean;
  /** "text" (default): the tools section and the names; else native definitions. */
  format?: "text" | PayloadFormat;
}

export type Mode = "plan" | "act";

export interface ParseParams extends TargetParams {
  /** The model's reply, in the text tool-call format. */
  reply: string;
  /** Check the calls against this mode (default: the context's). */
  mode?: Mode;
}

export interface CheckParams extends TargetParams {
  /** A provider's call object as JSON: an Anthropic tool_use block, an OpenAI Chat tool_call,
   * a Responses function_call or custom_tool_call item, a Gemini function call or the part
   * holding it. */
  call: { [key: string]: Json };
  mode?: Mode;
}

export interface SessionParams {
  /** A session script's data (the TOML keys, as JSON). */
  script: { [key: string]: Json };
  dynamic?: "system" | "message";
  breakpoints?: number;
  max_breaks?: number;
  min_cached_share?: number;
}

// --- results --------------------------------------------------------------------------------------

export type Level = "error" | "warning" | "info";

export interface Diagnostic {
  level: Level;
  code: string;
  message: string;
  source: string;
}

export interface Section {
  id: string;
  chars: number;
  tokens: number | null;
  cache: "static" | "session" | "request" | string;
  origin: string;
  priority: number;
  required: boolean;
  form: "full" | "short" | string;
}

export interface TraceStep {
  variant: string;
  priority: number;
  /** null: the matcher raised. */
  matched: boolean | null;
  raised: boolean;
  reason: string;
  source: string;
}

export interface Dropped {
  id: string;
  priority: number;
  tokens: number;
  reason: string;
  action: "dropped" | "shortened";
}

export interface BudgetRow {
  id: string;
  status: "kept" | "shortened" | "dropped";
  required: boolean;
  priority: number | null;
  tokens: number;
  saved: number;
}

/** `promptc render --format json`. */
export interface CompileResult {
  variant: { id: string; family: string; source: string };
  provider: { provider: string; model: string; family: string };
  /** The whole prompt as one string, byte for byte what `promptc render` prints (without its
   * final newline). */
  text: string;
  /** Where the prompt went: "message" (the split) or "system". */
  dynamic: "system" | "message";
  /** The system prompt as sent (the whole `text`, or with the split the shared part). */
  system: { text: string; sections: Section[] };
  /** The split's first user message (empty with "system"). */
  message: { text: string; sections: Section[] };
  /** With `session`: whether the server knew the session, and the update since its last
   * prompt ("" when nothing changed). */
  continued?: boolean;
  update?: string;
  sections: Section[];
  tokens: {
    total: number;
    encoding: string;
    estimated: boolean;
    tools: number;
    tools_format: string;
    with_tools: number;
  } | null;
  budget: number | null;
  dropped: Dropped[];
  blocks: { cache: string; chars: number; sections: string[] }[];
  fingerprints: { static: string; full: string };
  tools: { mode: "native" | "text"; names: string[] };
  placeholders: { [name: string]: string };
  diagnostics: Diagnostic[];
  trace: TraceStep[];
  /** Only when a budget shortened or dropped sections. */
  budget_report?: {
    budget: number;
    tokens_before: number;
    tokens_after: number;
    sections: BudgetRow[];
  };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
}

export interface GeminiTool {
  function_declarations: {
    name: string;
    description: string;
    parameters?: JsonSchema;
    parameters_json_schema?: JsonSchema;
  }[];
}

export interface AnthropicPayload {
  system: { type: "text"; text: string; cache_control?: { type: "ephemeral" } }[];
  tools?: AnthropicTool[];
  [key: string]: unknown;
}

export interface OpenAIPayload {
  /** Chat Completions. */
  messages?: { role: string; content: string }[];
  /** Responses API. */
  instructions?: string;
  tools?: (OpenAIChatTool | OpenAIResponsesTool)[];
  prompt_cache_key?: string;
  [key: string]: unknown;
}

export interface GeminiPayload {
  system_instruction: { parts: { text: string }[] };
  tools?: GeminiTool[];
  [key: string]: unknown;
}

/** `tools` with format "text". */
export interface ToolsText {
  tool_mode: "native" | "text";
  /** The prompt's tools section; null for a variant that sends tools natively. */
  text: string | null;
  names: string[];
}

export interface ToolCall {
  name: string;
  arguments: { [name: string]: Json };
  /** For an MCP tool: its server and the tool's own name. */
  server?: string;
  tool?: string;
  /** For a provider's call object (`check`): its id. */
  call_id?: string;
  warnings?: CallWarning[];
}

export interface CallWarning {
  code: string;
  message: string;
  start: number;
  end: number;
  name?: string;
  /** foreign-format: the same call in the taught form. */
  suggestion?: string;
}

export interface CallError {
  name: string;
  code: string;
  /** Written to be sent back to the model as the tool result. */
  message: string;
  problems: { code: string; message: string; parameter: string | null }[];
  arguments: { [name: string]: Json };
}

/** `promptc parse`: the reply's prose, calls and errors, in order. */
export interface ParseResult {
  tool_mode: "native" | "text";
  parts: (string | { call: ToolCall } | { error: CallError })[];
  warnings: CallWarning[];
}

/** `check`: the call to run, or the error result ready to send back in the call's shape. */
export type CheckResult =
  | { ok: true; call: ToolCall; wire: string }
  | { ok: false; error: CallError; tool_result: { [key: string]: Json } };

/** `promptc session --format json` (the fixed keys; the rest is there too). */
export interface SessionResult {
  requests: { cache_read: number; cache_write: number; uncached: number; turn_tokens: number;
              break: { [key: string]: Json } | null; [key: string]: Json }[];
  totals: { cache_read: number; cache_write: number; uncached: number;
            cost: { [key: string]: Json } | number; [key: string]: Json };
  [key: string]: Json;
}

/** `promptc explain --json`. */
export interface ExplainResult {
  provider: {
    provider: string;
    model: string;
    family: string;
    context_window: number | null;
    native_tools: boolean | null;
    images: boolean | null;
    prompt_caching: boolean | null;
    cache_min_tokens: number | null;
    encoding: string | null;
  };
  normalized_model: string;
  capabilities: { [name: string]: { value: Json; source: string } };
  variant: {
    id: string;
    family: string;
    source: string;
    path: string;
    extends: string | null;
    chosen_by: string;
    tool_mode: "native" | "text";
  };
  tool_mode: { mode: "native" | "text"; decided_by?: string; reason?: string;
               overrides_variant?: boolean };
  trace: TraceStep[];
  sections: Section[];
  tools: { name: string; source: string; origin: string }[];
  placeholders: { [name: string]: string };
  sources: { layer: string; path: string }[];
  diagnostics: Diagnostic[];
}

/** One row of `promptc variants --json`, in the order variants are tried. */
/** One declared runtime input of a variant (`promptc variants --json`). */
export interface InputRow {
  name: string;
  type: "string" | "number" | "boolean" | "select" | "date" | "list" | "object";
  required: boolean;
  default: Json;
  example: Json;
  label: string;
  description: string;
  /** A select input's choices (empty for other types). */
  options: string[];
}

export interface VariantRow {
  id: string;
  family: string;
  priority: number;
  source: string;
  extends: string | null;
  fallback: boolean;
  tool_mode: string;
  match: string;
  path: string;
  description: string;
  overrides: string[];
  inputs: InputRow[];
}

export interface VersionResult {
  name: "promptc";
  version: string;
  /** The methods this server answers (newer servers add some). */
  methods: string[];
}

export interface ReloadResult {
  variants: number;
  sources: { layer: string; path: string }[];
  diagnostics: Diagnostic[];
}
