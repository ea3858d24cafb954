// The client against the real `promptc serve` (found as $PROMPTC_COMMAND, else `promptc` on
// PATH): every method, typed errors for every kind the server sends, pipelined requests,
// reload, a server that is gone, and a client on streams it did not spawn.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  BudgetExceededError, CallShapeError, ConfigError, Connection, ContextError, ERROR_CLASSES, errorFromAnswer,
  InputError, InvalidParamsError, MethodNotFoundError, NoVariantError, ParseError, PromptcClient,
  PromptcError, RpcError, ServerClosedError,
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
  const connection = new Connection(child.stdout, child.stdin, (a) => unmatched.push(a));
  child.stdin.write("{not json\n");
  const version = await connection.request("version");  // and it goes on serving
  assert.equal((version as { name: string }).name, "promptc");
  connection.end();
  await connection.ended;
  assert.equal(unmatched.length, 1);
  const answer = unmatched[0] as { id: null; error: { code: number; message: string } };
  assert.equal(answer.id, null);
  assert.ok(errorFromAnswer(answer.error) instanceof ParseError);
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
