/**
 * Preloaded into every measured server (`--import`), Interthought and the baseline alike: it
 * answers the harness's IPC `bench.probe` with the process's memory (after a full GC, when
 * started with --expose-gc) and CPU time, so no server needs a memory endpoint for the bench.
 */

interface ProbeRequest {
  type: 'bench.probe';
  id: number;
  /** Collect garbage first (memory figures); off when only CPU time is wanted. */
  collect: boolean;
}

function isProbe(message: unknown): message is ProbeRequest {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'bench.probe';
}

const collect = (globalThis as { gc?: () => void }).gc;

if (typeof process.send === 'function') {
  process.on('message', (message: unknown) => {
    if (!isProbe(message)) return;
    // Twice: the first pass can leave garbage that only the second frees (weak callbacks, finalizers).
    if (message.collect) {
      collect?.();
      collect?.();
    }
    process.send?.({ type: 'bench.probe', id: message.id, memory: process.memoryUsage(), cpu: process.cpuUsage(), gc: collect !== undefined });
  });
  // The channel must not keep a server alive that was asked to stop.
  process.channel?.unref();
}
