/** A streamed research run: its events as they arrive, then its result. */

import { ConnectionError, type ErrorBody, SleuthError, errorFor } from "./errors.js";
import { readEvents } from "./sse.js";
import type { ResearchResult, RunEvent } from "./types.js";

/**
 * Iterate it for the run's events (`plan.ready`, `search.done`, `writer.delta`, ...); the
 * iteration ends when the server sends the `result`, which `result()` then gives. A run that
 * fails (an `error` event) throws its typed error from the iteration and from `result()`.
 * Leaving the loop early closes the connection; the server stops the run when no one follows it.
 *
 *     const stream = sleuth.researchStream("How long ...?");
 *     for await (const event of stream) console.log(event.type);
 *     const result = await stream.result();
 */
export class ResearchStream implements AsyncIterable<RunEvent> {
  private readonly outcome: Promise<ResearchResult>;
  private settle!: { resolve: (r: ResearchResult) => void; reject: (e: unknown) => void };
  private started = false;

  constructor(private readonly opened: Promise<Response>) {
    opened.catch(() => undefined); // a refusal is thrown where the stream is read, not unhandled
    this.outcome = new Promise<ResearchResult>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.outcome.catch(() => undefined); // observed through result() or the iteration
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RunEvent, void, undefined> {
    if (this.started) throw new Error("a ResearchStream can be iterated once");
    this.started = true;
    try {
      yield* this.events();
    } catch (error) {
      this.settle.reject(error);
      throw error;
    } finally {
      // left early (break): no result will come
      this.settle.reject(new Error("the stream was closed before its result arrived"));
    }
  }

  /** The run's result, once the stream has ended with it (reading what is left of it when the
   * events were not iterated). */
  async result(): Promise<ResearchResult> {
    if (!this.started) {
      for await (const _ of this) void _;
    }
    return this.outcome;
  }

  private async *events(): AsyncGenerator<RunEvent, void, undefined> {
    const response = await this.opened;
    if (!response.body) throw new ConnectionError("the event stream has no body");
    const requestId = response.headers.get("x-request-id") ?? undefined;
    try {
      for await (const message of readEvents(response.body)) {
        const data: unknown = JSON.parse(message.data);
        if (message.event === "result") {
          this.settle.resolve(data as ResearchResult);
          return;
        }
        if (message.event === "error") throw runFailed(data as ErrorBody, requestId);
        yield data as RunEvent;
      }
    } catch (error) {
      if (error instanceof SleuthError) throw error;
      if (error instanceof DOMException && error.name === "AbortError") throw error; // the caller's
      throw new ConnectionError(`the event stream broke off or was malformed: ${String(error)}`, error);
    }
    throw new ConnectionError("the event stream ended without a result");
  }
}

function runFailed(body: ErrorBody, requestId: string | undefined): SleuthError {
  const status = typeof body.status === "number" ? body.status : 500;
  return errorFor(status, body, "the run failed", requestId);
}
