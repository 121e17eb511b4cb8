import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { InputInterface, InputListener, InputMessage } from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface PInputInputOptions {
  port?: number | string;
  host?: string;
}

/** A webhook input: every JSON POST becomes a message for the host. */
export class PInputInput implements InputInterface {
  readonly channel = "p-input";
  private readonly port: number;
  private readonly host: string;
  private server?: Server;

  constructor(options: PInputInputOptions = {}) {
    const port = Number(options.port ?? 8787);
    this.port = Number.isInteger(port) && port >= 0 ? port : 8787;
    this.host = options.host || "127.0.0.1";
  }

  async start(listener: InputListener): Promise<void> {
    await this.stop();
    const server = createServer(async (request, response) => {
      if (request.method !== "POST") {
        response.writeHead(405, { allow: "POST" }).end();
        return;
      }
      let body: { text?: unknown; sender?: unknown };
      try {
        body = JSON.parse(await readBody(request)) as { text?: unknown; sender?: unknown };
      } catch {
        response.writeHead(400).end("body must be JSON");
        return;
      }
      if (typeof body.text !== "string" || body.text.trim() === "") {
        response.writeHead(400).end("text is required");
        return;
      }
      const sender = typeof body.sender === "string" && body.sender ? body.sender : "anonymous";
      const message: InputMessage = {
        id: randomUUID(),
        channel: this.channel,
        sessionId: `p-input:${sender}`,
        userId: sender,
        text: body.text,
        createdAt: new Date(),
      };
      response.writeHead(202).end();
      await listener(message);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The address the webhook listens on while started. */
  address(): { host: string; port: number } | undefined {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? { host: address.address, port: address.port } : undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}
