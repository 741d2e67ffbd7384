/** The Research API's request and response shapes (see docs/http-api.md and /api/openapi.json).
 * Request fields keep their wire names, so a field of the API docs is a field here. */

export type Depth = "quick" | "deep";
export type Output = "answer" | "report";

/** Filters shared by research and search. */
export interface Filters {
  /** `pd`, `pw`, `pm`, `py` or `YYYY-MM-DDtoYYYY-MM-DD`. */
  freshness?: string;
  include_domains?: string[];
  exclude_domains?: string[];
}

export interface ResearchOptions extends Filters {
  depth?: Depth;
  output?: Output;
  /** A JSON Schema: the result carries `data` filled from the sources instead of `answer`. */
  schema?: Record<string, unknown>;
  /** Reuse nothing cached: no answer from the result cache, no page from the page cache. */
  no_cache?: boolean;
  max_sources?: number;
  source_authority?: string;
  language?: string;
  tldr?: boolean;
  cite_min_recall?: number;
  /** Search this knowledge base of the organization with the web. */
  kb?: string;
}

export interface SearchOptions extends Filters {
  limit?: number;
  /** "advanced" reads the top results and attaches their passages and `relevance_score`. */
  search_depth?: "basic" | "advanced";
  include_answer?: boolean;
}

export interface ExtractOptions {
  /** What to extract, in words (a prompt, a schema, or both). */
  prompt?: string;
  schema?: Record<string, unknown>;
}

/** Per-call options: they shape how the request is sent, not what it asks. */
export interface RequestOptions {
  /** The `Idempotency-Key` of a POST (default: a fresh one per call, shared by its retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

export interface WhoAmI {
  orgId: string;
  scopes: string[];
  plan: string;
}

export interface Citation {
  number: number;
  url: string;
  title: string;
  quote: string;
}

export interface Passage {
  text: string;
  score: number;
  start: number;
}

export interface Source {
  number: number;
  url: string;
  title: string;
  score: number;
  fetched_at: string | null;
  authority: "primary" | "reputable" | "unknown" | "low";
  passages: Passage[];
  snippet?: boolean | null;
  published?: string | null;
}

export interface Verification {
  checked: number;
  supported: number;
  unsupported: { sentence: string; numbers: number[] }[];
}

export interface ModelUse {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

export interface RunUsage {
  searches: number;
  pages_read: number;
  rounds: number;
  plan: "single" | "multi_hop" | "unavailable";
  hops: number;
  duration_ms: number;
  search_ms: number;
  read_ms: number;
  model_ms: number;
  llm: ModelUse & { by_model: Record<string, ModelUse> };
  cost_usd: number | null;
}

export interface ResearchResult {
  query: string;
  /** Markdown with [n] markers (no schema given). */
  answer?: string | null;
  /** The filled schema (a schema given). */
  data?: unknown;
  citations: Citation[];
  sources: Source[];
  queries: string[];
  confidence: "high" | "medium" | "low";
  verification: Verification;
  source_trust: { label: "high" | "mixed" | "low"; counts: Record<string, number> };
  usage: RunUsage;
  /** True when the result came from the organization's result cache (not metered). */
  cached: boolean;
  session_id?: string | null;
  [field: string]: unknown;
}

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  score: number;
  published?: string | null;
  passages?: Passage[] | null;
  relevance_score?: number | null;
  skipped?: string | null;
}

export interface SearchResponse {
  query: string;
  results: SearchHit[];
  answer?: string | null;
  citations?: Citation[] | null;
  usage: { searches: number; pages_read: number };
}

export interface ExtractResponse {
  data?: unknown;
  answer?: string | null;
  citations: Citation[];
  sources: Source[];
  /** For each filled value, the sources whose text contains it. */
  trace: Record<string, number[]>;
  pages: { url: string; read: boolean; reason?: string | null }[];
  usage: { searches: number; pages_read: number };
}

export interface UsageResponse {
  orgId: string;
  period: string;
  meters: Record<string, { used: number; limit: number | null }>;
  days: { day: string; searches: number; pages_read: number; runs: number; cached: number }[];
}

/** One event of a streamed run (`plan.ready`, `search.done`, `fetch.done`, `writer.delta`, ...;
 * docs/streaming.md lists them with their fields). */
export interface RunEvent {
  /** The event's kind, the same as its SSE `event:` name. */
  type: string;
  run_id: string;
  /** Its sequence number in the run, from 1. */
  seq: number;
  [field: string]: unknown;
}
