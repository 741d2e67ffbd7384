// The SDK against a real `sleuth serve` on loopback (the offline test web, no LLM), started by
// tests/clients/test_typescript_sdk.py with `--run-slots=1 --org-runs=1`: two keys (orgs acme
// and beta) and queries whose one page is slow, to hold the run slot while a test is refused.
// Without SLEUTH_TEST_API these tests are skipped (`npm test` alone runs the unit tests).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  IdempotencyKeyReusedError,
  RateLimitedError,
  ServerBusyError,
  ServiceUnavailableError,
  Sleuth,
  SleuthError,
} from "../dist/index.js";

const env = process.env;
const skip = env.SLEUTH_TEST_API ? false : "SLEUTH_TEST_API is not set (no server to test against)";
const baseUrl = env.SLEUTH_TEST_API;
const Q = "How long does Example Cloud keep audit logs by default?";
const SLOW = JSON.parse(env.SLEUTH_TEST_SLOW ?? "[]");

function client(options = {}) {
  const retries = [];
  const sleuth = new Sleuth({
    apiKey: env.SLEUTH_TEST_KEY,
    baseUrl,
    onRetry: (info) => retries.push(info),
    ...options,
  });
  return { sleuth, retries };
}

/** A streamed run of a slow query, followed to its first event: the run holds the slot.
 * Returns `{ finished }`, its result to come (a bare promise would be awaited here). */
async function holdTheSlot(sleuth, query) {
  const stream = sleuth.researchStream(query, { no_cache: true });
  const events = stream[Symbol.asyncIterator]();
  const first = await events.next();
  assert.equal(first.done, false);
  const finished = (async () => {
    for (;;) if ((await events.next()).done) return stream.result();
  })();
  return { finished };
}

test("whoami names the key's organization", { skip }, async () => {
  const { sleuth } = client();
  assert.deepEqual(await sleuth.whoami(), {
    orgId: "acme",
    scopes: ["research", "search", "extract"],
    plan: "self-hosted",
  });
  assert.equal(await sleuth.orgId(), "acme");
});

test("research answers with checked citations", { skip }, async () => {
  const { sleuth, retries } = client();
  const result = await sleuth.research(Q, { depth: "quick" });
  assert.match(result.answer, /90 days/);
  assert.match(result.answer, /\[1\]/);
  assert.ok(result.citations[0].url.startsWith("http://"));
  assert.ok(["high", "medium", "low"].includes(result.confidence));
  assert.equal(result.cached, false);
  assert.deepEqual(retries, []);
  const again = await sleuth.research(Q, { depth: "quick" });
  assert.equal(again.cached, true);
  assert.equal(again.answer, result.answer);
});

test("a streamed research gives its events as they come, then ends with the result", { skip }, async () => {
  const { sleuth } = client();
  const stream = sleuth.researchStream(Q, { no_cache: true });
  const events = [];
  for await (const event of stream) events.push(event);
  const kinds = events.map((e) => e.type);
  for (const kind of ["plan.ready", "search.done", "fetch.done", "writer.start", "verify.done"]) {
    assert.ok(kinds.includes(kind), `no ${kind} in ${kinds}`);
  }
  assert.ok(kinds.indexOf("plan.ready") < kinds.indexOf("verify.done"));
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  assert.equal(new Set(events.map((e) => e.run_id)).size, 1);
  const written = events.filter((e) => e.type === "writer.delta").map((e) => e.text).join("");
  const result = await stream.result();
  assert.match(result.answer, /90 days/);
  assert.ok(written.length > 0 && result.answer.includes("90 days"));
  assert.equal(result.cached, false);
  assert.ok(result.citations.length >= 1);
});

test("a streamed run that fails throws its typed error after its events", { skip }, async () => {
  const { sleuth } = client();
  // every result is outside the one domain allowed: the run ends with an `error` event
  const stream = sleuth.researchStream(Q, { no_cache: true, include_domains: ["nothing.example"] });
  const kinds = [];
  await assert.rejects(
    async () => {
      for await (const event of stream) kinds.push(event.type);
    },
    (error) => {
      assert.ok(error instanceof BadRequestError, String(error));
      assert.equal(error.status, 422);
      assert.equal(error.code, "NO_SOURCES");
      return true;
    },
  );
  assert.ok(kinds.includes("plan.ready") && kinds.includes("search.done"), String(kinds));
  await assert.rejects(stream.result(), BadRequestError);
});

test("search returns ranked results", { skip }, async () => {
  const { sleuth } = client();
  const found = await sleuth.search("Example Cloud audit log retention", { limit: 5 });
  assert.ok(found.results.length > 0);
  for (const hit of found.results) {
    assert.equal(typeof hit.title, "string");
    assert.ok(hit.url.startsWith("http://") && typeof hit.score === "number");
  }
});

test("usage reports this month's meters", { skip }, async () => {
  const { sleuth } = client();
  const usage = await sleuth.usage();
  assert.equal(usage.orgId, "acme");
  assert.ok(usage.meters.searches.used >= 1, JSON.stringify(usage));
});

test("extract on a server without an LLM is a typed 503, not retried", { skip }, async () => {
  const { sleuth, retries } = client();
  await assert.rejects(
    sleuth.extract(["http://docs.example.com/"], { prompt: "the retention period" }),
    (error) =>
      error instanceof ServiceUnavailableError &&
      error.status === 503 &&
      error.code === "LLM_NOT_CONFIGURED",
  );
  assert.deepEqual(retries, []);
});

test("a wrong key is an AuthenticationError, not retried", { skip }, async () => {
  const { sleuth, retries } = client({ apiKey: "sk_wrong_0000000000000000" });
  await assert.rejects(sleuth.whoami(), (error) => {
    assert.ok(error instanceof AuthenticationError && error instanceof SleuthError);
    assert.equal(error.status, 401);
    assert.ok(error.requestId, "the X-Request-ID is kept");
    return true;
  });
  await assert.rejects(sleuth.research(Q), AuthenticationError);
  assert.deepEqual(retries, []);
});

test("a 429 is retried after its Retry-After; with no retries left it is a RateLimitedError", { skip }, async () => {
  const { sleuth } = client({ orgId: "acme" });
  const holder = await holdTheSlot(sleuth, SLOW[0]);
  const refused = client({ maxRetries: 0 });
  await assert.rejects(refused.sleuth.research(Q, { no_cache: true }), (error) => {
    assert.ok(error instanceof RateLimitedError, String(error));
    assert.equal(error.status, 429);
    assert.equal(error.code, "RATE_LIMITED");
    assert.ok(error.retryAfter >= 1);
    return true;
  });
  const patient = client({ maxRetries: 8 });
  const result = await patient.sleuth.research(Q, { no_cache: true });
  assert.match(result.answer, /90 days/);
  const waits = patient.retries.filter((r) => r.status === 429);
  assert.ok(waits.length >= 1, JSON.stringify(patient.retries));
  assert.ok(waits.every((r) => r.waitMs >= 1000 && r.code === "RATE_LIMITED"));
  assert.match((await holder.finished).answer, /slow/i);
});

test("a 503 SERVER_BUSY is retried; with no retries left it is a ServerBusyError", { skip }, async () => {
  const { sleuth } = client();
  const holder = await holdTheSlot(sleuth, SLOW[1]);
  const beta = { apiKey: env.SLEUTH_TEST_KEY_BETA };
  const refused = client({ ...beta, maxRetries: 0 });
  await assert.rejects(refused.sleuth.research(Q, { no_cache: true }), (error) => {
    assert.ok(error instanceof ServerBusyError, String(error));
    assert.equal(error.code, "SERVER_BUSY");
    assert.ok(error.retryAfter >= 1);
    return true;
  });
  const patient = client({ ...beta, maxRetries: 8 });
  const result = await patient.sleuth.research(Q, { no_cache: true });
  assert.match(result.answer, /90 days/);
  assert.ok(patient.retries.some((r) => r.status === 503 && r.code === "SERVER_BUSY"));
  await holder.finished;
});

test("a 409 for an Idempotency-Key in progress is retried until the first answer is replayed", { skip }, async () => {
  const key = { idempotencyKey: `order-${Date.now()}` };
  const first = client({ maxRetries: 10 });
  const second = client({ maxRetries: 10 });
  let conflicted;
  const sawConflict = new Promise((resolve) => (conflicted = resolve));
  const watch = (info) => info.status === 409 && conflicted(info);
  const a = new Sleuth({ apiKey: env.SLEUTH_TEST_KEY, baseUrl, maxRetries: 10, onRetry: (i) => (first.retries.push(i), watch(i)) });
  const b = new Sleuth({ apiKey: env.SLEUTH_TEST_KEY, baseUrl, maxRetries: 10, onRetry: (i) => (second.retries.push(i), watch(i)) });
  const both = Promise.all([a.research(SLOW[2], {}, key), b.research(SLOW[2], {}, key)]);
  await sawConflict; // one of them runs; the other has been told 409
  const impatient = client({ maxRetries: 0 });
  await assert.rejects(impatient.sleuth.research(SLOW[2], {}, key), (error) => {
    assert.ok(error instanceof IdempotencyConflictError, String(error));
    assert.equal(error.status, 409);
    assert.equal(error.code, "IDEMPOTENCY_KEY_IN_PROGRESS");
    return true;
  });
  const [one, two] = await both;
  assert.deepEqual(one, two); // the retry got the first attempt's response
  const conflicts = [...first.retries, ...second.retries].filter((r) => r.status === 409);
  assert.ok(conflicts.length >= 1 && conflicts.every((r) => r.waitMs >= 1000));
  // the same key with another request is refused for good, not retried
  const other = client();
  await assert.rejects(other.sleuth.research(Q, {}, key), (error) => {
    assert.ok(error instanceof IdempotencyKeyReusedError && error instanceof BadRequestError);
    assert.equal(error.status, 422);
    return true;
  });
  assert.deepEqual(other.retries, []);
});
