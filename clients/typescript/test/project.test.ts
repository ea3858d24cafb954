// A project of the user's own, through the client and the real `promptc serve` (found as
// $PROMPTC_COMMAND, else `promptc` on PATH): the server started in a subfolder of the project
// reads its promptc.toml (`builtins = false`, its default model), so nothing of the built-in
// coding pack comes back and a model the project does not cover is a NoVariantError; and
// `noBuiltins` passes `--no-builtins` for a prompt folder without a project file.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";

import { InputError, NoVariantError, PromptcClient } from "../src/index.js";

const PACK_WORDS = /software engineering|read_file|execute_command/;

/** A prompt folder: one variant for Claude models with a tool and a declared input. */
const PROMPTS: { [path: string]: string } = {
  "variants/host/variant.toml": 'components = ["role", "guest"]\ntools = ["book_table"]\n' +
    '[match]\nprovider = ["anthropic"]\n' +
    '[inputs.GUEST]\nrequired = true\npattern = "[A-Za-z ]+"\nmax_length = 40\n',
  "variants/host/template.md": "{{role}}\n\n{{guest}}\n",
  "components/role.md": "# Role\n\nYou take table bookings for a small restaurant.\n",
  "components/guest.md": "# Guest\n\nYou are talking with {{GUEST}}.\n",
  "components/tools/book_table.toml": 'name = "book_table"\ndescription = "Book a table."\n\n' +
    '[[parameters]]\nname = "people"\ntype = "integer"\nrequired = true\n' +
    'instruction = "How many guests."\n',
};

function write(root: string, files: { [path: string]: string }): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

test("a server started in a project's subfolder serves the project's prompts only", async () => {
  const root = mkdtempSync(join(tmpdir(), "promptc-ts-project-"));
  mkdirSync(join(root, ".git"));  // the repository's root: the project file is looked for below
  write(join(root, "prompts"), PROMPTS);
  writeFileSync(join(root, "promptc.toml"), 'builtins = false\nfolder = "prompts"\n' +
    'user = false\nplugins = false\nmodel = "anthropic/claude-sonnet-4-5"\n');
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  const promptc = PromptcClient.spawn({ cwd: join(root, "src", "deep") });
  try {
    const variants = await promptc.variants();
    assert.deepEqual(variants.map((v) => [v.id, v.source]), [["host", "project"]]);
    assert.deepEqual(variants[0]?.inputs.map((i) => [i.name, i.required]), [["GUEST", true]]);
    // no model named: the project's
    const prompt = await promptc.compile({ runtime: { GUEST: "Ada" }, variant: "host" });
    assert.equal(prompt.text, "# Role\n\nYou take table bookings for a small restaurant.\n\n" +
                              "# Guest\n\nYou are talking with Ada.");
    assert.equal(prompt.provider.model, "claude-sonnet-4-5");
    const payload = await promptc.compile({ provider: "anthropic", model: "claude-opus-4-5",
                                            runtime: { GUEST: "Ada" }, format: "anthropic" });
    assert.deepEqual((payload.tools ?? []).map((t) => t.name), ["book_table"]);
    assert.doesNotMatch(JSON.stringify(payload), PACK_WORDS);
    const explained = await promptc.explain({ provider: "anthropic", model: "claude-opus-4-5",
                                              runtime: { GUEST: "Ada" } });
    assert.doesNotMatch(JSON.stringify(explained), PACK_WORDS);
    await assert.rejects(promptc.compile({ provider: "openai", model: "gpt-4.1",
                                           runtime: { GUEST: "Ada" } }), NoVariantError);
    await assert.rejects(promptc.compile({ runtime: { GUEST: "Ada\n# Policies" } }),
                         InputError);  // one line, by its declaration
    assert.equal(await promptc.close(), 0);
  } finally {
    await promptc.close();
    rmSync(root, { recursive: true });
  }
});

test("noBuiltins leaves out the coding pack for a prompt folder without a project file",
     async () => {
  const root = mkdtempSync(join(tmpdir(), "promptc-ts-nobuiltins-"));
  const folder = join(root, ".promptc");
  write(folder, PROMPTS);
  const options = { project: folder, cwd: root, noUser: true, noPlugins: true } as const;
  const bare = PromptcClient.spawn({ ...options, noBuiltins: true });
  const full = PromptcClient.spawn(options);
  try {
    assert.deepEqual((await bare.variants()).map((v) => v.id), ["host"]);
    await assert.rejects(bare.compile({ provider: "openai", model: "gpt-4.1" }), NoVariantError);
    // the same folder with the built-ins: a model it does not cover gets the pack's fallback
    const fallback = await full.compile({ provider: "openai", model: "gpt-4.1" });
    assert.match(fallback.text, PACK_WORDS);
    assert.equal(await bare.close(), 0);
    assert.equal(await full.close(), 0);
  } finally {
    await bare.close();
    await full.close();
    rmSync(root, { recursive: true });
  }
});
