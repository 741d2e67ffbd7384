// Consume a Sleuth SSE endpoint with @microsoft/fetch-event-source, unchanged, as a web app
// would, and print what arrived as JSON: [{event, id, data}] plus any malformed frames.
//
//   node sse_client.mjs URL METHOD BODY_JSON|"" AUTH_HEADER|""
//   SLEUTH_NODE_MODULES: the node_modules directory holding the package.
//
// The library is written for browsers: it needs `window` and a `document` with visibility
// events before it loads, hence the globals and the require after them.
import { createRequire } from "node:module";

globalThis.window = globalThis;
globalThis.document = { hidden: false, addEventListener() {}, removeEventListener() {} };
const require = createRequire(process.env.SLEUTH_NODE_MODULES + "/");
const { fetchEventSource } = require("@microsoft/fetch-event-source");

const [url, method, body, auth] = process.argv.slice(2);
const headers = { "Content-Type": "application/json" };
if (auth) headers.Authorization = auth;

const events = [];
const malformed = [];
let opened = null;

await fetchEventSource(url, {
  method,
  headers,
  body: body || undefined,
  openWhenHidden: true,
  async onopen(response) {
    opened = { status: response.status, type: response.headers.get("content-type") };
    if (!response.ok || !opened.type.startsWith("text/event-stream")) {
      throw new Error(`not an event stream: ${response.status} ${await response.text()}`);
    }
  },
  onmessage(msg) {
    if (!msg.event) malformed.push({ reason: "no event name", raw: msg });
    try {
      JSON.parse(msg.data);
    } catch (err) {
      malformed.push({ reason: `data is not JSON: ${err.message}`, raw: msg });
    }
    events.push({ event: msg.event, id: msg.id, data: msg.data });
  },
  onerror(err) {
    throw err; // no retries: a test wants to see the first failure
  },
});
process.stdout.write(JSON.stringify({ opened, events, malformed }));
