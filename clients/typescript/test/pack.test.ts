// The package as a user gets it: `npm pack` (its prepack build) makes a tarball that
// `npm install` puts into an empty app, where `import … from "promptc-client"` works, in
// JavaScript and type-checked TypeScript, and calls the real `promptc serve` (found as
// $PROMPTC_COMMAND, else `promptc` on PATH). The package is packed from a clean copy of its
// sources (no dist/), as from a fresh checkout.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync }
  from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

import ts from "typescript";

const run = promisify(execFile);
const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

const APP_JS = `import { PromptcClient, ParseError } from "promptc-client";
const promptc = PromptcClient.spawn({ builtinsOnly: true, timeout: 60000 });
const version = await promptc.version();
const prompt = await promptc.compile({ provider: "openai", model: "gpt-4.1",
                                       context: { cwd: "/srv/app" } });
console.log(JSON.stringify({ name: version.name, variant: prompt.variant.id,
                             hasCwd: prompt.text.includes("/srv/app"),
                             parseError: typeof ParseError, exit: await promptc.close() }));
`;

const APP_TS = `import { type CompileResult, PromptcClient, TimeoutError } from "promptc-client";
const promptc: PromptcClient = PromptcClient.spawn({ project: "/srv/app/.promptc" });
const prompt: CompileResult = await promptc.compile({ provider: "openai", model: "gpt-4.1" },
                                                    { timeout: 1000 });
const text: string = prompt.text;
export { text, TimeoutError };
`;

function typeErrors(app: string): string[] {
  const program = ts.createProgram([join(app, "app.ts")], {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true,
    types: ["node"], typeRoots: [join(PACKAGE, "node_modules", "@types")],
  });
  return ts.getPreEmitDiagnostics(program).map(
    (d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

test("npm pack gives a tarball an empty app installs and imports", { timeout: 300_000 },
     async () => {
  const root = mkdtempSync(join(tmpdir(), "promptc-pack-"));
  try {
    const source = join(root, "promptc-client");
    mkdirSync(source);
    for (const name of ["package.json", "package-lock.json", "tsconfig.json", "README.md",
                        "src"]) {
      cpSync(join(PACKAGE, name), join(source, name), { recursive: true });
    }
    symlinkSync(join(PACKAGE, "node_modules"), join(source, "node_modules"), "dir");
    const packed = await run(NPM, ["pack", "--json", "--pack-destination", root],
                             { cwd: source });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as
      { filename: string; files: { path: string }[] }[];
    assert.ok(info !== undefined);
    const files = info.files.map((f) => f.path);
    for (const wanted of ["package.json", "README.md", "dist/src/index.js",
                          "dist/src/index.d.ts", "dist/src/connection.js"]) {
      assert.ok(files.includes(wanted), `${wanted} in ${files.join(", ")}`);
    }
    assert.ok(!files.some((f) => f.startsWith("dist/test/") || f.startsWith("node_modules")));

    const app = join(root, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"),
                  JSON.stringify({ name: "app", private: true, type: "module" }));
    await run(NPM, ["install", "--no-audit", "--no-fund", "--prefer-offline",
                    join(root, info.filename)], { cwd: app });
    assert.deepEqual(readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith(".")),
                     ["promptc-client"]);
    writeFileSync(join(app, "app.mjs"), APP_JS);
    const out = await run(process.execPath, [join(app, "app.mjs")], { cwd: app });
    assert.deepEqual(JSON.parse(out.stdout), { name: "promptc", variant: "generic",
                                               hasCwd: true, parseError: "function", exit: 0 });
    writeFileSync(join(app, "app.ts"), APP_TS);
    assert.deepEqual(typeErrors(app), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
