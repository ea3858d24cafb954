// A session's prompts over `promptc serve`: the payload for each request of one conversation,
// with the session's environment details in place, sent without client code.
//
// With the split placement (the default) the system prompt is the same bytes for the whole
// session and the details (machine, rules, MCP servers, mode, date…) are user messages of their
// own: the first one opens the conversation, and when a request's context changes them, the
// sections that changed follow as an update where they changed. The server remembers the
// session's last prompt (`compile` with `session`); this helper remembers where each details
// message went, so the conversation you keep stays yours and every request sends the same
// bytes before its newest messages (what the provider's cache reads).

import { randomUUID } from "node:crypto";

import type { PromptcClient } from "./client.js";
import type { CompileParams, PayloadFormat, PromptContextData } from "./types.js";

/** What a session's requests share: the target and the payload's format and shapes. */
export type SessionOptions = Omit<CompileParams, "context" | "format"> & { format: PayloadFormat };

type Payload = Record<string, unknown>;

/** Where a payload carries its conversation, per format (Chat Completions after its system
 * message). */
function conversationKey(payload: Payload): "messages" | "input" | "contents" {
  if ("contents" in payload || "system_instruction" in payload) {
    return "contents";
  }
  return "instructions" in payload ? "input" : "messages";
}

export class PromptSession {
  /** The id the server knows this session by. */
  readonly id: string;
  private started = false;
  private first: unknown[] = [];
  private readonly updates: { at: number; message: unknown }[] = [];

  constructor(private readonly client: PromptcClient, private readonly options: SessionOptions,
              id?: string) {
    this.id = id ?? randomUUID();
  }

  /** The payload for the next request of this session: `context` is the request's context,
   * `conversation` the messages you keep (without promptc's, append-only, in the format's
   * shape). Its conversation is yours with the details in place. */
  async request(context: PromptContextData, conversation: readonly unknown[] = []
               ): Promise<Payload> {
    const payload = await this.client.compile({ ...this.options, context,
                                                session: this.id } as CompileParams) as Payload;
    const key = conversationKey(payload);
    const sent = (payload[key] as unknown[] | undefined) ?? [];
    const head = key === "messages" && this.options.format === "openai" ? sent.slice(0, 1) : [];
    const added = sent.slice(head.length);
    if (!this.started) {
      this.started = true;
      this.first = added; // a new session: the first details message
    } else if (added.length > 0) {
      this.updates.push(...added.map((message) => ({ at: conversation.length, message })));
    }
    return { ...payload, [key]: [...head, ...this.placed(conversation)] };
  }

  /** The conversation with the details messages where they were first sent. */
  private placed(conversation: readonly unknown[]): unknown[] {
    const out: unknown[] = [...this.first];
    const pending = [...this.updates];
    conversation.forEach((message, i) => {
      while (pending.length > 0 && pending[0]!.at <= i) {
        out.push(pending.shift()!.message);
      }
      out.push(message);
    });
    return [...out, ...pending.map((update) => update.message)];
  }
}
