/**
 * Sending one request with the Python SDK's retry rules:
 * - 429, 503 `SERVER_BUSY` and 409 `IDEMPOTENCY_KEY_IN_PROGRESS` are the API's "try again
 *   later": the client waits as `Retry-After` says (1 s when absent) and retries, at most
 *   `maxRetries` times, then throws the typed refusal (`RateLimitedError`, ...).
 * - No response (a network failure or the timeout): retried after 1, 2, 4, 8, 8... seconds. A
 *   POST carries one `Idempotency-Key` for all its attempts, so a retry after a lost response
 *   gets the first attempt's answer instead of running (and billing) the work again.
 * - Every other error answer is thrown at once as its typed error.
 */

import { ConnectionError, type ErrorBody, SleuthError, errorFor, isRetryLater } from "./errors.js";

/** Told before each retry: which attempt comes next, how long the client waits, and why. */
export interface RetryInfo {
  /** The retry about to be made: 1 for the first. */
  attempt: number;
  /** How long the client waits first, in milliseconds. */
  waitMs: number;
  /** The refusal's status, or 0 when no response came. */
  status: number;
  code: string | undefined;
  method: string;
  url: string;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  userAgent: string;
  onRetry: ((info: RetryInfo) => void) | undefined;
}

export interface Call {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  maxRetries?: number | undefined;
  /** An event stream: the answer's body is left for the caller to read as it comes. */
  stream?: boolean;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });

/** Seconds from a `Retry-After` header (seconds or an HTTP date); `fallback` when absent. */
export function retryAfterSeconds(value: string | null, fallback = 1, now = Date.now()): number {
  if (value === null || value.trim() === "") return fallback;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? fallback : Math.max(0, (date - now) / 1000);
}

/** The wait before retrying after a request that got no response. */
export const backoffSeconds = (attempt: number): number => Math.min(2 ** attempt, 8);

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** The response to `call`, once it is neither an error nor a "try again later". */
  async send(call: Call): Promise<Response> {
    const url = this.options.baseUrl + call.path;
    const maxRetries = call.maxRetries ?? this.options.maxRetries;
    const headers = this.headers(call);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.attempt(url, call, headers);
      } catch (error) {
        if (call.signal?.aborted) throw error;
        if (attempt >= maxRetries) throw noResponse(call.method, url, error, this.options.timeoutMs);
        await this.wait(attempt + 1, backoffSeconds(attempt), 0, undefined, call, url);
        continue;
      }
      if (response.ok) return response;
      const body = await errorBody(response);
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      if (isRetryLater(response.status, body?.code) && attempt < maxRetries) {
        await this.wait(attempt + 1, retryAfter, response.status, body?.code, call, url);
        continue;
      }
      const requestId = response.headers.get("x-request-id") ?? undefined;
      throw errorFor(response.status, body, response.statusText, requestId, retryAfter);
    }
  }

  private headers(call: Call): Record<string, string> {
    const headers: Record<string, string> = {
      Accept: call.accept ?? "application/json",
      "User-Agent": this.options.userAgent,
      ...(call.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...call.headers,
    };
    if (this.options.apiKey) headers["X-API-Key"] = this.options.apiKey;
    return headers;
  }

  /** One attempt. The timeout covers the whole answer of a JSON call (its body is read here)
   * and only the wait for the headers of a stream, which may rightly run for minutes. */
  private async attempt(url: string, call: Call, headers: Record<string, string>): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("timed out", "TimeoutError")),
      this.options.timeoutMs,
    );
    const signal = call.signal ? AbortSignal.any([call.signal, controller.signal]) : controller.signal;
    const init: RequestInit = { method: call.method, headers, signal };
    if (call.body !== undefined) init.body = JSON.stringify(call.body);
    try {
      const response = await this.options.fetch(url, init);
      if (call.stream && response.ok) return response;
      const body = await response.arrayBuffer();
      const { status, statusText, headers: received } = response;
      return new Response(body.byteLength ? body : null, { status, statusText, headers: received });
    } finally {
      clearTimeout(timer);
    }
  }

  private async wait(
    attempt: number,
    seconds: number,
    status: number,
    code: string | undefined,
    call: Call,
    url: string,
  ): Promise<void> {
    const waitMs = Math.round(seconds * 1000);
    this.options.onRetry?.({ attempt, waitMs, status, code, method: call.method, url });
    await sleep(waitMs, call.signal);
  }
}

async function errorBody(response: Response): Promise<ErrorBody | undefined> {
  const text = await response.text().catch(() => "");
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as ErrorBody;
  } catch {
    // not JSON: a proxy's HTML page, say; the status and text still say what happened
  }
  const message = text.trim().slice(0, 500);
  return message ? { error: message } : undefined;
}

function noResponse(method: string, url: string, error: unknown, timeoutMs: number): SleuthError {
  const timedOut = error instanceof DOMException && error.name === "TimeoutError";
  const why = timedOut ? `no answer within ${timeoutMs} ms` : String(error);
  return new ConnectionError(`${method} ${url}: ${why}`, error);
}
