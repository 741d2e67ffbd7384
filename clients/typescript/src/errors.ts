/**
 * The errors the client throws, one class per meaning:
 *
 *     SleuthError                   any failure; `status` (0 when no response came), `code`
 *     ├── ConnectionError           no response: network failure or timeout (after retries)
 *     ├── BadRequestError           400/413/422 — the request itself is wrong
 *     │   └── IdempotencyKeyReusedError   422 IDEMPOTENCY_KEY_REUSED: one key, two bodies
 *     ├── AuthenticationError       401 — no key, or a wrong one
 *     ├── PermissionDeniedError     403 — the key lacks the scope (SCOPE_REQUIRED)
 *     ├── NotFoundError             404
 *     ├── QuotaExceededError        402 — the organization's monthly quota is spent
 *     ├── RetryLaterError           "try again later" answers, still refused after the retries
 *     │   ├── RateLimitedError      429 — the organization's rate or run limit
 *     │   ├── ServerBusyError       503 SERVER_BUSY — every run slot of the server is taken
 *     │   └── IdempotencyConflictError  409 IDEMPOTENCY_KEY_IN_PROGRESS — the first attempt runs
 *     ├── ServiceUnavailableError   other 503s (LLM_NOT_CONFIGURED, RUN_CANCELLED, ...): not retried
 *     ├── RunTimeoutError           504 — the run reached its time limit (`queries`: what it searched)
 *     └── ServerError               any other 5xx
 */

/** The JSON body of an API error: `{"success": false, "error", "code", "retryable"}`. */
export interface ErrorBody {
  success?: false;
  error?: string;
  message?: string;
  code?: string;
  retryable?: boolean;
  field?: string | null;
  queries?: string[] | null;
  status?: number;
  [key: string]: unknown;
}

export interface ErrorDetails {
  code?: string | undefined;
  retryable?: boolean | undefined;
  requestId?: string | undefined;
  body?: ErrorBody | undefined;
  cause?: unknown;
}

export class SleuthError extends Error {
  /** The HTTP status; 0 when no response came. */
  readonly status: number;
  /** The API's machine-readable code (`QUOTA_EXCEEDED`, `SERVER_BUSY`, ...), when it sent one. */
  readonly code: string | undefined;
  /** The server's `retryable` flag: the same request may succeed later. */
  readonly retryable: boolean;
  /** The response's `X-Request-ID`, to find the request in the server's access log. */
  readonly requestId: string | undefined;
  /** The error body as the server sent it. */
  readonly body: ErrorBody | undefined;

  constructor(status: number, message: string, details: ErrorDetails = {}) {
    const code = details.code;
    super(code ? `${status} ${code}: ${message}` : `${status}: ${message}`, {
      cause: details.cause,
    });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.retryable = details.retryable ?? false;
    this.requestId = details.requestId;
    this.body = details.body;
  }
}

export class ConnectionError extends SleuthError {
  constructor(message: string, cause?: unknown) {
    super(0, message, { retryable: true, cause });
  }
}

export class BadRequestError extends SleuthError {
  /** The request field a 400 is about, when the server named one. */
  get field(): string | undefined {
    return this.body?.field ?? undefined;
  }
}
export class IdempotencyKeyReusedError extends BadRequestError {}
export class AuthenticationError extends SleuthError {}
export class PermissionDeniedError extends SleuthError {}
export class NotFoundError extends SleuthError {}
export class QuotaExceededError extends SleuthError {}

/** Refused for now, and still refused after the client's retries. */
export class RetryLaterError extends SleuthError {
  /** Seconds the server said to wait (its `Retry-After`). */
  readonly retryAfter: number;

  constructor(status: number, message: string, retryAfter: number, details: ErrorDetails = {}) {
    super(status, message, { ...details, retryable: true });
    this.retryAfter = retryAfter;
  }
}
export class RateLimitedError extends RetryLaterError {}
export class ServerBusyError extends RetryLaterError {}
export class IdempotencyConflictError extends RetryLaterError {}

export class ServiceUnavailableError extends SleuthError {}
export class RunTimeoutError extends SleuthError {
  /** What the run had searched before its time ran out. */
  get queries(): string[] {
    return this.body?.queries ?? [];
  }
}
export class ServerError extends SleuthError {}

type ErrorClass = new (status: number, message: string, details: ErrorDetails) => SleuthError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: QuotaExceededError,
  403: PermissionDeniedError,
  404: NotFoundError,
  413: BadRequestError,
  422: BadRequestError,
  503: ServiceUnavailableError,
  504: RunTimeoutError,
};

/** Whether an answer is "slow down, then retry" — retried after `Retry-After`: any 429, a 503
 * `SERVER_BUSY` (the node is at capacity) and a 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (the first
 * attempt of this POST still runs; a retry gets its stored response once it finishes). Other
 * 503s, such as a feature that is not configured, are ordinary errors. */
export function isRetryLater(status: number, code: string | undefined): boolean {
  return (
    status === 429 ||
    (status === 503 && code === "SERVER_BUSY") ||
    (status === 409 && code === "IDEMPOTENCY_KEY_IN_PROGRESS")
  );
}

/** The typed error for an error answer. */
export function errorFor(
  status: number,
  body: ErrorBody | undefined,
  fallbackMessage: string,
  requestId?: string,
  retryAfter = 1,
): SleuthError {
  const message = body?.error ?? body?.message ?? fallbackMessage;
  const details: ErrorDetails = {
    code: body?.code,
    retryable: body?.retryable === true,
    requestId,
    body,
  };
  if (isRetryLater(status, details.code)) {
    const Refused =
      status === 429 ? RateLimitedError : status === 503 ? ServerBusyError : IdempotencyConflictError;
    return new Refused(status, message, retryAfter, details);
  }
  if (status === 422 && details.code === "IDEMPOTENCY_KEY_REUSED") {
    return new IdempotencyKeyReusedError(status, message, details);
  }
  const Known = BY_STATUS[status] ?? (status >= 500 ? ServerError : SleuthError);
  return new Known(status, message, details);
}
