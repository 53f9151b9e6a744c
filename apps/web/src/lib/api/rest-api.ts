import type { AgentListing } from '@interthought/protocol';

/** A REST call that failed: the server's `{ code, message }`, or a network failure (`NETWORK`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

type Fetch = typeof fetch;

async function getJson<T>(fetchImpl: Fetch, url: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError('NETWORK', 'The server could not be reached.', 0);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const record = (body ?? {}) as { code?: unknown; message?: unknown };
    const code = typeof record.code === 'string' ? record.code : `HTTP_${response.status}`;
    const message = typeof record.message === 'string' ? record.message : `${response.status} ${response.statusText}`;
    throw new ApiError(code, message, response.status);
  }
  return body as T;
}

/** The REST side of the server (`/api`) the app still needs: the agents to pick from. Sessions and the session list come over the WebSocket. */
export class RestApi {
  readonly #fetch: Fetch;
  readonly #base: string;

  constructor(options: { fetch?: Fetch; baseUrl?: string } = {}) {
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
    this.#base = options.baseUrl ?? '';
  }

  agents(signal?: AbortSignal): Promise<AgentListing[]> {
    return getJson<AgentListing[]>(this.#fetch, `${this.#base}/api/agents`, signal);
  }
}
