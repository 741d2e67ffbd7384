/**
 * Sleuth's Research API from TypeScript and JavaScript (Node 20+, browsers, Deno, Bun): no
 * runtime dependencies, the platform's fetch.
 *
 *     import { Sleuth } from "sleuth-research";
 *     const sleuth = new Sleuth({ apiKey: process.env.SLEUTH_KEY });
 *     const result = await sleuth.research("How long does Example Cloud keep audit logs?");
 */

export { DEFAULT_BASE_URL, Sleuth, type SleuthOptions, VERSION } from "./client.js";
export * from "./errors.js";
export { readEvents, type ServerSentEvent } from "./sse.js";
export { ResearchStream } from "./stream.js";
export { type RetryInfo, backoffSeconds, retryAfterSeconds } from "./transport.js";
export type * from "./types.js";
