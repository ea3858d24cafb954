// JSON-RPC 2.0 over two streams, one JSON object per line: requests are written as they are
// made (many may be in flight) and each answer settles the request with its id.

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { errorFromAnswer, type RpcErrorObject, ServerClosedError } from "./errors.js";
import type { Json } from "./types.js";

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

interface Answer {
  id?: number | string | null;
  result?: unknown;
  error?: RpcErrorObject;
}

export class Connection {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedBy: (() => ServerClosedError) | null = null;
  /** Resolves when the server's output ends. */
  readonly ended: Promise<void>;

  /**
   * @param input the server's output (its stdout)
   * @param output the server's input (its stdin)
   * @param unmatched called with an answer that names no request of ours (id null: the
   *   server could not read a line)
   * @param closed the error for requests left when the server's output ends
   */
  constructor(input: Readable, private readonly output: Writable,
              private readonly unmatched: (answer: unknown) => void = () => {},
              closed: () => ServerClosedError =
                () => new ServerClosedError("promptc serve closed its output")) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on("line", (line) => this.receive(line));
    this.ended = new Promise((resolve) => lines.on("close", () => {
      this.fail(closed);
      resolve();
    }));
    output.on("error", (error: Error) => {
      this.fail(() => new ServerClosedError(`cannot write to promptc serve: ${error.message}`));
    });
  }

  /** Send one request; its answer's result, or the typed error it carried. */
  request(method: string, params?: { [key: string]: Json | undefined }): Promise<unknown> {
    if (this.closedBy !== null) {
      return Promise.reject(this.closedBy());
    }
    const id = this.nextId++;
    const message: { [key: string]: unknown } = { jsonrpc: "2.0", id, method };
    if (params !== undefined) {
      message.params = params;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.output.write(JSON.stringify(message) + "\n");
    });
  }

  /** Every request still waiting, and every later one, fails with this error. */
  fail(error: () => ServerClosedError): void {
    if (this.closedBy === null) {
      this.closedBy = error;
    }
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(this.closedBy());
    }
  }

  /** End the server's input: it answers what it was asked, then exits. */
  end(): void {
    if (!this.output.writableEnded) {
      this.output.end();
    }
  }

  private receive(line: string): void {
    if (line.trim() === "") {
      return;
    }
    let answer: Answer;
    try {
      answer = JSON.parse(line) as Answer;
    } catch {
      this.unmatched(line);
      return;
    }
    const waiting = typeof answer.id === "number" ? this.pending.get(answer.id) : undefined;
    if (waiting === undefined || typeof answer.id !== "number") {
      this.unmatched(answer);
      return;
    }
    this.pending.delete(answer.id);
    if (answer.error !== undefined) {
      waiting.reject(errorFromAnswer(answer.error));
    } else {
      waiting.resolve(answer.result);
    }
  }
}
