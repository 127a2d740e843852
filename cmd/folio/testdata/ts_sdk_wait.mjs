// An agent on the official MCP TypeScript SDK, with its default options (a 60 s
// request timeout, not reset by progress): it asks for an approval and waits until
// the person decides, calling wait_for_decision each time the answer is pending.
// TRANSPORT=http talks streamable HTTP to MCP_URL with FOLIO_API_KEY; TRANSPORT=stdio
// starts `FOLIO_BIN mcp` as its subprocess, as Claude Desktop and other hosts do.
// Each step is a JSON line on stdout; any error ends the script with a non-zero
// status. Run by cmd/folio/mcp_typescript_test.go and nginx_test.go.
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(path.join(process.env.SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
let transport;
if (process.env.TRANSPORT === "stdio") {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  // The SDK hands a subprocess only a few safe variables of its own environment:
  // what `folio mcp` needs is passed explicitly, as a host's configuration does.
  const env = {};
  for (const k of ["HOME", "PATH", "FOLIO_TARGET", "FOLIO_API_KEY", "FOLIO_MCP_WAIT", "FOLIO_MCP_KEY_DIR"]) {
    if (process.env[k] !== undefined) env[k] = process.env[k];
  }
  transport = new StdioClientTransport({ command: process.env.FOLIO_BIN, args: ["mcp"], env, stderr: "inherit" });
} else {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
    requestInit: { headers: { Authorization: "Bearer " + process.env.FOLIO_API_KEY } },
  });
}
const client = new Client({ name: "ts-sdk-agent-" + (process.env.TRANSPORT || "http"), version: "1.0.0" });
await client.connect(transport);

const structured = (res) => {
  if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
  return res.structuredContent;
};
const t0 = Date.now();
let answer = structured(await client.callTool({ name: "request_approval", arguments: { title: "Deploy v2.4.1 to production?" } }));
say({ step: "request_approval", at: Date.now() - t0, answer });
// A bound on the calls, against a script that never ends: MAX_CALLS (default 20).
const maxCalls = Number(process.env.MAX_CALLS || 20);
let calls = 0;
while (answer.status === "pending") {
  if (++calls > maxCalls) throw new Error("still pending after " + maxCalls + " calls");
  answer = structured(await client.callTool({ name: "wait_for_decision", arguments: { page_id: answer.pageId } }));
  say({ step: "wait_for_decision", at: Date.now() - t0, answer });
}
say({ step: "done", at: Date.now() - t0, answer });
await client.close();
