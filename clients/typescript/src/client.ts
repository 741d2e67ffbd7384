/** The Research API client: one instance per API key (one key is one organization). */

import { ResearchStream } from "./stream.js";
import { type RetryInfo, Transport } from "./transport.js";
import type {
  ExtractOptions,
  ExtractResponse,
  RequestOptions,
  ResearchOptions,
  ResearchResult,
  SearchOptions,
  SearchResponse,
  UsageResponse,
  WhoAmI,
} from "./types.js";

export const VERSION = "0.1.0";
export const DEFAULT_BASE_URL = "http://127.0.0.1:8000/api";

export interface SleuthOptions {
  /** An API key from `sleuth keys create --org ORG`; none for an open loopback server. */
  apiKey?: string;
  /** The API's root, `/api` included (default: `sleuth serve`'s own, http://127.0.0.1:8000/api). */
  baseUrl?: string;
  /** Skip the `whoami` look-up when the organization is known. */
  orgId?: string;
  /** Retries of a request the server asked to retry later, or that got no response (default 3). */
  maxRetries?: number;
  /** How long one attempt may take, in milliseconds (default 120 000; a stream: until it starts). */
  timeoutMs?: number;
  /** Called before each retry (for logs and metrics). */
  onRetry?: (info: RetryInfo) => void;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export class Sleuth {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private org: Promise<string> | undefined;

  constructor(options: SleuthOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 3,
      timeoutMs: options.timeoutMs ?? 120_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      userAgent: `sleuth-typescript/${VERSION}`,
      onRetry: options.onRetry,
    });
    if (options.orgId !== undefined) this.org = Promise.resolve(options.orgId);
  }

  /** Who the key is: its organization, scopes and plan. */
  async whoami(request: RequestOptions = {}): Promise<WhoAmI> {
    return this.get<WhoAmI>("/whoami", request);
  }

  /** The key's organization (asked once with `whoami`, unless given). */
  orgId(request: RequestOptions = {}): Promise<string> {
    this.org ??= this.whoami(request).then((me) => me.orgId);
    this.org.catch(() => (this.org = undefined)); // a failed look-up is tried again next time
    return this.org;
  }

  /** Answer a question from the web with checked citations. */
  async research(
    query: string,
    options: ResearchOptions = {},
    request: RequestOptions = {},
  ): Promise<ResearchResult> {
    return this.post<ResearchResult>("/research", { query, ...options }, request);
  }

  /** The same research, its events as they happen: iterate it, then `await stream.result()`. */
  researchStream(
    query: string,
    options: ResearchOptions = {},
    request: RequestOptions = {},
  ): ResearchStream {
    const opened = this.orgPath("/research", request).then((path) =>
      this.transport.send({
        method: "POST",
        path,
        body: { query, ...options },
        accept: "text/event-stream",
        stream: true,
        signal: request.signal,
        maxRetries: request.maxRetries,
      }),
    );
    return new ResearchStream(opened);
  }

  /** Ranked search results (`search_depth: "advanced"` also reads the top ones). */
  async search(
    query: string,
    options: SearchOptions = {},
    request: RequestOptions = {},
  ): Promise<SearchResponse> {
    return this.post<SearchResponse>("/search", { query, ...options }, request);
  }

  /** Read up to 10 pages and extract what a prompt and/or a JSON Schema asks for. */
  async extract(
    urls: string[],
    options: ExtractOptions,
    request: RequestOptions = {},
  ): Promise<ExtractResponse> {
    return this.post<ExtractResponse>("/extract", { urls, ...options }, request);
  }

  /** The organization's usage this month against its quotas. */
  async usage(request: RequestOptions = {}): Promise<UsageResponse> {
    return this.get<UsageResponse>(await this.orgPath("/usage", request), request);
  }

  private async orgPath(suffix: string, request: RequestOptions): Promise<string> {
    return `/orgs/${encodeURIComponent(await this.orgId(request))}${suffix}`;
  }

  private async get<T>(path: string, request: RequestOptions): Promise<T> {
    const response = await this.transport.send({
      method: "GET",
      path,
      signal: request.signal,
      maxRetries: request.maxRetries,
    });
    return (await response.json()) as T;
  }

  private async post<T>(suffix: string, body: unknown, request: RequestOptions): Promise<T> {
    const response = await this.transport.send({
      method: "POST",
      path: await this.orgPath(suffix, request),
      body,
      headers: { "Idempotency-Key": request.idempotencyKey ?? crypto.randomUUID() },
      signal: request.signal,
      maxRetries: request.maxRetries,
    });
    return (await response.json()) as T;
  }
}
