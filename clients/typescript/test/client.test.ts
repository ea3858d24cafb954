// The client against the real `promptc serve` (found as $PROMPTC_COMMAND, else `promptc` on
// PATH): every method, typed errors for every kind the server sends, pipelined requests,
// reload, a server that is gone, and a client on streams it did not spawn.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  BudgetExceededError, CallShapeError, ConfigError, Connection, ContextError, ERROR_CLASSES, errorFromAnswer,
  InputError, InvalidParamsError, type Json, MethodNotFoundError, NoVariantError, ParseError,
  PromptcClient, PromptcClientError, PromptcError, RpcError, ServerClosedError, TimeoutError,
} from "../src/index.js";

const COMMAND = process.env.PROMPTC_COMMAND ?? "promptc";
const SONNET = { provider: "anthropic", model: "claude-sonnet-4-5" } as const;
const CONTEXT = { cwd: "/home/dev/project", os: "Linux", date: "2026-01-01" };

describe("one server for the methods and their errors", () => {
  let promptc: PromptcClient;
  before(() => { promptc = PromptcClient.spawn({ builtinsOnly: true }); });
  after(async () => { assert.equal(await promptc.close(), 0); });

  test("version names the methods", async () => {
    const version = await promptc.version();
    assert.equal(version.name, "promptc");
    assert.match(version.version, /^\d+\.\d+/);
    for (const method of ["compile", "tools", "parse", "check", "session", "explain",
                          "variants", "reload"]) {
      assert.ok(version.methods.includes(method), method);
    }
  });

  test("compile's text is what promptc render prints", async () => {
    const result = await promptc.compile({ ...SONNET, context: CONTEXT });
    const dir = mkdtempSync(join(tmpdir(), "promptc-ts-"));
    try {
      writeFileSync(join(dir, "ctx.json"), JSON.stringify(CONTEXT));
      const rendered = execFileSync(COMMAND, ["render", "--provider", SONNET.provider,
        "--model", SONNET.model, "--context", join(dir, "ctx.json"), "--builtins-only"],
      { encoding: "utf8" });
      assert.equal(result.text + "\n", rendered);
    } finally {
      rmSync(dir, { recursive: true });
    }
    assert.ok(result.tokens !== null && result.tokens.total > 0);
    assert.ok(result.sections.some((s) => s.id === "agent_role"));
    assert.equal(result.provider.model, SONNET.model);
  });

  test("compile gives each provider's payload", async () => {
    const anthropic = await promptc.compile({ ...SONNET, context: CONTEXT, format: "anthropic" });
    assert.ok(anthropic.system.length > 0 && (anthropic.tools ?? []).length > 0);
    const openai = await promptc.compile({ provider: "openai", model: "gpt-5", context: CONTEXT,
                                           format: "openai", openai_api: "responses" });
    assert.equal(typeof openai.instructions, "string");
    const gemini = await promptc.compile({ provider: "google", model: "gemini-3-pro-preview",
                                           context: CONTEXT, format: "gemini" });
    // the split (the default): the session's details open the conversation, not the system
    assert.ok(JSON.stringify(gemini.contents).includes("/home/dev/project"));
  });

  test("tools, as text and as native definitions", async () => {
    const text = await promptc.tools({ ...SONNET, native_tools: false });
    assert.equal(text.tool_mode, "text");
    assert.ok(text.text !== null && text.names.every((n) => text.text!.includes(n)));
    const native = await promptc.tools({ ...SONNET, format: "anthropic" });
    assert.deepEqual(native.map((t) => t.name), (await promptc.tools(SONNET)).names);
  });

  test("parse finds calls and errors", async () => {
    const reply = "Looking.\n<read_file>\n<path>a.py</path>\n</read_file>\n" +
      "<read_file>\n<bogus>1</bogus>\n</read_file>";
    const parsed = await promptc.parse({ ...SONNET, native_tools: false, reply });
    const calls = parsed.parts.filter((p) => typeof p !== "string" && "call" in p);
    const errors = parsed.parts.filter((p) => typeof p !== "string" && "error" in p);
    assert.deepEqual(calls, [{ call: { name: "read_file", arguments: { path: "a.py" } } }]);
    assert.equal(errors.length, 1);
    assert.equal(parsed.parts[0], "Looking.\n");
  });

  test("check gives the call, or the error result ready to send", async () => {
    const block = { type: "tool_use", id: "toolu_1", name: "list_files", input: { path: "." } };
    const ok = await promptc.check({ ...SONNET, context: CONTEXT, call: block });
    assert.ok(ok.ok);
    assert.deepEqual(ok.call.arguments, { path: "." });
    assert.equal(ok.wire, "anthropic");
    const bad = await promptc.check({ ...SONNET, context: CONTEXT,
                                      call: { ...block, input: {} } });
    assert.ok(!bad.ok);
    assert.equal(bad.error.code, "missing-parameter");
    assert.deepEqual(bad.tool_result, { type: "tool_result", tool_use_id: "toolu_1",
                                        content: bad.error.message, is_error: true });
    await assert.rejects(promptc.check({ ...SONNET, call: { hello: 1 } }), CallShapeError);
  });

  test("session replays a script", async () => {
    const report = await promptc.session({ script: {
      provider: "anthropic", model: "claude-sonnet-4-5", context: CONTEXT, turn_tokens: 300,
      request: [{}, { repeat: 2 }] } });
    assert.equal(report.requests.length, 3);
    assert.ok(report.totals.cache_read > 0);
  });

  test("explain and variants", async () => {
    const explained = await promptc.explain({ provider: "openai", model: "gpt-4.1" });
    const variants = await promptc.variants();
    assert.ok(variants.some((v) => v.id === explained.variant.id));
    assert.ok(explained.trace.some((t) => t.matched === true));
  });

  test("100 requests in flight are each answered with their own prompt", async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => promptc.compile({
      ...SONNET, format: "anthropic", context: { ...CONTEXT, cwd: `/work/p${i}` },
    })));
    results.forEach((payload, i) => {
      const details = JSON.stringify(payload.messages);  // the split: the first message
      assert.ok(details.includes(`cwd=\\"/work/p${i}\\"`), String(i));
    });
  });

  test("promptc's errors are typed and carry what the CLI prints", async () => {
    const context = await promptc.compile({ ...SONNET, context: { cwd: 3 } as never })
      .catch((e: unknown) => e);
    assert.ok(context instanceof ContextError && context instanceof PromptcError);
    assert.ok(context instanceof RpcError);
    assert.equal(context.code, -32001);
    assert.equal(context.field, "cwd");
    assert.equal(context.type, "ContextError");

    await assert.rejects(promptc.compile({ ...SONNET, variant: "nope" }), NoVariantError);
    const budget = await promptc.compile({ ...SONNET, budget: 100 }).catch((e: unknown) => e);
    assert.ok(budget instanceof BudgetExceededError);
    assert.equal(budget.budget, 100);
    assert.ok(budget.sections.some((s) => s.required) && budget.tokens! > 100);
    const strict = await promptc.compile({ ...SONNET, strict: true,
                                           context: { runtime: { NOPE: 1 } } })
      .catch((e: unknown) => e);
    assert.ok(strict instanceof InputError);
    assert.equal(strict.diagnostic?.code, "input-undeclared");
  });

  test("protocol errors are typed", async () => {
    const unknown = await promptc.request("compil", {}).catch((e: unknown) => e);
    assert.ok(unknown instanceof MethodNotFoundError && unknown.code === -32601);
    const params = await promptc.request("compile", { ...SONNET, contxt: {} })
      .catch((e: unknown) => e);
    assert.ok(params instanceof InvalidParamsError);
    assert.match(params.message, /did you mean 'context'/);
    assert.ok(!(params instanceof PromptcError));
  });
});

test("every code has its class; an unknown code in promptc's range is a PromptcError", () => {
  for (const [code, cls] of ERROR_CLASSES) {
    const err = errorFromAnswer({ code, message: "m" });
    assert.equal(err.constructor, cls);
    assert.equal(err.code, code);
    assert.equal(err instanceof PromptcError, code >= -32099 && code <= -32000);
  }
  assert.equal(errorFromAnswer({ code: -32050, message: "m" }).constructor, PromptcError);
  assert.equal(errorFromAnswer({ code: 1, message: "m" }).constructor, RpcError);
});

test("a line the server cannot read is answered with a parse error (id null)", async () => {
  const child = spawn(COMMAND, ["serve", "--builtins-only"], { stdio: ["pipe", "pipe", "ignore"] });
  const unmatched: unknown[] = [];
  let told: () => void = () => {};
  const parseError = new Promise<void>((resolve) => { told = resolve; });
  const connection = new Connection(child.stdout, child.stdin, (a) => {
    unmatched.push(a);
    told();
  });
  child.stdin.write("{not json\n");  // a line of someone else's, with no request of ours waiting
  await parseError;
  const version = await connection.request("version");  // and it goes on serving
  assert.equal((version as { name: string }).name, "promptc");
  connection.end();
  await connection.ended;
  assert.equal(unmatched.length, 1);
  const answer = unmatched[0] as { id: null; error: { code: number; message: string } };
  assert.equal(answer.id, null);
  assert.ok(errorFromAnswer(answer.error) instanceof ParseError);
});

// --- issue 33, H9: an answer without an id, and timeouts ---------------------------------------

/** A context nested deeper than the server's JSON reader goes; JSON.stringify writes it. */
function tooDeep(): { [name: string]: Json } {
  let value: Json = 1;
  for (let i = 0; i < 2000; i++) {
    value = [value];
  }
  return { X: value };
}

describe("a request the server cannot read fails instead of waiting forever", { timeout: 60_000 },
         () => {
  let promptc: PromptcClient;
  before(() => { promptc = PromptcClient.spawn({ builtinsOnly: true }); });
  after(async () => { assert.equal(await promptc.close(), 0); });

  test("alone", async () => {
    const err = await promptc.compile({ ...SONNET, context: { runtime: tooDeep() } })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ParseError, String(err));
    assert.match(err.message, /nests deeper/);
    assert.match(err.message, /could not read the compile request's line/);
  });

  test("among requests in flight: only the unreadable ones fail", async () => {
    const calls = Array.from({ length: 40 }, (_, i) => (i % 13 === 5
      ? promptc.compile({ ...SONNET, format: "anthropic", context: { runtime: tooDeep() } })
      : promptc.compile({ ...SONNET, format: "anthropic",
                          context: { ...CONTEXT, cwd: `/work/p${i}` } })));
    const settled = await Promise.allSettled(calls);
    settled.forEach((outcome, i) => {
      if (i % 13 === 5) {
        assert.ok(outcome.status === "rejected" && outcome.reason instanceof ParseError, String(i));
      } else {
        assert.ok(outcome.status === "fulfilled", `${i}: ${String((outcome as PromiseRejectedResult).reason)}`);
        const details = JSON.stringify(outcome.value.messages);  // the split: the first message
        assert.ok(details.includes(`cwd=\\"/work/p${i}\\"`), String(i));
      }
    });
    assert.equal((await promptc.version()).name, "promptc");  // and the server goes on
  });
});

test("a client's timeout, and a call's own", { timeout: 60_000 }, async () => {
  const promptc = PromptcClient.spawn({ builtinsOnly: true, timeout: 1 });  // starting takes longer
  try {
    const err = await promptc.version().catch((e: unknown) => e);
    assert.ok(err instanceof TimeoutError && err instanceof PromptcClientError, String(err));
    assert.equal(err.method, "version");
    assert.equal(err.timeout, 1);
    assert.equal((await promptc.version({ timeout: 60_000 })).name, "promptc");
    const big = { ...CONTEXT, mcp_servers: [{ name: "big", tools: Array.from(
      { length: 3000 }, (_, i) => ({ name: `tool_${i}`, description: `Tool ${i}.` })) }] };
    await assert.rejects(promptc.compile({ ...SONNET, context: big }), TimeoutError);
    await assert.rejects(promptc.version({ timeout: 0 }), RangeError);
    await assert.rejects(promptc.version({ timeout: Number.NaN }), RangeError);
    // the late answers are dropped; later requests are answered as usual
    assert.equal((await promptc.compile({ ...SONNET, context: big }, { timeout: 60_000 }))
      .provider.model, SONNET.model);
  } finally {
    assert.equal(await promptc.close(), 0);
  }
});

describe("which request an answer without an id belongs to (streams of our own)", () => {
  interface Wire { connection: Connection; sent: () => number[]; answer: (line: object) => void;
                   unmatched: unknown[] }

  function wire(timeout?: number): Wire {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const lines: string[] = [];
    toServer.on("data", (chunk: Buffer) => { lines.push(...chunk.toString("utf8").split("\n")
      .filter((l) => l !== "")); });
    const unmatched: unknown[] = [];
    const connection = new Connection(fromServer, toServer, (a) => unmatched.push(a),
                                      undefined, timeout);
    return {
      connection, unmatched,
      sent: () => lines.map((l) => (JSON.parse(l) as { id: number }).id),
      answer: (line) => fromServer.write(JSON.stringify({ jsonrpc: "2.0", ...line }) + "\n"),
    };
  }

  const flush = () => new Promise((resolve) => setImmediate(resolve));
  const UNREADABLE = { id: null, error: { code: -32700, message: "parse error" } };

  test("the request left once the others are answered", async () => {
    const w = wire();
    const outcomes: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(
      () => outcomes.push(`${name} ok`), (e: unknown) => outcomes.push(`${name} ${(e as Error).name}`));
    const all = [track("a", w.connection.request("a")), track("b", w.connection.request("b")),
                 track("c", w.connection.request("c"))];
    await flush();
    const [a, b, c] = w.sent();
    w.answer(UNREADABLE);
    await flush();
    assert.deepEqual(outcomes, []);  // any of the three could be the unreadable line
    w.answer({ id: a, result: 1 });
    await flush();
    assert.deepEqual(outcomes, ["a ok"]);
    w.answer({ id: c, result: 3 });
    await Promise.all(all);
    assert.deepEqual(outcomes, ["a ok", "c ok", "b ParseError"]);
    assert.equal(w.unmatched.length, 1);
    assert.ok(b !== undefined);
  });

  test("two unreadable lines among two requests fail both at once", async () => {
    const w = wire();
    const p = [w.connection.request("a"), w.connection.request("b")];
    await flush();
    w.answer(UNREADABLE);
    w.answer(UNREADABLE);
    const settled = await Promise.allSettled(p);
    assert.ok(settled.every((s) => s.status === "rejected" && s.reason instanceof ParseError));
  });

  test("an error with no request waiting fails nothing; a timed-out request still counts",
       async () => {
    const w = wire();
    w.answer(UNREADABLE);  // someone else's line
    await flush();
    const slow = w.connection.request("slow", undefined, { timeout: 5 });
    const other = w.connection.request("other");
    await flush();
    const [slowId, otherId] = w.sent();
    w.answer(UNREADABLE);  // the slow one's line, as it turns out
    await assert.rejects(slow, TimeoutError);
    w.answer({ id: otherId, result: "fine" });
    assert.equal(await other, "fine");  // not failed for the timed-out request's error
    await flush();
    assert.equal(w.unmatched.length, 2);
    assert.ok(slowId !== undefined);
  });

  test("an answer after its request's timeout is dropped quietly", async () => {
    const w = wire(5);  // the connection's default
    const slow = w.connection.request("slow");
    await assert.rejects(slow, (e: unknown) => e instanceof TimeoutError && e.timeout === 5);
    const [slowId] = w.sent();
    w.answer({ id: slowId, result: "late" });
    const next = w.connection.request("next", undefined, { timeout: 60_000 });
    await flush();
    w.answer({ id: w.sent()[1], result: "on time" });
    assert.equal(await next, "on time");
    assert.deepEqual(w.unmatched, []);
  });
});

test("a client on streams it did not spawn", async () => {
  const child = spawn(COMMAND, ["serve", "--builtins-only"], { stdio: ["pipe", "pipe", "ignore"] });
  const promptc = new PromptcClient(child.stdout, child.stdin);
  assert.equal((await promptc.version()).name, "promptc");
  assert.equal(await promptc.close(), null);
  await assert.rejects(promptc.version(), ServerClosedError);
});

test("reload picks up a changed project folder", async () => {
  const dir = mkdtempSync(join(tmpdir(), "promptc-ts-"));
  const project = join(dir, ".promptc");
  mkdirSync(project);
  const promptc = PromptcClient.spawn({ project, noUser: true, noPlugins: true, cwd: dir });
  try {
    assert.ok(!(await promptc.variants()).some((v) => v.id === "mine"));
    mkdirSync(join(project, "variants", "mine"), { recursive: true });
    writeFileSync(join(project, "variants", "mine", "variant.toml"), 'extends = "generic"\n');
    const reloaded = await promptc.reload();
    assert.ok(reloaded.sources.some((s) => s.layer === "project"));
    const mine = (await promptc.variants()).find((v) => v.id === "mine");
    assert.equal(mine?.source, "project");
    writeFileSync(join(project, "variants", "mine", "variant.toml"), "extends = [\n");
    await assert.rejects(promptc.reload(), ConfigError);
    assert.ok((await promptc.variants()).some((v) => v.id === "mine"));  // the old one stays
    assert.equal(await promptc.close(), 0);
  } finally {
    await promptc.close();
    rmSync(dir, { recursive: true });
  }
});

test("a server that cannot start or has ended rejects with ServerClosedError", async () => {
  const missing = PromptcClient.spawn({ command: "promptc-no-such-program" });
  const err = await missing.version().catch((e: unknown) => e);
  assert.ok(err instanceof ServerClosedError);
  assert.match(err.message, /could not start promptc-no-such-program/);
  await missing.close();
  const promptc = PromptcClient.spawn({ builtinsOnly: true });
  const pending = promptc.version();  // sent before close: still answered
  assert.equal(await promptc.close(), 0);
  assert.equal((await pending).name, "promptc");
  await assert.rejects(promptc.version(), ServerClosedError);
});
