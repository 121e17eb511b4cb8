// An MCP client for plaios's tests, written with the real MCP TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in testdata/node). It starts a server command on stdio,
// runs the steps of a plan and prints one JSON report on stdout:
//   node client.mjs <plan.json>
// plan: {"command": "…", "args": […], "env": {…}, "steps": [step…]}
// step: {"op": "list"}
//       {"op": "call", "name": "…", "args": {…}, "abortAfterMs": N, "repeat": N}
//       {"op": "request", "method": "…", "params": {…}}      a raw request (protocol errors)
//       {"op": "raw", "line": "…"}                            bytes written to the server's stdin
//       {"op": "wait", "ms": N}
// Each step's entry in the report: {ok, result | error: {name, code, message}, ms}. With
// "repeat", the call runs N times in a row and the entry holds the round trips' times
// (milliseconds) and the tool's own times from the result's _meta.

import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const transport = new StdioClientTransport({
  command: plan.command,
  args: plan.args,
  env: plan.env,
  stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (d) => {
  stderr += d.toString();
});
const client = new Client({ name: 'plaios-test-client', version: '1.0.0' });

function describe(err) {
  return { name: err?.name, code: err?.code, message: String(err?.message ?? err) };
}

const report = { steps: [] };
try {
  await client.connect(transport);
  report.server = client.getServerVersion();
  for (const step of plan.steps) {
    const t0 = performance.now();
    const entry = { op: step.op, name: step.name };
    try {
      switch (step.op) {
        case 'list':
          entry.result = await client.listTools();
          break;
        case 'call':
          if (step.repeat) {
            entry.rtt = [];
            entry.own = [];
            for (let i = 0; i < step.repeat; i++) {
              const s = performance.now();
              const r = await client.callTool({ name: step.name, arguments: step.args });
              entry.rtt.push(performance.now() - s);
              entry.own.push((r._meta?.['dev.plaios/toolMicros'] ?? 0) / 1000);
              if (r.isError) throw new Error(`call ${i} failed: ${JSON.stringify(r.content)}`);
            }
          } else if (step.abortAfterMs !== undefined) {
            const ac = new AbortController();
            setTimeout(() => ac.abort(), step.abortAfterMs);
            entry.result = await client.callTool({ name: step.name, arguments: step.args }, undefined, { signal: ac.signal, timeout: 120000 });
          } else {
            entry.result = await client.callTool({ name: step.name, arguments: step.args }, undefined, { timeout: 120000 });
          }
          break;
        case 'request':
          entry.result = await client.request({ method: step.method, params: step.params }, step.method === 'tools/call' ? CallToolResultSchema : z.any());
          break;
        case 'wait':
          await new Promise((resolve) => setTimeout(resolve, step.ms));
          entry.result = 'waited';
          break;
        case 'raw':
          transport._process.stdin.write(step.line);
          await new Promise((resolve) => setTimeout(resolve, 100));
          entry.result = 'written';
          break;
        default:
          throw new Error(`unknown step ${step.op}`);
      }
      entry.ok = true;
    } catch (err) {
      entry.ok = false;
      entry.error = describe(err);
    }
    entry.ms = performance.now() - t0;
    report.steps.push(entry);
  }
  await client.close();
} catch (err) {
  report.fatal = describe(err);
}
report.stderr = stderr;
process.stdout.write(JSON.stringify(report) + '\n');
process.exit(0);
