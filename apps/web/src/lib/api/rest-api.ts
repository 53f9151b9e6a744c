import type { AgentListing, SessionPage } from '@interthought/protocol';

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

/** The REST side of the server (`/api`) the app needs: the agents to pick from, and pages of older sessions. Live data comes over the WebSocket. */
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

  /** A page of sessions, newest first; `before` is the `nextCursor` of the page before it. */
  sessions(options: { limit?: number; before?: string } = {}, signal?: AbortSignal): Promise<SessionPage> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.before !== undefined) query.set('before', options.before);
    const suffix = query.size ? `?${query}` : '';
    return getJson<SessionPage>(this.#fetch, `${this.#base}/api/sessions${suffix}`, signal);
  }
}
