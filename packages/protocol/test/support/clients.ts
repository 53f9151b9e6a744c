import { afterEach, beforeEach } from 'vitest';
import { WebSocket } from 'ws';
import { InterthoughtClient, type InterthoughtClientOptions, type SessionUpdate } from '../../src/index.js';
import { ScriptedServer } from './scripted-server.js';

const open: InterthoughtClient[] = [];

/** A client of the scripted server with short delays, closed by `closeClients`. */
export function clientOf(server: ScriptedServer, options: Partial<InterthoughtClientOptions> = {}): InterthoughtClient {
  const client = new InterthoughtClient({
    WebSocket,
    requestTimeoutMs: 2_000,
    backoff: { initialDelayMs: 5, maxDelayMs: 40 },
    ...options,
    url: options.url ?? server.url,
  });
  open.push(client);
  return client;
}

export function closeClients(): void {
  for (const client of open.splice(0)) client.close();
}

/** A fresh scripted server for each test of the file (handed to `use`); after each, its clients and the server close. */
export function useScriptedServer(use: (server: ScriptedServer) => void): void {
  let current: ScriptedServer | undefined;
  beforeEach(async () => {
    current = await ScriptedServer.start();
    use(current);
  });
  afterEach(async () => {
    closeClients();
    await current?.close();
  });
}

/** What a subscriber saw: "snapshot@seq" or "type@seq", in order. */
export const describeUpdates = (updates: SessionUpdate[]): string[] =>
  updates.map((update) => (update.type === 'session.snapshot' ? `snapshot@${update.seq}` : `${update.type}@${update.seq}`));

/** The seqs of the events (not snapshots) a subscriber saw. */
export const eventSeqs = (updates: SessionUpdate[]): number[] =>
  updates.flatMap((update) => (update.type === 'session.snapshot' ? [] : [update.seq]));

/** 1 … n. */
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(to - from + 1, 0) }, (_, i) => from + i);
