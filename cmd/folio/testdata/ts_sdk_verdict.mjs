// An agent on the official MCP TypeScript SDK publishes, over streamable HTTP to
// MCP_URL with FOLIO_API_KEY, a page whose actions declare their outcome
// (decision) and whether they end the page (final). It prints one JSON line with
// the actions' schema of every tool that takes actions, as the SDK lists them, and
// the pageId publish_page answered. It then reads the page back through the tools
// that pass on the API's answers (get_page, add_comment, get_comments, list_inbox,
// list_templates, agent_events): the SDK validates each structured
// output against the output schema the tool listed. Any error ends it with a
// non-zero status. Run by cmd/folio/mcp_typescript_test.go.
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(path.join(process.env.SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: "Bearer " + process.env.FOLIO_API_KEY } },
});
const client = new Client({ name: "ts-sdk-verdict", version: "1.0.0" });
await client.connect(transport);

const schemas = {};
for (const tool of (await client.listTools()).tools) {
  const action = tool.inputSchema.properties?.actions?.items;
  if (action) schemas[tool.name] = action.properties;
}
const res = await client.callTool({ name: "publish_page", arguments: { title: "Deploy 4.2?", actions: JSON.parse(process.env.ACTIONS) } });
if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
const page_id = res.structuredContent.pageId;
for (const [name, args] of [["get_page", { page_id }], ["add_comment", { page_id, content: "Why now?" }], ["get_comments", { page_id }],
  ["list_inbox", {}], ["list_templates", {}], ["agent_events", {}]]) {
  const r = await client.callTool({ name, arguments: args }); // throws when the output fails the tool's output schema
  if (r.isError || !r.structuredContent) throw new Error(name + ": " + JSON.stringify(r.content));
}
process.stdout.write(JSON.stringify({ schemas, pageId: res.structuredContent.pageId }) + "\n");
await client.close();
