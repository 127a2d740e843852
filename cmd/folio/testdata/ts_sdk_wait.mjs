// An agent on the official MCP TypeScript SDK, with its default options (a 60 s
// request timeout, not reset by progress): it asks for an approval over streamable
// HTTP and waits until the person decides, calling wait_for_decision each time
// the answer is pending. Each step is a JSON line on stdout; any error ends the
// script with a non-zero status. Run by cmd/folio/mcp_typescript_test.go.
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(path.join(process.env.SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: "Bearer " + process.env.FOLIO_API_KEY } },
});
const client = new Client({ name: "ts-sdk-agent", version: "1.0.0" });
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
