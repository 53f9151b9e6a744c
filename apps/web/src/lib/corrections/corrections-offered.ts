import type { Hello } from '@interthought/protocol';

/**
 * Whether this reader is offered the Corrections page: the server keeps corrections as data
 * (capability `corrections-data`) and the reader may list them, which a share link's holder may
 * not (PROTOCOL.md §26.2: 403). Unknown until the hello comes.
 */
export function correctionsOffered(hello: Pick<Hello, 'capabilities' | 'share'> | undefined): boolean {
  return hello !== undefined && hello.capabilities.includes('corrections-data') && hello.share === undefined;
}
