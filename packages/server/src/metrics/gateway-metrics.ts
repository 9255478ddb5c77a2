import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Where channel health comes from at scrape time (the channels table, read at most every few seconds). */
export interface ChannelHealthSource {
  channels(): Promise<Array<{ id: number; name: string; type: number; status: number; response_time: number }>>;
}

/** One finished relay request, as the pipeline reports it. */
export interface RelayObservation {
  dialect: string;
  model: string;
  channelId: number;
  channelName: string;
  /** success, broken (the upstream stream broke), aborted (the client left), failed (no channel answered) */
  outcome: 'success' | 'broken' | 'aborted' | 'failed';
  seconds: number;
  firstByteSeconds?: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  quota: number;
  /** The upstream's usage report was wrong (用量异常): billed at the request's bound or at the gateway's count. */
  usageAnomaly?: boolean;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * The gateway's Prometheus metrics (GET /metrics): requests, failures, latency and time to first byte by client
 * dialect, tokens and quota by model and channel, requests in flight, channel health, and the ledger's batch
 * sizes and commit times. Each process has its own registry; a cluster is scraped instance by instance.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'dialect' | 'model' | 'channel' | 'outcome'>;
  private readonly duration: Histogram<'dialect'>;
  private readonly firstByte: Histogram<'dialect'>;
  private readonly tokens: Counter<'model' | 'channel' | 'kind'>;
  private readonly quota: Counter<'model' | 'channel'>;
  private readonly anomalies: Counter<'model' | 'channel'>;
  private readonly batchSize: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly statements: Counter;
  private readonly lockWait: Counter;

  constructor(options: { inFlight: () => number; channels?: ChannelHealthSource; defaultMetrics?: boolean }) {
    const registers = [this.registry];
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'relay_requests_total', help: 'Relay requests by client dialect, model, channel and outcome', labelNames: ['dialect', 'model', 'channel', 'outcome'], registers });
    this.duration = new Histogram({ name: 'relay_request_duration_seconds', help: 'Time from request to the end of the answer', labelNames: ['dialect'], buckets: LATENCY_BUCKETS, registers });
    this.firstByte = new Histogram({ name: 'relay_first_byte_seconds', help: 'Time from request to the first byte of the answer', labelNames: ['dialect'], buckets: LATENCY_BUCKETS, registers });
    this.tokens = new Counter({ name: 'relay_tokens_total', help: 'Tokens billed, by model, channel and kind (prompt, completion, cached, reasoning)', labelNames: ['model', 'channel', 'kind'], registers });
    this.quota = new Counter({ name: 'relay_quota_total', help: 'Quota charged, by model and channel', labelNames: ['model', 'channel'], registers });
    this.anomalies = new Counter({
      name: 'relay_usage_anomalies_total',
      help: 'Answers whose upstream usage report was unusable, implausibly low or above what the request allowed (billed at the bound or at the gateway count)',
      labelNames: ['model', 'channel'],
      registers,
    });
    new Gauge({ name: 'relay_in_flight_requests', help: 'Relay requests (streams included) being served now', registers, collect() { this.set(options.inFlight()); } });
    this.batchSize = new Histogram({ name: 'ledger_batch_jobs', help: 'Reservations and settlements committed per ledger transaction', buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1024], registers });
    this.commitSeconds = new Histogram({ name: 'ledger_commit_seconds', help: 'Time one ledger transaction took', buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers });
    this.statements = new Counter({ name: 'ledger_statements_total', help: 'SQL statements (round trips on PostgreSQL and MySQL) of the committed ledger batches, BEGIN and COMMIT included', registers });
    this.lockWait = new Counter({
      name: 'ledger_lock_wait_seconds',
      help: 'Seconds the committed ledger transactions spent in statements that lock shared key, user and channel rows (waiting for other transactions, on this or another instance, plus the statements themselves)',
      registers,
    });
    const source = options.channels;
    if (source) {
      // Each gauge reads the channels at scrape time (the source caches the read for a few seconds).
      new Gauge({
        name: 'channel_up',
        help: 'Channel enabled (1) or disabled (0)',
        labelNames: ['channel', 'type'],
        registers,
        async collect() {
          this.reset();
          for (const channel of await source.channels()) this.set({ channel: channelLabel(channel.id, channel.name), type: String(channel.type) }, channel.status === 1 ? 1 : 0);
        },
      });
      new Gauge({
        name: 'channel_test_response_seconds',
        help: "Response time of the channel's last test",
        labelNames: ['channel'],
        registers,
        async collect() {
          this.reset();
          for (const channel of await source.channels()) this.set({ channel: channelLabel(channel.id, channel.name) }, channel.response_time / 1000);
        },
      });
    }
  }

  observeRequest(o: RelayObservation): void {
    const channel = o.channelId > 0 ? channelLabel(o.channelId, o.channelName) : 'none';
    this.requests.inc({ dialect: o.dialect, model: o.model, channel, outcome: o.outcome });
    this.duration.observe({ dialect: o.dialect }, o.seconds);
    if (o.firstByteSeconds !== undefined) this.firstByte.observe({ dialect: o.dialect }, o.firstByteSeconds);
    for (const [kind, count] of [['prompt', o.promptTokens], ['completion', o.completionTokens], ['cached', o.cachedTokens], ['reasoning', o.reasoningTokens]] as const) {
      if (count > 0) this.tokens.inc({ model: o.model, channel, kind }, count);
    }
    if (o.quota > 0) this.quota.inc({ model: o.model, channel }, o.quota);
    if (o.usageAnomaly) this.anomalies.inc({ model: o.model, channel });
  }

  observeCommit(jobs: number, seconds: number, statements = 0, lockSeconds = 0): void {
    this.batchSize.observe(jobs);
    this.commitSeconds.observe(seconds);
    this.statements.inc(statements);
    this.lockWait.inc(lockSeconds);
  }
}

const channelLabel = (id: number, name: string) => `${id}:${name}`;
