import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs a client with no network but loopback: in a network namespace of its own (unshare, as root), where the only
 * thing listening is a forwarder on 127.0.0.1:<port> that tunnels, through a Unix socket (a file, which crosses
 * namespaces), to the gateway on this machine's loopback. Telemetry, update checks and anything else a client tries
 * to reach fail at once.
 */
export interface SandboxRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A Unix socket that forwards each connection to host:port (outside the namespace). */
async function tunnel(port: number): Promise<{ path: string; server: Server }> {
  const path = join(mkdtempSync(join(tmpdir(), 'mr-tunnel-')), 'gateway.sock');
  const server = createServer((inside) => {
    const outside = createConnection(port, '127.0.0.1');
    inside.pipe(outside).pipe(inside);
    const close = () => {
      inside.destroy();
      outside.destroy();
    };
    inside.on('error', close);
    outside.on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, server };
}

/** Inside the namespace: loopback up, the forwarder on the gateway's port, then the client. */
const FORWARDER = `
const net = require('node:net');
const [port, socket] = process.argv.slice(1);
net.createServer((c) => { const s = net.connect(socket); c.pipe(s).pipe(c); const close = () => { c.destroy(); s.destroy(); }; c.on('error', close); s.on('error', close); })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

export async function runSandboxed(command: string, args: string[], options: { port: number; env: Record<string, string>; cwd: string; timeoutMs: number; stdin?: string }): Promise<SandboxRun> {
  const { path, server } = await tunnel(options.port);
  const script = [
    'set -e',
    'ip link set lo up',
    `node -e "$FORWARDER" ${options.port} ${path} > "$READY" 2>/dev/null &`,
    'for i in $(seq 1 100); do [ -s "$READY" ] && break; sleep 0.05; done',
    'exec "$@"',
  ].join('\n');
  const ready = join(tmpdir(), `mr-ready-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  try {
    return await new Promise<SandboxRun>((resolve) => {
      // A PID namespace too: when the client (its first process) exits, the forwarder goes with it.
      const child = spawn('unshare', ['--net', '--pid', '--fork', '--kill-child', 'bash', '-c', script, 'sandbox', command, ...args], {
        cwd: options.cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env, FORWARDER, READY: ready },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end(options.stdin ?? '');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    server.close();
  }
}
