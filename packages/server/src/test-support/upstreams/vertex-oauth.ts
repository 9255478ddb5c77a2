import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { modeOf, type MockMode } from './mock-server.js';

/**
 * Google's OAuth 2.0 token endpoint for service accounts, as documented in
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest: the caller posts
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT signed RS256 with the account's key>` and
 * gets `{access_token, expires_in, token_type}`. The mock owns one RSA key pair, hands out service-account key files
 * whose private key is its private half, and verifies assertions against the public half.
 */
export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}
export interface TokenInfo {
  token: string;
  email: string;
  project: string;
  mode: MockMode;
  expiresAt: number;
}
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EMAIL = /^(revoked-)?([a-z0-9-]+)@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/;

const b64url = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
const grantError = (error: string, description: string): TokenAnswer => ({ status: 400, body: { error, error_description: description } });

export class MockTokenIssuer {
  readonly privateKeyId = randomBytes(20).toString('hex');
  readonly tokens = new Map<string, TokenInfo>();
  /** Every successful exchange, so a test can assert that a token is cached instead of fetched per request. */
  readonly exchanges: Array<{ email: string; scope: string; at: number }> = [];
  private readonly publicKey: KeyObject;
  private readonly privatePem: string;

  constructor(
    private readonly tokenUri: string,
    private readonly ttlSeconds: number,
  ) {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.publicKey = publicKey;
    this.privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }

  /** A service-account key file (the JSON a console download gives) whose token_uri is this mock. */
  serviceAccount({ mode = 'ok', project = 'relay-test-project', revoked = false }: { mode?: MockMode; project?: string; revoked?: boolean } = {}): ServiceAccountKey {
    const email = `${revoked ? 'revoked-' : ''}${mode}@${project}.iam.gserviceaccount.com`;
    return {
      type: 'service_account',
      project_id: project,
      private_key_id: this.privateKeyId,
      private_key: this.privatePem,
      client_email: email,
      client_id: '104' + BigInt('0x' + this.privateKeyId.slice(0, 14)).toString().padStart(18, '0'),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: 'googleapis.com',
    };
  }

  exchange(form: unknown): TokenAnswer {
    const fields = (typeof form === 'object' && form !== null ? form : {}) as Record<string, string>;
    if (fields.grant_type !== JWT_BEARER) return grantError('unsupported_grant_type', `Invalid grant_type: ${fields.grant_type ?? ''}`);
    const parts = String(fields.assertion ?? '').split('.');
    if (parts.length !== 3) return grantError('invalid_request', 'Invalid JWT: assertion must be a JWT with three parts.');
    let header: Record<string, unknown>;
    let claims: Record<string, any>;
    try {
      header = JSON.parse(b64url(parts[0]).toString('utf8'));
      claims = JSON.parse(b64url(parts[1]).toString('utf8'));
    } catch {
      return grantError('invalid_grant', 'Invalid JWT: the header or claim set is not JSON.');
    }
    const signed = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), this.publicKey, b64url(parts[2]));
    if (header.alg !== 'RS256' || (header.kid !== undefined && header.kid !== this.privateKeyId) || !signed) return grantError('invalid_grant', 'Invalid JWT Signature.');
    const account = EMAIL.exec(String(claims.iss ?? ''));
    const mode = modeOf(account?.[2]);
    if (!account || !mode || account[1]) return grantError('invalid_grant', 'Invalid grant: account not found');
    if (claims.aud !== this.tokenUri && claims.aud !== GOOGLE_TOKEN_URL) return grantError('invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${GOOGLE_TOKEN_URL}`);
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp - iat > 3600 || exp <= iat || iat > now + 300 || exp < now - 300) {
      return grantError('invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
    }
    const scopes = String(claims.scope ?? '').split(/\s+/);
    if (!scopes.includes(CLOUD_PLATFORM_SCOPE)) return grantError('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');

    const token = `ya29.c.${randomBytes(48).toString('base64url')}`;
    this.tokens.set(token, { token, email: claims.iss, project: account[3], mode, expiresAt: Date.now() + this.ttlSeconds * 1000 });
    this.exchanges.push({ email: claims.iss, scope: claims.scope, at: Date.now() });
    return { status: 200, body: { access_token: token, expires_in: this.ttlSeconds, token_type: 'Bearer' } };
  }

  /** The token's owner, or undefined when it was never issued or has expired. */
  check(token: string | undefined): TokenInfo | undefined {
    const info = token ? this.tokens.get(token) : undefined;
    return info && info.expiresAt > Date.now() ? info : undefined;
  }
}
