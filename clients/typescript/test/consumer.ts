// A TypeScript program using the package as a user's project would, type-checked (never run) by
// tests/clients/test_typescript_sdk.py against the declarations the packed tarball ships.
import {
  RateLimitedError,
  type ResearchResult,
  type RunEvent,
  Sleuth,
  SleuthError,
  type WhoAmI,
} from "sleuth-research";

const sleuth = new Sleuth({ apiKey: "sk_x", onRetry: (info) => void [info.waitMs, info.status] });

export async function use(): Promise<string> {
  const me: WhoAmI = await sleuth.whoami();
  const result: ResearchResult = await sleuth.research(
    "q",
    { depth: "deep", no_cache: true, include_domains: ["example.com"] },
    { idempotencyKey: "order-1", maxRetries: 5 },
  );
  const stream = sleuth.researchStream("q", { schema: { type: "object" } });
  for await (const event of stream) {
    const seen: RunEvent = event;
    void [seen.type, seen.seq, seen.run_id];
  }
  try {
    const found = await sleuth.search("q", { limit: 3, search_depth: "advanced" });
    void found.results[0]?.relevance_score;
  } catch (error) {
    if (error instanceof RateLimitedError) void error.retryAfter;
    if (error instanceof SleuthError) void [error.status, error.code, error.requestId];
  }
  // @ts-expect-error depth is "quick" or "deep"
  await sleuth.research("q", { depth: "medium" });
  // @ts-expect-error extract needs its urls
  await sleuth.extract({ prompt: "p" });
  const usage = await sleuth.usage();
  return `${me.orgId} ${usage.period} ${(await stream.result()).answer ?? result.query}`;
}
