// JSON-RPC 2.0 over two streams, one JSON object per line: requests are written as they are
// made (many may be in flight) and each answer settles the request with its id.
//
// An answer without an id (`id: null`) is the server saying it could not read a line: a line
// of ours it could not parse (a context nested deeper than its JSON reader goes, which
// `JSON.stringify` writes without complaint). Its request will never be answered otherwise, so
// such an error fails the request it belongs to. Which one that is, the server cannot say; the
// connection works it out: every line gets exactly one answer, so once the other requests that
// were waiting when the error came have their answers, the ones left are the unreadable lines.
// A request may also have a timeout, after which it fails with `TimeoutError`.

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { errorFromAnswer, type RpcErrorObject, ServerClosedError, TimeoutError } from "./errors.js";
import type { Json } from "./types.js";

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Answer {
  id?: number | string | null;
  result?: unknown;
  error?: RpcErrorObject;
}

/** An error answer without an id, and the requests (by id) it may belong to: those still
 * unanswered when it came. */
interface Orphan {
  error: RpcErrorObject;
  candidates: Set<number>;
}

/** Options of one request. */
export interface RequestOptions {
  /** Milliseconds to wait for the answer before failing with `TimeoutError` (default: the
   * connection's; none: wait as long as the server works). */
  timeout?: number;
}

export class Connection {
  private readonly pending = new Map<number, Pending>();
  /** Requests sent and not yet answered, timed-out ones included (their line still gets its
   * one answer, which decides what an id-less error belongs to). */
  private readonly unanswered = new Set<number>();
  private orphans: Orphan[] = [];
  private nextId = 1;
  private closedBy: (() => ServerClosedError) | null = null;
  /** Resolves when the server's output ends. */
  readonly ended: Promise<void>;

  /**
   * @param input the server's output (its stdout)
   * @param output the server's input (its stdin)
   * @param unmatched called with an answer that names no request of ours (id null: the
   *   server could not read a line; that error also fails the request it belongs to)
   * @param closed the error for requests left when the server's output ends
   * @param timeout the default timeout of a request, in milliseconds (none when undefined)
   */
  constructor(input: Readable, private readonly output: Writable,
              private readonly unmatched: (answer: unknown) => void = () => {},
              closed: () => ServerClosedError =
                () => new ServerClosedError("promptc serve closed its output"),
              private readonly timeout?: number) {
    checkTimeout(timeout);
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
  request(method: string, params?: { [key: string]: Json | undefined },
          options: RequestOptions = {}): Promise<unknown> {
    const timeout = options.timeout ?? this.timeout;
    if (this.closedBy !== null) {
      return Promise.reject(this.closedBy());
    }
    const id = this.nextId;
    const message: { [key: string]: unknown } = { jsonrpc: "2.0", id, method };
    if (params !== undefined) {
      message.params = params;
    }
    let line: string;
    try {
      checkTimeout(timeout);
      line = JSON.stringify(message) + "\n";
    } catch (error) {  // a bad timeout; params too deep for this engine's stack, a cycle…
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = timeout === undefined ? undefined : setTimeout(() => {
        if (this.pending.delete(id)) {
          reject(new TimeoutError(method, timeout));
        }
      }, timeout);
      this.pending.set(id, { method, resolve, reject, timer });
      this.unanswered.add(id);
      this.output.write(line);
    });
  }

  /** Every request still waiting, and every later one, fails with this error. */
  fail(error: () => ServerClosedError): void {
    if (this.closedBy === null) {
      this.closedBy = error;
    }
    this.orphans = [];
    this.unanswered.clear();
    for (const [id, waiting] of this.pending) {
      this.settle(id, waiting);
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
    const id = answer.id;
    if (typeof id === "number" && this.unanswered.delete(id)) {
      const waiting = this.pending.get(id);
      if (waiting !== undefined) {  // else it timed out: its late answer is dropped
        this.settle(id, waiting);
        if (answer.error !== undefined) {
          waiting.reject(errorFromAnswer(answer.error));
        } else {
          waiting.resolve(answer.result);
        }
      }
      this.attributeOrphans();
      return;
    }
    this.unmatched(answer);
    if (id === null && answer.error !== undefined && this.unanswered.size > 0) {
      this.orphans.push({ error: answer.error, candidates: new Set(this.unanswered) });
      this.attributeOrphans();
    }
  }

  private settle(id: number, waiting: Pending): void {
    this.pending.delete(id);
    if (waiting.timer !== undefined) {
      clearTimeout(waiting.timer);
    }
  }

  /** Fail the requests the id-less errors must belong to. Each error belongs to one request
   * that was unanswered when it came; when the errors whose candidates all lie within one
   * error's remaining candidates are as many as those candidates, each of them is the line
   * of one of those errors (every line is answered once), so all of them fail. */
  private attributeOrphans(): void {
    let found = true;
    while (found) {
      found = false;
      for (const orphan of this.orphans) {
        for (const id of orphan.candidates) {
          if (!this.unanswered.has(id)) {
            orphan.candidates.delete(id);
          }
        }
      }
      this.orphans = this.orphans.filter((o) => o.candidates.size > 0);
      for (const orphan of this.orphans) {
        const within = this.orphans.filter((o) => isSubset(o.candidates, orphan.candidates));
        if (within.length >= orphan.candidates.size) {
          this.failUnreadable([...orphan.candidates], within);
          found = true;
          break;
        }
      }
    }
  }

  private failUnreadable(ids: number[], errors: Orphan[]): void {
    this.orphans = this.orphans.filter((o) => !errors.includes(o));
    ids.forEach((id, i) => {
      this.unanswered.delete(id);
      const waiting = this.pending.get(id);
      const error = (errors[i] ?? errors[0])!.error;
      if (waiting !== undefined) {
        this.settle(id, waiting);
        waiting.reject(errorFromAnswer({
          ...error, message: `${error.message} (the server could not read the ` +
            `${waiting.method} request's line and answered without an id)` }));
      }
    });
  }
}

function isSubset(inner: Set<number>, outer: Set<number>): boolean {
  for (const id of inner) {
    if (!outer.has(id)) {
      return false;
    }
  }
  return true;
}

const MAX_TIMEOUT = 2 ** 31 - 1;  // setTimeout's longest delay (a longer one fires at once)

function checkTimeout(timeout: number | undefined): void {
  if (timeout !== undefined && !(timeout > 0 && timeout <= MAX_TIMEOUT)) {
    throw new RangeError(`timeout must be from 1 to ${MAX_TIMEOUT} milliseconds, got ${timeout}`);
  }
}
