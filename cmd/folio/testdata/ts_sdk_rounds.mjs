// SESSIONS agents on the official MCP TypeScript SDK, default options, no API key
// (each session is provisioned an account on its first tool call), all at once
// through MCP_URL (a balancer in front of several nodes). Each publishes a page,
// reads it back, asks for an approval and waits for it with wait_for_decision.
// One JSON line per step on stdout: {session, sessionId, step, pageId, ...};
// "pending" lines name the page a person must decide. Any error ends the script
// with a non-zero status. Run by cmd/folio/nginx_test.go.
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(path.join(process.env.SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const structured = (res) => {
  if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
  return res.structuredContent;
};

async function round(i) {
  const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL));
  const client = new Client({ name: "balanced-agent-" + i, version: "1.0.0" });
  await client.connect(transport);
  const sid = transport.sessionId;
  const published = structured(await client.callTool({ name: "publish_page", arguments: { title: "Round " + i } }));
  const page = structured(await client.callTool({ name: "get_page", arguments: { page_id: published.pageId } }));
  if (page.title !== "Round " + i) throw new Error("get_page answered " + JSON.stringify(page));
  say({ session: i, sessionId: sid, step: "get_page", pageId: published.pageId });
  let answer = structured(await client.callTool({ name: "request_approval", arguments: { title: "Approve round " + i + "?" } }));
  if (answer.status === "pending") say({ session: i, sessionId: sid, step: "pending", pageId: answer.pageId });
  for (let calls = 0; answer.status === "pending"; calls++) {
    if (calls > 20) throw new Error("still pending after 20 calls");
    answer = structured(await client.callTool({ name: "wait_for_decision", arguments: { page_id: answer.pageId } }));
  }
  if (transport.sessionId !== sid) throw new Error("the session changed: " + sid + " then " + transport.sessionId);
  say({ session: i, sessionId: sid, step: "done", pageId: answer.pageId, status: answer.status, decision: answer.decision });
  await client.close();
}

const n = Number(process.env.SESSIONS || 20);
const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => round(i)));
const failed = results.filter((r) => r.status === "rejected");
for (const f of failed) process.stderr.write(String(f.reason && f.reason.stack || f.reason) + "\n");
process.exit(failed.length ? 1 : 0);
