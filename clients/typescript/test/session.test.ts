// The session helper against the real `promptc serve`: the first request opens the
// conversation with the session's details, a mode switch and a new day send the same system
// prompt and tools with an update of their own after the conversation, and later requests keep
// every details message where it was first sent.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { PromptcClient, PromptSession } from "../src/index.js";

const CONTEXT = { cwd: "/home/dev/project", os: "Linux", date: "2026-01-01",
                  mode: "act" as "act" | "plan" };

let promptc: PromptcClient;
before(() => { promptc = PromptcClient.spawn({ builtinsOnly: true }); });
after(async () => { assert.equal(await promptc.close(), 0); });

type Message = { role: string; content: unknown };

function textOf(message: Message): string {
  const content = message.content;
  return typeof content === "string" ? content
    : (content as { text: string }[]).map((block) => block.text).join("");
}

test("a session sends its details as messages of their own, the prefix never rewritten",
     async () => {
  const session = new PromptSession(promptc, { provider: "anthropic", model: "claude-sonnet-4-5",
                                               format: "anthropic" });
  const ask: Message = { role: "user", content: "Add a health check." };
  const first = await session.request(CONTEXT, [ask]);
  const opening = first.messages as Message[];
  assert.equal(opening.length, 2);
  assert.match(textOf(opening[0]!), /^<environment_details>/);
  assert.deepEqual(opening[1], ask);

  const conversation: Message[] = [ask, { role: "assistant", content: "Done." },
                                   { role: "user", content: "Now plan the next step." }];
  const planned = await session.request({ ...CONTEXT, mode: "plan" }, conversation);
  assert.deepEqual(planned.system, first.system);
  assert.deepEqual(planned.tools, first.tools);
  const sent = planned.messages as Message[];
  assert.deepEqual(sent.slice(0, 4), [opening[0]!, ...conversation]);
  assert.equal(sent.length, 5);
  assert.match(textOf(sent[4]!), /^<environment_details>[\s\S]*plan[\s\S]*<\/environment_details>$/);

  // the next day, two turns later: the update stays where it was sent, a new one follows
  const later = [...conversation, { role: "assistant", content: "Planned." },
                 { role: "user", content: "Go on." }];
  const nextDay = await session.request({ ...CONTEXT, mode: "plan", date: "2026-01-02" }, later);
  assert.deepEqual(nextDay.system, first.system);
  const again = nextDay.messages as Message[];
  assert.deepEqual(again.slice(0, 5), sent);
  assert.deepEqual(again.slice(5, 7), later.slice(3));
  assert.match(textOf(again[7]!), /2026-01-02/);
  assert.doesNotMatch(textOf(again[7]!), /# Current mode/);  // only what changed
});

test("an OpenAI chat session keeps its system message first", async () => {
  const session = new PromptSession(promptc, { provider: "openai", model: "gpt-5",
                                               format: "openai", openai_api: "chat" });
  const ask = { role: "user", content: "Hi" };
  const payload = await session.request(CONTEXT, [ask]);
  const messages = payload.messages as Message[];
  assert.equal(messages[0]!.role, "system");
  assert.match(textOf(messages[1]!), /^<environment_details>/);
  assert.deepEqual(messages[2], ask);
  const same = await session.request(CONTEXT, [ask, { role: "assistant", content: "Hello" }]);
  assert.equal((same.messages as Message[]).length, 4);  // nothing changed: no update
});
