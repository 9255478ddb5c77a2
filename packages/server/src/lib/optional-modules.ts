import { createRequire } from 'node:module';
import type * as GoogleAuth from 'google-auth-library';
import type * as IoRedis from 'ioredis';
import type * as Mysql from 'mysql2';
import type * as MysqlPromise from 'mysql2/promise';
import type Nodemailer from 'nodemailer';
import type Pg from 'pg';
import type * as SmithyEventStreams from '@smithy/core/event-streams';
import type * as SmithySerde from '@smithy/core/serde';
import type * as SignatureV4 from '@smithy/signature-v4';
import type Ws from 'ws';

const require = createRequire(import.meta.url);

/** A module loaded on its first use, once; a failed load is tried again on the next use. */
function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}

/**
 * The libraries only some deployments or some channels use, loaded when one is first needed rather than at boot:
 * a server on the SQLite default with no Redis, no e-mail and no AWS, Vertex or Spark channel never loads them.
 * Together they are ~9 MB of JS heap and ~220 ms of start-up (bench/README.md, 2026-12-07 morning). Every one has a
 * CommonJS entry, so a synchronous call site stays synchronous.
 */
export const optional = {
  pg: onFirstUse<typeof Pg>('pg'),
  mysql: onFirstUse<typeof Mysql>('mysql2'),
  mysqlPromise: onFirstUse<typeof MysqlPromise>('mysql2/promise'),
  ioredis: onFirstUse<typeof IoRedis>('ioredis'),
  nodemailer: onFirstUse<typeof Nodemailer>('nodemailer'),
  googleAuth: onFirstUse<typeof GoogleAuth>('google-auth-library'),
  signatureV4: onFirstUse<typeof SignatureV4>('@smithy/signature-v4'),
  smithySerde: onFirstUse<typeof SmithySerde>('@smithy/core/serde'),
  smithyEventStreams: onFirstUse<typeof SmithyEventStreams>('@smithy/core/event-streams'),
  ws: onFirstUse<typeof Ws>('ws'),
};

/** pg, with PostgreSQL's BIGINT (20) and NUMERIC (1700, e.g. SUM) read as numbers: quota values fit in a double exactly. */
let pgReady = false;
export function loadPg(): typeof Pg {
  const pg = optional.pg();
  if (!pgReady) {
    pg.types.setTypeParser(20, (value) => Number(value));
    pg.types.setTypeParser(1700, (value) => Number(value));
    pgReady = true;
  }
  return pg;
}
