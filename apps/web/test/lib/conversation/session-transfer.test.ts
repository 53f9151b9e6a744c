import type { SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError, type ExportedFile } from '$lib/api/rest-api.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { SessionTransfer } from '$lib/conversation/session-transfer.svelte.js';
import { I18n } from '$lib/i18n/index.js';

const imported: SessionInfo = { sessionId: 'new', task: 'What is 15% of 240?', agent: 'demo', status: 'completed', revision: 0, createdAt: '2025-01-01T10:00:00.000Z' };

function transferWith(api: { exportSession?: () => Promise<ExportedFile>; importSession?: (text: string) => Promise<SessionInfo> }, locale: 'en' | 'zh' = 'en') {
  const toaster = new Toaster(60_000);
  const saved: ExportedFile[] = [];
  const upserted: SessionInfo[] = [];
  const opened: string[] = [];
  const bodies: string[] = [];
  const transfer = new SessionTransfer({
    api: {
      exportSession: api.exportSession ?? (() => Promise.reject(new Error('unexpected'))),
      importSession: (text) => {
        bodies.push(text);
        return api.importSession?.(text) ?? Promise.reject(new Error('unexpected'));
      },
    },
    toaster,
    i18n: new I18n({ languages: [locale] }),
    sessionList: { upsert: (session) => upserted.push(session) },
    openSession: (sessionId) => void opened.push(sessionId),
    save: (file) => saved.push(file),
  });
  return { transfer, toaster, saved, upserted, opened, bodies };
}

const file = (name: string, text: string) => ({ name, text: async () => text });

describe('SessionTransfer', () => {
  it('saves an export under the server’s file name and says so', async () => {
    const exported = { blob: new Blob(['# What is 15% of 240?']), fileName: 'interthought-s1.md' };
    const { transfer, saved, toaster } = transferWith({ exportSession: async () => exported });
    const running = transfer.exportAs('s1', 'md');
    expect(transfer.exporting).toBe('md');
    await running;
    expect(transfer.exporting).toBeNull();
    expect(saved).toEqual([exported]);
    expect(toaster.toasts.map((toast) => toast.title)).toEqual(['Downloaded interthought-s1.md']);
  });

  it('imports a picked file as it is and opens the new session', async () => {
    const { transfer, upserted, opened, bodies } = transferWith({ importSession: async () => imported });
    expect(await transfer.importFile(file('s1.ndjson', '{"type":"interthought.export"}\n'))).toEqual(imported);
    expect(bodies).toEqual(['{"type":"interthought.export"}\n']);
    expect(upserted).toEqual([imported]);
    expect(opened).toEqual(['new']);
  });

  it('names the refused line and the reason of a bad import, and opens nothing', async () => {
    const refusal = new ApiError('BAD_IMPORT', 'Line 3 is not JSON: Unexpected end of JSON input.', 400, 3);
    const { transfer, toaster, opened } = transferWith({ importSession: () => Promise.reject(refusal) }, 'zh');
    expect(await transfer.importFile(file('broken.ndjson', 'x'))).toBeUndefined();
    expect(opened).toEqual([]);
    expect(transfer.importing).toBe(false);
    expect(toaster.toasts).toEqual([
      expect.objectContaining({
        tone: 'error',
        title: '无法导入 broken.ndjson',
        message: '第 3 行：Line 3 is not JSON: Unexpected end of JSON input.',
        hint: '请选择用「导出为 JSON」从 Interthought 导出且未改动过的文件。',
      }),
    ]);
  });

  it('turns a failed export into a toast with the server’s message', async () => {
    const { transfer, toaster, saved } = transferWith({ exportSession: () => Promise.reject(new ApiError('SESSION_NOT_FOUND', 'No session "s1".', 404)) });
    await transfer.exportAs('s1', 'json');
    expect(saved).toEqual([]);
    expect(toaster.toasts[0]).toMatchObject({ tone: 'error', title: 'The export did not download', message: 'No session "s1".' });
  });
});
