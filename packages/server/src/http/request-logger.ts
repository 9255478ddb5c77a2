import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger: the app's logger with the request id added to each line. Fastify makes a pino child per
 * request, which costs an object graph of its own for as long as the request lives (a stream can live minutes, and
 * thousands stream at once); this one is two fields, and a real child is made only if something asks for one.
 */
export class RequestLogger {
  constructor(
    private readonly parent: Logger,
    private readonly reqId: string,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  set level(level: string) {
    this.parent.level = level;
  }

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.parent.child({ reqId: this.reqId, ...bindings }, options) as FastifyBaseLogger;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: Level, args: unknown[]): void {
    if (!this.parent.isLevelEnabled(level)) return;
    const [first, ...rest] = args;
    const fields = first !== null && typeof first === 'object' && !(first instanceof Error) ? { reqId: this.reqId, ...first } : { reqId: this.reqId, ...(first instanceof Error ? { err: first } : {}) };
    const message = first !== null && typeof first === 'object' ? rest : [first, ...rest];
    (this.parent[level] as (obj: unknown, ...args: unknown[]) => void)(fields, ...message);
  }
}
