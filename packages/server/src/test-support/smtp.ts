import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  port: number;
  /** Every message received, raw (headers and body). */
  mails: string[];
  close(): Promise<void>;
}

/** A real SMTP server on a free local port that keeps what it receives (no TLS, no authentication needed). */
export async function startTestSmtp(): Promise<TestSmtp> {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push(text);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A received mail, decoded: recipients, subject and the plain-text body (what a reader sees). */
export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Decodes a raw message as received: RFC 2047 encoded-word headers and the text/plain part in its transfer
 * encoding (quoted-printable, base64 or plain), enough to read what nodemailer sends.
 */
export function readMail(raw: string): ReceivedMail {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = unfold(head);
  const body = rest.join('\n\n');
  const contentType = headers['content-type'] ?? 'text/plain';
  let text: string;
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (boundary) {
    const parts = body.split(`--${boundary}`).slice(1, -1);
    const plain = parts.map((part) => part.replace(/^\r?\n/, '')).find((part) => /content-type:\s*text\/plain/i.test(part.split(/\r?\n\r?\n/)[0])) ?? '';
    const [partHead, ...partBody] = plain.split(/\r?\n\r?\n/);
    text = decodeBody(partBody.join('\n\n'), unfold(partHead)['content-transfer-encoding']);
  } else {
    text = decodeBody(body, headers['content-transfer-encoding']);
  }
  return { to: decodeWords(headers.to ?? ''), subject: decodeWords(headers.subject ?? ''), text };
}

function unfold(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeBody(body: string, encoding = ''): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.replace(/=\r?\n/g, ''));
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
