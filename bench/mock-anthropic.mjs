// A zero-latency Anthropic-format upstream for the benchmark (node:http, fixed bodies), the Messages API as
// https://docs.anthropic.com/en/api/messages and /en/docs/build-with-claude/streaming describe it:
//   POST /v1/messages                  -> a `message` JSON with usage
//   ... with "stream": true            -> message_start, content_block_start, ping, content_block_delta
//                                         (text_delta) x 3, content_block_stop, message_delta with usage,
//                                         message_stop; each as `event: <type>` + `data: <json>`
//   ... with a model containing "hold" -> up to the first text_delta, then the stream stays open HOLD_MS
// It checks nothing (no key, no anthropic-version): it stands for an upstream that answers instantly.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 9998);
const holdMs = Number(process.env.HOLD_MS ?? 15000);
const usage = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 12 };
const messageFor = (model) => JSON.stringify({
  id: 'msg_01BenchBenchBenchBench', type: 'message', role: 'assistant', model,
  content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
  stop_reason: 'end_turn', stop_sequence: null,
  usage: { ...usage, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, service_tier: 'standard' },
});
const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const head = (model) =>
  event({ type: 'message_start', message: { id: 'msg_01BenchBenchBenchBench', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' } } }) +
  event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
  event({ type: 'ping' });
const delta = (text) => event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
const tail =
  delta('! How can I') + delta(' help you today?') +
  event({ type: 'content_block_stop', index: 0 }) +
  event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage }) +
  event({ type: 'message_stop' });

createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw || '{}'); } catch { /* ignore */ }
    const model = typeof body.model === 'string' ? body.model : 'claude';
    if (!body.stream) {
      const message = messageFor(model);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(message) });
      return res.end(message);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write(head(model) + delta('Hello'));
    if (model.includes('hold')) setTimeout(() => res.end(tail), holdMs);
    else res.end(tail);
  });
}).listen(port, '127.0.0.1', () => console.log(`mock anthropic upstream on ${port}`));
