import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/net.ts';

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

/** Starts `emporium serve` and resolves once it listens; gives up (and kills it) after the timeout. */
export async function startServer(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<Server> {
  const port = await freePort();
  const child = spawn(BIN, ['serve'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${out}`));
    }, timeoutMs);
    const check = () => {
      if (out.includes('Server listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${out}`));
    });
  });
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
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
): Promise<{ status: number; body: string }> {
  const json = body !== undefined && !Buffer.isBuffer(body) && typeof body === 'object';
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${url}`,
      { method, headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on('error', reject);
    req.end(json ? JSON.stringify(body) : (body as Buffer | string | undefined));
  });
}
