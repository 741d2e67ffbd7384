// extract through the SDK against a `sleuth serve` with a scripted model (started by
// tests/clients/test_typescript_sdk.py with SLEUTH_TEST_LLM=1); skipped otherwise.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Sleuth } from "../dist/index.js";

const env = process.env;
const skip = env.SLEUTH_TEST_API && env.SLEUTH_TEST_LLM ? false : "no server with a model to test against";
const DOCS = "http://docs.examplecloud.com/security/audit-logs/retention";
const PRIVATE = "http://127.0.0.1:9/admin";

test("extract reads the pages named and fills the schema, a private address unread", { skip }, async () => {
  const sleuth = new Sleuth({ apiKey: env.SLEUTH_TEST_KEY, baseUrl: env.SLEUTH_TEST_API });
  const schema = {
    type: "object",
    properties: { default_retention_days: { type: ["integer", "null"] } },
  };
  const out = await sleuth.extract([DOCS, PRIVATE], { prompt: "Audit log retention", schema });
  assert.equal(out.data.default_retention_days, 90);
  assert.deepEqual(out.trace, { default_retention_days: [1] });
  const pages = Object.fromEntries(out.pages.map((page) => [page.url, page]));
  assert.equal(pages[DOCS].read, true);
  assert.equal(pages[PRIVATE].read, false);
  assert.deepEqual(out.sources.map((source) => source.url), [DOCS]);
  assert.equal(out.citations[0].url, DOCS);
  const usage = await sleuth.usage();
  assert.equal(usage.meters.pages_read.used, 1);
});
