// The TypeScript example of docs/serve.md (once in the README), as written there: it
// type-checks against this package, and it runs, sending the Messages API exactly the system
// blocks and tools `compile` gives (a local server stands in for the API).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

import ts from "typescript";

import { PromptcClient } from "../src/index.js";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SERVE_PAGE = readFileSync(join(PACKAGE, "..", "..", "docs", "serve.md"), "utf8");

function example(): string {
  const block = SERVE_PAGE.match(/```ts\n([\s\S]*?)\n```/);
  assert.ok(block?.[1], "docs/serve.md has a ```ts example");
  return block[1];
}

function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(join(PACKAGE, "tsconfig.json"), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, PACKAGE).options;
  const program = ts.createProgram([file], { ...options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map(
    (d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

interface Posted { headers: IncomingHttpHeaders; body: { [key: string]: unknown } }

async function fakeApi(): Promise<{ url: string; posted: Posted[]; close: () => void }> {
  const posted: Posted[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => { body += chunk.toString("utf8"); });
    request.on("end", () => {
      posted.push({ headers: request.headers, body: JSON.parse(body) as Posted["body"] });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ content: [{ type: "text", text: "Here they are." }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, posted, close: () => server.close() };
}

test("the serve page's agent example type-checks and sends promptc's prompt", async () => {
  // inside the package (dist/), so `import "promptc-client"` resolves to this build
  const source = join(PACKAGE, "dist", "readme_example.ts");
  writeFileSync(source, example());
  assert.deepEqual(typeErrors(source), []);
  const js = ts.transpileModule(readFileSync(source, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  writeFileSync(join(PACKAGE, "dist", "readme_example.js"), js);

  const api = await fakeApi();
  const cwd = mkdtempSync(join(tmpdir(), "promptc-agent-"));
  try {
    const run = await promisify(execFile)(process.execPath,
      [join(PACKAGE, "dist", "readme_example.js")],
      { cwd, env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "k" } });
    assert.match(run.stdout, /Here they are\./);
    const [sent] = api.posted;
    assert.ok(sent !== undefined && api.posted.length === 1);
    assert.equal(sent.headers["x-api-key"], "k");
    const promptc = PromptcClient.spawn({ cwd });  // the same sources as the example's server
    const expected = await promptc.compile({ provider: "anthropic", model: "claude-sonnet-4-5",
      context: { cwd, os: process.platform }, format: "anthropic" });
    await promptc.close();
    assert.deepEqual(sent.body.system, expected.system);
    assert.deepEqual(sent.body.tools, expected.tools);
    assert.equal(sent.body.model, "claude-sonnet-4-5");
  } finally {
    api.close();
    rmSync(cwd, { recursive: true });
  }
});

/** The public methods of a class and the properties of an interface, read from the source. */
function declared(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
  const out: string[] = [];
  source.forEachChild((node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) &&
        node.name?.text === name) {
      for (const member of node.members) {
        const hidden = ts.canHaveModifiers(member) && (ts.getModifiers(member) ?? []).some(
          (m) => m.kind === ts.SyntaxKind.PrivateKeyword);
        if (!hidden && member.name !== undefined && ts.isIdentifier(member.name) &&
            (ts.isMethodDeclaration(member) || ts.isPropertySignature(member))) {
          out.push(member.name.text);
        }
      }
    }
  });
  return [...new Set(out)];
}

test("the client's README names every method and every spawn option", () => {
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const client = join(PACKAGE, "src", "client.ts");
  const methods = declared(client, "PromptcClient");
  assert.ok(methods.includes("check") && methods.includes("session"), methods.join(", "));
  for (const method of methods) {
    assert.match(readme, new RegExp(`[\`.]${method}\\(`), `method ${method}`);
  }
  const options = [...declared(client, "SpawnOptions"), ...declared(client, "ClientOptions")];
  assert.ok(options.includes("command") && options.includes("project"), options.join(", "));
  for (const option of options) {
    assert.ok(readme.includes(`\`${option}\``), `option ${option}`);
  }
  assert.match(readme, /--project DIR/);
});
