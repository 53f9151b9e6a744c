import type { AgentErrorCode, ErrorDetail } from '@interthought/protocol';

/** A worker frame the server refuses: sent back as an agent wire `error` frame with this code (PROTOCOL.md Part II §A9). */
export class WorkerFrameError extends Error {
  override readonly name = 'WorkerFrameError';

  constructor(
    readonly code: AgentErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }
}
