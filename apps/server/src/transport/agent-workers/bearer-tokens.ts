import { createHash, timingSafeEqual } from 'node:crypto';

/** Equal-length digests, so comparing never leaks a token's length or where it first differs. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The worker tokens (INTERTHOUGHT_AGENT_TOKENS), checked in constant time against every one. */
export class BearerTokens {
  readonly #digests: readonly Buffer[];

  constructor(tokens: readonly string[]) {
    this.#digests = tokens.map(digest);
  }

  /** Whether `Authorization: Bearer <token>` names one of the tokens; every token is compared, whatever matches. */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer[ ]+(\S+)\s*$/iu.exec(authorization ?? '');
    if (match?.[1] === undefined) return false;
    const presented = digest(match[1]);
    let accepted = false;
    for (const known of this.#digests) accepted = timingSafeEqual(presented, known) || accepted;
    return accepted;
  }
}
