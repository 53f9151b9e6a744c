import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOverrides } from '../../src/app.js';
import type { Config } from '../../src/config/index.js';
import { testConfig } from './config.js';

export interface RunningServer {
  app: FastifyInstance;
  config: Config;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** e.g. ws://127.0.0.1:41234/ws */
  wsUrl: string;
  close(): Promise<void>;
}

/** Build the real app (real SessionManager and demo agent unless overridden) and listen on a free port. */
export async function startServer(config: Partial<Config> = {}, overrides: AppOverrides = {}): Promise<RunningServer> {
  const full = testConfig(config);
  const app = await buildApp(full, { logger: false, ...overrides });
  await app.listen({ host: full.host, port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return { app, config: full, baseUrl, wsUrl: `ws://127.0.0.1:${port}/ws`, close: () => app.close() };
}

/** Build the real app without listening, for `inject` and `injectWS`. */
export async function buildTestApp(config: Partial<Config> = {}, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  return buildApp(testConfig(config), { logger: false, ...overrides });
}
