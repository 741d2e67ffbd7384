// The SSE reader on its own: line ends, chunk boundaries, comments, multi-line data.
import assert from "node:assert/strict";
import { test } from "node:test";

import { readEvents, retryAfterSeconds } from "../dist/index.js";

function body(...chunks) {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(stream) {
  const out = [];
  for await (const message of readEvents(stream)) out.push(message);
  return out;
}

test("CRLF frames as the server sends them, split anywhere, pings ignored", async () => {
  const wire =
    "\ufeff: ping - 2026-12-04 10:00:00\r\n\r\n" +
    'event: plan.ready\r\ndata: {"type":"plan.ready","seq":1}\r\nid: 1\r\n\r\n' +
    'event: result\r\ndata: {"answer":"90 days [1]"}\r\nid: 2\r\n\r\n';
  // every split point, including between the CR and the LF of a line end
  for (let cut = 0; cut <= wire.length; cut++) {
    const got = await all(body(wire.slice(0, cut), wire.slice(cut)));
    assert.deepEqual(got, [
      { event: "plan.ready", data: '{"type":"plan.ready","seq":1}', id: "1" },
      { event: "result", data: '{"answer":"90 days [1]"}', id: "2" },
    ]);
  }
});

test("LF and CR line ends, multi-line data, no event name, a field without a space", async () => {
  const got = await all(body("data: one\ndata:two\n\rdata: three\r\r"));
  assert.deepEqual(got, [
    { event: "message", data: "one\ntwo", id: undefined },
    { event: "message", data: "three", id: undefined },
  ]);
});

test("a message the stream cut off before its blank line is dropped", async () => {
  const got = await all(body("event: a\ndata: 1\n\n", "event: b\ndata: 2\n"));
  assert.deepEqual(got.map((m) => m.event), ["a"]);
});

test("multi-byte characters split across chunks", async () => {
  const bytes = new TextEncoder().encode("data: café ☕\n\n");
  const stream = new ReadableStream({
    start(controller) {
      for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
      controller.close();
    },
  });
  assert.deepEqual((await all(stream))[0].data, "café ☕");
});

test("Retry-After in seconds or as an HTTP date", () => {
  assert.equal(retryAfterSeconds("3"), 3);
  assert.equal(retryAfterSeconds(null), 1);
  const now = Date.parse("2026-12-04T10:00:00Z");
  assert.equal(retryAfterSeconds("Fri, 04 Dec 2026 10:00:05 GMT", 1, now), 5);
  assert.equal(retryAfterSeconds("soon", 2), 2);
});
