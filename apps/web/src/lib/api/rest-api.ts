import { CorrectionPageSchema, MeSchema, type AgentListing, type CorrectionExportFormat, type CorrectionFilter, type CorrectionPage, type Me, type SessionInfo, type SessionPage, type ToolList, type ToolListing } from '@interthought/protocol';
import { correctionExportPath, correctionListPath } from './correction-query.js';

/** A REST call that failed: the server's `{ code, message }`, or a network failure (`NETWORK`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** For `BAD_IMPORT`: the first line of the file that failed (1-based). */
    readonly line?: number,
  ) {
    super(message);
  }
}

/** The two forms of `GET /api/sessions/:id/export` (PROTOCOL.md §20.5). */
export type ExportFormat = 'json' | 'md';

/** For whom a Markdown transcript is written: an IANA time zone and the UI's language. */
export interface TranscriptFor {
  timeZone?: string;
  lang?: 'en' | 'zh';
}

/** An export as the server sent it, ready to save. */
export interface ExportedFile {
  blob: Blob;
  fileName: string;
}

/** The file name a `content-disposition: attachment; filename="…"` header names, if any. */
export function attachmentName(header: string | null): string | undefined {
  const match = header ? /filename="([^"]+)"/i.exec(header) : null;
  return match?.[1];
}

/** What the server says of the token a request presents: `granted` (or no token needed), `unauthorized` (401), or `unreachable`. */
export type AccessCheck = 'granted' | 'unauthorized' | 'unreachable';

/** An access check, with who the server says the page is (`GET /api/me`) when it said so. */
export interface AccessAnswer {
  access: AccessCheck;
  me?: Me;
}

/** The header a share link's token travels in on REST (PROTOCOL.md §21.3): kept out of URLs and logs. */
export const SHARE_HEADER = 'x-interthought-share';

type Fetch = typeof fetch;

/** What fetch may put in a header (a ByteString); the server's token may be any text without spaces. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

const withQuery = (url: string, name: string, value: string) => `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;

/**
 * The request for `url` presenting `token`: as `Authorization: Bearer`, or, for a token a header
 * cannot carry (non-ASCII), as `?token=` like the WebSocket does (the server redacts it from logs).
 * A share link's token goes the same way, in its own header or as `?share=`.
 */
function authorized(url: string, token: string | undefined, share: string | undefined): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { accept: 'application/json' };
  let address = url;
  if (token !== undefined) {
    if (HEADER_SAFE.test(token)) headers.authorization = `Bearer ${token}`;
    else address = withQuery(address, 'token', token);
  }
  if (share !== undefined) {
    if (HEADER_SAFE.test(share)) headers[SHARE_HEADER] = share;
    else address = withQuery(address, 'share', share);
  }
  return { url: address, headers };
}

export interface RestApiOptions {
  fetch?: Fetch;
  baseUrl?: string;
  /** The server's access token, sent as `Authorization: Bearer` (see `authorized`); asked for at each call. */
  token?: () => string | undefined;
  /** The share link token the page presents, if any; asked for at each call. */
  share?: () => string | undefined;
}

/** The REST side of the server (`/api`) the app needs: the agents to pick from, pages of older sessions, export and import. Live data comes over the WebSocket. */
export class RestApi {
  readonly #fetch: Fetch;
  readonly #base: string;
  readonly #token: () => string | undefined;
  readonly #share: () => string | undefined;
  readonly #unauthorizedListeners = new Set<(token: string | undefined) => void>();

  constructor(options: RestApiOptions = {}) {
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
    this.#base = options.baseUrl ?? '';
    this.#token = options.token ?? (() => undefined);
    this.#share = options.share ?? (() => undefined);
  }

  /** Hear each 401 the server answers to a call, with the token it was made with (undefined: without one). Returns the function that stops it. */
  onUnauthorized(listener: (token: string | undefined) => void): () => void {
    this.#unauthorizedListeners.add(listener);
    return () => this.#unauthorizedListeners.delete(listener);
  }

  agents(signal?: AbortSignal, lang?: 'en' | 'zh'): Promise<AgentListing[]> {
    return this.#getJson<AgentListing[]>(lang === undefined ? '/api/agents' : `/api/agents?lang=${lang}`, signal);
  }

  /** The tools agents may call: the built-in ones and those of the server's MCP servers (`GET /api/tools`). */
  async tools(signal?: AbortSignal): Promise<ToolListing[]> {
    return (await this.#getJson<ToolList>('/api/tools', signal)).tools;
  }

  /** A page of sessions, newest first; `before` is the `nextCursor` of the page before it. */
  sessions(options: { limit?: number; before?: string } = {}, signal?: AbortSignal): Promise<SessionPage> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.before !== undefined) query.set('before', options.before);
    const suffix = query.size ? `?${query}` : '';
    return this.#getJson<SessionPage>(`/api/sessions${suffix}`, signal);
  }

  /**
   * A session's export as a file. Fetched rather than linked: a plain link cannot carry the
   * `Authorization` header, and a token in the address would end up in the browser's history.
   */
  async exportSession(sessionId: string, format: ExportFormat, reader: TranscriptFor = {}): Promise<ExportedFile> {
    const query = new URLSearchParams({ format });
    // A transcript is written for its reader: their time zone and language (PROTOCOL.md §20.5).
    if (format === 'md' && reader.timeZone !== undefined) query.set('tz', reader.timeZone);
    if (format === 'md' && reader.lang !== undefined) query.set('lang', reader.lang);
    const response = await this.#send(`/api/sessions/${encodeURIComponent(sessionId)}/export?${query}`, {});
    const fileName = attachmentName(response.headers.get('content-disposition')) ?? `interthought-${sessionId}.${format === 'md' ? 'md' : 'ndjson'}`;
    return { blob: await response.blob(), fileName };
  }

  /** Create a session from an export (`POST /api/sessions/import`); a refused file throws `BAD_IMPORT` with its `line`. */
  async importSession(ndjson: string): Promise<SessionInfo> {
    const response = await this.#send('/api/sessions/import', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: ndjson });
    const body = (await response.json()) as { session: SessionInfo };
    return body.session;
  }

  /** A page of corrections, newest first (`GET /api/corrections`, PROTOCOL.md §26.2); `before` is the previous page's `nextCursor`. */
  async corrections(filter: CorrectionFilter, options: { before?: string; limit?: number } = {}, signal?: AbortSignal): Promise<CorrectionPage> {
    return CorrectionPageSchema.parse(await this.#getJson<unknown>(correctionListPath(filter, options), signal));
  }

  /** Every matching correction as an NDJSON file (§26.3). Fetched, not linked, for the same reason as `exportSession`. */
  async exportCorrections(format: CorrectionExportFormat, filter: CorrectionFilter): Promise<ExportedFile> {
    const response = await this.#send(correctionExportPath(format, filter), {});
    const fileName = attachmentName(response.headers.get('content-disposition')) ?? `interthought-corrections-${format}.ndjson`;
    return { blob: await response.blob(), fileName };
  }

  /** Who the server says this page is (`GET /api/me`): needs no sign-in, and says why there is none. */
  async me(signal?: AbortSignal): Promise<Me> {
    return MeSchema.parse(await this.#getJson<unknown>('/api/me', signal));
  }

  /**
   * Whether the current token (or share link) lets this page in, and who the server says it is;
   * never throws. `GET /api/me` answers signed in or not; a server that does not know it is asked
   * as before, by the status of a guarded route (401: not let in).
   */
  async checkAccess(): Promise<AccessAnswer> {
    const request = authorized(`${this.#base}/api/me`, this.#token(), this.#share());
    let response: Response;
    try {
      response = await this.#fetch(request.url, { headers: request.headers });
    } catch {
      return { access: 'unreachable' };
    }
    if (response.status === 401) {
      void response.body?.cancel().catch(() => undefined);
      return { access: 'unauthorized' };
    }
    const parsed = MeSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) return { access: 'granted' };
    const me = parsed.data;
    return { access: me.auth === 'none' || me.signedIn || me.share !== undefined ? 'granted' : 'unauthorized', me };
  }

  async #getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
    const response = await this.#send(path, signal ? { signal } : {});
    return (await response.json().catch(() => undefined)) as T;
  }

  /** Send a request with the token; a failure (network, or any status but 2xx) throws an ApiError with the server's code and message. */
  async #send(path: string, init: RequestInit): Promise<Response> {
    const token = this.#token();
    const request = authorized(`${this.#base}${path}`, token, this.#share());
    let response: Response;
    try {
      response = await this.#fetch(request.url, { ...init, headers: { ...request.headers, ...(init.headers as Record<string, string> | undefined) } });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError('NETWORK', 'The server could not be reached.', 0);
    }
    if (!response.ok) {
      if (response.status === 401) for (const listener of this.#unauthorizedListeners) listener(token);
      const body: unknown = await response.json().catch(() => undefined);
      const record = (body ?? {}) as { code?: unknown; message?: unknown; line?: unknown };
      const code = typeof record.code === 'string' ? record.code : `HTTP_${response.status}`;
      const message = typeof record.message === 'string' ? record.message : `${response.status} ${response.statusText}`;
      throw new ApiError(code, message, response.status, typeof record.line === 'number' ? record.line : undefined);
    }
    return response;
  }
}
