import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/shared/net.ts';

/** Run as an executable, as npm start and npx do, so that its own node options apply. */
export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/emporium.js');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `emporium ARGS` to completion, bounded in time. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, {
      env: { ...process.env, ...env },
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  stdout(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** A running `emporium` process that serves no HTTP (`emporium worker`). */
export type Worker = Omit<Server, 'baseUrl'>;

/**
 * Starts `emporium ARGS` and resolves once its output has `ready`; gives up (and kills it) after
 * the timeout, or when it exits first, with its output in the error.
 */
async function startProcess(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string,
  timeoutMs: number,
): Promise<Worker> {
  const child = spawn(BIN, args, { env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emporium ${args.join(' ')} did not start in time:\n${out}`));
    }, timeoutMs);
    const check = () => {
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`emporium ${args.join(' ')} exited:\n${out}`));
    });
  });
  return {
    child,
    stdout: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Ports others may take between our look and the server's listen (its embedded database's among them): a few tries. */
const PORT_TRIES = 5;

/** Starts `emporium serve` and resolves once it listens; gives up (and kills it) after the timeout. */
export async function startServer(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const started = await startProcess(
        ['serve'],
        { ...env, PORT: String(port), HOST: '127.0.0.1' },
        'Server listening',
        timeoutMs,
      );
      return { ...started, baseUrl: `http://127.0.0.1:${port}` };
    } catch (error) {
      if (!String(error).includes('EADDRINUSE') || attempt === PORT_TRIES) throw error;
    }
  }
}

/** Starts `emporium worker` and resolves once its workers run. */
export function startWorker(env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<Worker> {
  return startProcess(['worker'], env, 'emporium worker:', timeoutMs);
}

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request to a real server. Node's client sends no User-Agent unless told, which tests
 * of that rule need. An object body is sent as JSON; bytes and strings as they are.
 */
export function request(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Buffer | string | object,
): Promise<Response> {
  const json = body !== undefined && !Buffer.isBuffer(body) && typeof body === 'object';
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${url}`,
      { method, headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.end(json ? JSON.stringify(body) : (body as Buffer | string | undefined));
  });
}
