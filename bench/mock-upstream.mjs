// A zero-latency OpenAI-format upstream for the benchmark (node:http, fixed bodies).
//   POST /v1/chat/completions          -> chat.completion JSON with usage
//   ... with "stream": true            -> 10 SSE chunks, a usage chunk when asked, [DONE]
//   ... with model "hold-model"        -> one chunk, then the stream stays open HOLD_MS before finishing
//   ... with model "slow-model"        -> the chunks 50 ms apart (the soak's slow upstream)
//   ... with model "break-model"       -> one chunk, then the connection is cut (the soak's breaking upstream)
//   POST /api/chat                     -> Ollama's own chat API (a vendor whose answers a codec reads back): one
//                                         newline-delimited JSON message, or a stream of them ending with "done"
//                                         and its token counts; model "hold-model" holds after the first HOLD_MS
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 9999);
const holdMs = Number(process.env.HOLD_MS ?? 15000);
const usage = { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 };
const completion = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }], usage,
});
const chunk = (content) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const words = 'Hello ! How can I help you today ? Thanks .'.split(' ');

/** Ollama's /api/chat: streamed unless `stream: false`, each line a message; the last says done with its counts. */
function ollamaChat(body, res) {
  const line = (content, done) => `${JSON.stringify({ model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop', prompt_eval_count: 12, eval_count: 10 } : {}) })}\n`;
  if (body.stream === false) {
    const whole = line(words.join(' '), true);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(whole) });
    return res.end(whole);
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.write(line(words[0], false));
  const finish = () => {
    for (const w of words.slice(1)) res.write(line(` ${w}`, false));
    res.end(line('', true));
  };
  if (String(body.model).includes('hold')) setTimeout(finish, holdMs);
  else finish();
}

createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw || '{}'); } catch { /* ignore */ }
    if (req.url === '/api/chat') return ollamaChat(body, res);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      return res.end(completion);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const finish = () => {
      for (const w of words.slice(1)) res.write(chunk(` ${w}`));
      if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    };
    res.write(chunk(words[0]));
    if (body.model === 'hold-model') setTimeout(finish, holdMs);
    else if (body.model === 'break-model') setTimeout(() => res.destroy(), 5);
    else if (body.model === 'slow-model') {
      let i = 1;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (i < words.length) return res.write(chunk(` ${words[i++]}`));
        clearInterval(timer);
        res.end('data: [DONE]\n\n');
      }, 50);
    } else finish();
  });
}).listen(port, '127.0.0.1', () => console.log(`mock upstream on ${port}`));
