// An agent on the official MCP TypeScript SDK, with its default options, that
// starts `folio mcp` as a subprocess and talks to it over stdio (as Claude Desktop
// and other hosts do): it asks for an approval and calls wait_for_decision each
// time the answer is pending, until the person decides. Each step is a JSON line
// on stdout; any error ends the script with a non-zero status. Run by
// cmd/folio/mcp_typescript_stdio_test.go.
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(path.join(process.env.SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
// The SDK hands a subprocess only a few safe variables of its own environment:
// what `folio mcp` needs is passed explicitly, as a host's configuration does.
const env = {};
for (const k of ["HOME", "PATH", "FOLIO_TARGET", "FOLIO_API_KEY", "FOLIO_MCP_WAIT", "FOLIO_MCP_KEY_DIR"]) {
  if (process.env[k] !== undefined) env[k] = process.env[k];
}
const transport = new StdioClientTransport({ command: process.env.FOLIO_BIN, args: ["mcp"], env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-stdio-agent", version: "1.0.0" });
await client.connect(transport);

const structured = (res) => {
  if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
  return res.structuredContent;
};
const t0 = Date.now();
let answer = structured(await client.callTool({ name: "request_approval", arguments: { title: "Deploy v2.4.1 to production?" } }));
say({ step: "request_approval", at: Date.now() - t0, answer });
let calls = 0;
while (answer.status === "pending") {
  if (++calls > 20) throw new Error("still pending after 20 calls");
  answer = structured(await client.callTool({ name: "wait_for_decision", arguments: { page_id: answer.pageId } }));
  say({ step: "wait_for_decision", at: Date.now() - t0, answer });
}
say({ step: "done", at: Date.now() - t0, answer });
await client.close();
