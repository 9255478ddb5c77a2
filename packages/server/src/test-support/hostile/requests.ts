import type { InjectOptions } from 'fastify';
import { API_BODY_LIMIT } from '../../http/body-limits.js';
import {
  BAD_IDS,
  BAD_MODELS,
  DATABASE_BAD_IDS,
  DATABASE_FIELDS,
  DATABASE_QUERY_VALUES,
  DATABASE_VALUE_LABELS,
  FIELDS,
  HOSTILE_VALUES,
  HUGE_VALUES,
  QUERY_NAMES,
  QUERY_VALUES,
  RAW_BODIES,
  UNKNOWN_FIELDS,
  plausibleBody,
} from './payloads.js';
import type { AppRoute } from './routes.js';
import type { World } from './world.js';

export type Role = 'anonymous' | 'user' | 'admin';

/** One request of the suite and what it is, for the report. */
export interface HostileRequest {
  input: string;
  options: InjectOptions;
}

/** How much to send: everything, or (on the slower server databases) what reaches the database. */
export type Profile = 'full' | 'database';

const RELAY_LIMIT_PLUS = Buffer.alloc(32 * 1024 * 1024 + 1, 0x20);
const API_LIMIT_PLUS = JSON.stringify({ name: 'x'.repeat(API_BODY_LIMIT) });

export const isApi = (url: string) => url.startsWith('/api/');

/** The row a route's `:id` names for this role: its resource's seeded row. */
function validId(url: string, role: Role, world: World): number {
  if (url.startsWith('/api/token/')) return role === 'admin' ? world.tokens.root.id : world.tokens.user.id;
  if (url.startsWith('/api/channel/')) return world.channelId;
  if (url.startsWith('/api/redemption/')) return world.redemptionId;
  if (url.startsWith('/api/user/')) return world.userId;
  return 1;
}

function fillPath(url: string, value: (param: string) => string): string {
  if (url === '*') return '/v1/anything';
  return url.replace(/:(\w+)/g, (_m, param: string) => value(param)).replace(/\*$/, 'anything');
}

/** API keys for the relay; /api requests get the role's session cookie when sent (it changes after a logout). */
function credentials(url: string, role: Role, world: World): Record<string, string> {
  if (role === 'anonymous' || isApi(url)) return {};
  return { authorization: `Bearer sk-${role === 'admin' ? world.tokens.root.key : world.tokens.user.key}` };
}

/** Every request the suite sends to one route as one role. */
export function requestsFor(route: AppRoute, role: Role, world: World, profile: Profile, seed: number): HostileRequest[] {
  const full = profile === 'full';
  const out: HostileRequest[] = [];
  // On the server databases an anonymous caller only matters where no session is needed: bodies (login, register).
  if (!full && role === 'anonymous' && route.method === 'GET') return out;
  const auth = credentials(route.url, role, world);
  const id = validId(route.url, role, world);
  const url = fillPath(route.url, (param) => (param === 'model' ? 'gpt-4o-mini' : String(id)));
  const method = route.method as InjectOptions['method'];
  const send = (input: string, options: Partial<InjectOptions>) => out.push({ input, options: { method, url, ...options, headers: { ...auth, ...(options.headers as Record<string, string>) } } });
  const json = (input: string, body: unknown) => send(input, { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const values = full ? HOSTILE_VALUES : HOSTILE_VALUES.filter(({ label }) => DATABASE_VALUE_LABELS.has(label));
  const fields = full ? FIELDS : DATABASE_FIELDS;

  send('no body, no query', {});
  // query strings: every parameter a route might read, all at once
  for (const value of full ? QUERY_VALUES : DATABASE_QUERY_VALUES) {
    send(`query = ${JSON.stringify(value).slice(0, 40)}`, { url: `${url}?${QUERY_NAMES.map((name) => `${name}=${encodeURIComponent(value)}`).join('&')}` });
  }
  if (full) send('query repeated', { url: `${url}?p=1&p=2&keyword=a&keyword=b&id=1&id=2` });
  // path parameters
  for (const param of route.url.match(/:(\w+)/g) ?? []) {
    for (const bad of param === ':model' ? BAD_MODELS : full ? BAD_IDS : DATABASE_BAD_IDS) {
      send(`${param} = ${bad.slice(0, 40)}`, { url: fillPath(route.url, (p) => (`:${p}` === param ? bad : p === 'model' ? 'gpt-4o-mini' : String(id))) });
    }
  }
  if (method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return out;

  const plausible = plausibleBody({ id });
  if (full) {
    for (const raw of RAW_BODIES) send(`body ${raw.label}`, { payload: raw.body, headers: { 'content-type': raw.contentType } });
    send('body past every limit', { payload: RELAY_LIMIT_PLUS, headers: { 'content-type': 'application/json' } });
    send('body past the /api limit', { payload: API_LIMIT_PLUS, headers: { 'content-type': 'application/json' } });
  }
  json('empty object', {});
  if (full) json('unknown fields', { ...plausible, ...UNKNOWN_FIELDS });
  // every field set to the same hostile value
  for (const { label, value } of values) json(`every field = ${label}`, Object.fromEntries(FIELDS.map((field) => [field, value])));
  // Anonymous callers are refused before any handler reads a field, and DELETE handlers read none: the values
  // above are enough for them.
  if (role === 'anonymous' || method === 'DELETE') return out;
  // The relay's database paths (model lookup, reservation) are reached by the values above already.
  if (!full && !isApi(route.url)) return out;
  // a plausible body with one hostile field, the value rotating so every pair comes up across routes
  fields.forEach((field, i) => {
    const { label, value } = values[(i + seed) % values.length];
    json(`${field} = ${label}`, { ...plausible, [field]: value });
  });
  if (full) {
    // Each huge value in two of the fields that are stored or echoed, rotating so every pair comes up across routes.
    const bigFields = ['name', 'models', 'model', 'username', 'value', 'key', 'input', 'messages', 'display_name', 'model_mapping', 'prompt'];
    // On the relay the model name always gets them (it is looked up, priced and quoted back).
    HUGE_VALUES.forEach(({ label, value }, i) => {
      const first = isApi(route.url) ? bigFields[(seed + i) % bigFields.length] : 'model';
      for (const field of new Set([first, bigFields[(seed + i + 5) % bigFields.length]])) json(`${field} = ${label}`, { ...plausible, [field]: value });
    });
    if (!isApi(route.url)) json('messages content = 1 MB', { ...plausible, messages: [{ role: 'user', content: 'abc '.repeat(250_000) }] });
  }
  return out;
}
