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

  constructor(level: string) {
    this.destination = pino.destination({ dest: 1, sync: false, minLength: GATHER_BYTES });
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.destination.flushSync();
    } catch {
      // not open yet, or already closed: nothing to write
    }
  }

  private write(line: string): void {
    this.destination.write(line);
    // The destination writes by itself once GATHER_BYTES are waiting; a quiet moment gets its lines out within GATHER_MS.
    this.timer ??= setTimeout(this.flushLater, GATHER_MS).unref();
  }

  private readonly flushLater = (): void => {
    this.timer = undefined;
    try {
      this.destination.flush();
    } catch {
      // not open yet: the next line's timer tries again
      this.timer ??= setTimeout(this.flushLater, GATHER_MS).unref();
    }
  };
}
