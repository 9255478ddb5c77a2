import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Bytes gathered before the log is written (one write for dozens of requests under load)... */
const GATHER_BYTES = 8_192;
/** ...or this long after the first line waiting, whichever comes first. */
const GATHER_MS = 100;

/**
 * The server's log (stdout): pino's lines and the access log's, gathered and written in the background. Writing
 * each line as it comes cost every request a write on the thread pool and a wake-up of one of its threads; pino
 * formatting the access line cost more than the rest of the line's work together. Lines wait at most GATHER_MS, and
 * whatever waits is written before the process exits.
 */
export class ServerLog {
  readonly logger: Logger;
  private readonly destination: ReturnType<typeof pino.destination>;
  private timer?: NodeJS.Timeout;
  /** The start of every access line up to its time, and what follows the time up to the request id. */
  private readonly head = '{"level":30,"time":';
  private readonly middle = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"reqId":"`;
  readonly logsRequests: boolean;

  /** Lines waiting to be written, and their length (UTF-16 units: near enough to bytes for when to write). */
  private lines: string[] = [];
  private gathered = 0;

  constructor(level: string) {
    // The destination writes what it is given at once (or after the write in progress); the gathering is here, where
    // it is a push and an add per line (the destination's own measures the UTF-8 length of what waits at every line).
    this.destination = pino.destination({ dest: 1, sync: false });
    const stream: DestinationStream = { write: (line: string) => this.write(line) };
    this.logger = pino({ level }, stream);
    this.logsRequests = this.logger.isLevelEnabled('info');
    process.once('exit', () => this.flushSync());
  }

  /**
   * One access line per request, as pino would write it ({"level":30,"time":...,"reqId":...,"method":...,"url":...,
   * "status":...,"ms":...,"msg":"request"}), built directly. `requestId` is the gateway's own (letters and digits) and
   * `method` a token node's parser accepted; the path is the client's and is escaped.
   */
  request(requestId: string, method: string, path: string, status: number, ms: number): void {
    if (!this.logsRequests) return;
    this.write(`${this.head}${Date.now()}${this.middle}${requestId}","method":"${method}","url":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`);
  }

  /** Writes what is gathered now (shutdown). */
  flushSync(): void {
    try {
      this.flush();
      this.destination.flushSync();
    } catch {
      // not open yet, or already closed: nothing more can be written
    }
  }

  private write(line: string): void {
    this.lines.push(line);
    this.gathered += line.length;
    if (this.gathered >= GATHER_BYTES) this.flush();
    // A quiet moment gets its lines out within GATHER_MS.
    else this.timer ??= setTimeout(this.flushLater, GATHER_MS).unref();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.gathered = 0;
    this.destination.write(text);
  }

  private readonly flushLater = (): void => {
    this.timer = undefined;
    try {
      this.flush();
    } catch {
      // the destination is not open yet: the lines wait for the next
    }
  };
}
