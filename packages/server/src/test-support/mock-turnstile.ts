import { opaque, startMockServer, type MockServer } from './mock-http.js';

export interface MockTurnstile extends MockServer {
  /** Full siteverify URL (TURNSTILE_VERIFY_URL). */
  verifyUrl: string;
  /** URL of the stand-in widget script (TURNSTILE_SCRIPT_URL). */
  scriptUrl: string;
  /** A token as a solved widget of this site key hands to the page. */
  solve(siteKey: string): string;
}

/** A token is valid for 300 seconds and can be validated once (Cloudflare's documentation). */
const TOKEN_TTL_MS = 300 * 1000;

/**
 * Cloudflare Turnstile for one site (site key + secret key): the siteverify endpoint of
 * https://developers.cloudflare.com/turnstile/get-started/server-side-validation/ (form or JSON body with
 * secret, response, remoteip; answer {success, error-codes}) and, for browser tests, a stand-in for the
 * widget script: `turnstile.render(el, {sitekey, callback})` draws a "确认您是真人" checkbox which, once
 * ticked, obtains a token from this mock and passes it to `callback`, as the real widget does.
 */
export async function startMockTurnstile(site: { siteKey: string; secretKey: string }): Promise<MockTurnstile> {
  const tokens = new Map<string, { siteKey: string; issuedAt: number }>();
  const usedTokens = new Set<string>();
  const solve = (siteKey: string) => {
    const token = opaque('0.', 60);
    tokens.set(token, { siteKey, issuedAt: Date.now() });
    return token;
  };
  const cors = { 'access-control-allow-origin': '*' };

  const server = await startMockServer((req) => {
    if (req.method === 'POST' && req.path === '/turnstile/v0/siteverify') {
      const refuse = (code: string) => ({ body: { success: false, 'error-codes': [code], messages: [] } });
      const secret = String(req.body.secret ?? '');
      const response = String(req.body.response ?? '');
      if (!secret) return refuse('missing-input-secret');
      if (secret !== site.secretKey) return refuse('invalid-input-secret');
      if (!response) return refuse('missing-input-response');
      const token = tokens.get(response);
      if (!token) return refuse(usedTokens.has(response) ? 'timeout-or-duplicate' : 'invalid-input-response');
      tokens.delete(response);
      usedTokens.add(response);
      if (token.siteKey !== site.siteKey) return refuse('invalid-input-response');
      if (Date.now() - token.issuedAt > TOKEN_TTL_MS) return refuse('timeout-or-duplicate');
      return { body: { success: true, 'error-codes': [], challenge_ts: new Date(token.issuedAt).toISOString(), hostname: 'localhost', action: '', cdata: '' } };
    }
    if (req.method === 'GET' && req.path === '/turnstile/v0/api.js') {
      return { headers: { 'content-type': 'text/javascript; charset=utf-8', ...cors }, body: WIDGET_SCRIPT };
    }
    if (req.method === 'POST' && req.path === '/__mock/solve') {
      const siteKey = req.query.get('sitekey') ?? '';
      if (siteKey !== site.siteKey) return { headers: cors, body: { error: 'invalid sitekey' } };
      return { headers: cors, body: { token: solve(siteKey) } };
    }
    return { status: 404, body: 'not found' };
  });
  return { ...server, verifyUrl: `${server.url}/turnstile/v0/siteverify`, scriptUrl: `${server.url}/turnstile/v0/api.js`, solve };
}

/** The stand-in widget (plain browser JavaScript, served to the page). */
const WIDGET_SCRIPT = `(function () {
  var script = document.currentScript;
  var origin = new URL(script.src).origin;
  var widgets = {};
  var next = 0;
  window.turnstile = {
    render: function (target, options) {
      var container = typeof target === 'string' ? document.querySelector(target) : target;
      var id = 'mock-widget-' + (++next);
      var label = document.createElement('label');
      var box = document.createElement('input');
      box.type = 'checkbox';
      box.setAttribute('aria-label', '确认您是真人');
      label.appendChild(box);
      label.appendChild(document.createTextNode(' 确认您是真人'));
      container.appendChild(label);
      widgets[id] = { label: label, box: box, token: '' };
      box.addEventListener('change', function () {
        if (!box.checked) return;
        fetch(origin + '/__mock/solve?sitekey=' + encodeURIComponent(options.sitekey), { method: 'POST' })
          .then(function (r) { return r.json(); })
          .then(function (answer) {
            if (!answer.token) { box.checked = false; if (options['error-callback']) options['error-callback'](answer.error); return; }
            widgets[id].token = answer.token;
            // Like the real widget's success tick: the check has passed and the page has the token.
            var passed = document.createElement('span');
            passed.textContent = ' 已通过验证';
            passed.setAttribute('data-turnstile', 'passed');
            label.appendChild(passed);
            if (options.callback) options.callback(answer.token);
          });
      });
      return id;
    },
    reset: function (id) { var w = widgets[id]; if (w) { w.box.checked = false; w.token = ''; var p = w.label.querySelector('[data-turnstile]'); if (p) p.remove(); } },
    remove: function (id) { var w = widgets[id]; if (w) { w.label.remove(); delete widgets[id]; } },
    getResponse: function (id) { var w = widgets[id]; return w ? w.token : undefined; }
  };
  var onload = new URL(script.src).searchParams.get('onload');
  if (onload && typeof window[onload] === 'function') window[onload]();
})();
`;
