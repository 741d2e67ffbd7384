/**
 * Server-sent events read from a fetch body, by hand (the WHATWG "event stream" rules): lines end
 * with CRLF, LF or CR (the server sends CRLF); a blank line ends a message; `event`, `data`
 * (several lines joined by "\n"), `id` and `retry` fields; lines starting with ":" are comments
 * (the server's keep-alive pings).
 */

export interface ServerSentEvent {
  /** The `event:` field ("message" when absent). */
  event: string;
  /** The `data:` lines, joined by "\n". */
  data: string;
  /** The `id:` field, when the message carried one. */
  id: string | undefined;
}

/** Split `text` into complete lines; what follows the last line end is returned as the rest.
 * A CR at the very end stays in the rest: it may be the first half of a CRLF. */
export function splitLines(text: string): { lines: string[]; rest: string } {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") {
      lines.push(text.slice(start, i));
      start = i + 1;
    } else if (ch === "\r") {
      if (i + 1 === text.length) break;
      lines.push(text.slice(start, i));
      if (text[i + 1] === "\n") i++;
      start = i + 1;
    }
  }
  return { lines, rest: text.slice(start) };
}

/** Accumulates one message's fields, line by line. */
export class EventBuilder {
  private event = "";
  private data: string[] = [];
  private id: string | undefined = undefined;

  /** Feed one line; returns the finished message at a blank line that ends one. */
  line(line: string): ServerSentEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const seen = this.data.length > 0;
    const message = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
    this.event = "";
    this.data = [];
    return seen ? message : undefined;
  }
}

/** Every message of an event stream, as it arrives. A message cut off by the end of the stream
 * (no closing blank line) is dropped, as a browser's EventSource does. */
export async function* readEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const builder = new EventBuilder();
  let pending = "";
  let first = true;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (first && pending.length > 0) {
        if (pending.charCodeAt(0) === 0xfeff) pending = pending.slice(1);
        first = false;
      }
      // at the end, a last line without its line end is still a line (but not a blank one)
      const { lines, rest } = splitLines(done && pending ? pending + "\n" : pending);
      pending = rest;
      for (const line of lines) {
        const message = builder.line(line);
        if (message) yield message;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
