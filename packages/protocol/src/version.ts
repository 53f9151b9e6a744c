/** The protocol name and major version the server announces in `hello.protocol`. */
export const PROTOCOL_VERSION = 'interthought/1' as const;
export type ProtocolVersion = typeof PROTOCOL_VERSION;

/**
 * Whether a server announcing `protocol` in its `hello` speaks this version's protocol: the same
 * name and major (`interthought/1`, or a later additive `interthought/1.x`).
 */
export function isCompatibleProtocol(protocol: unknown): boolean {
  if (typeof protocol !== 'string') return false;
  const [name, major] = PROTOCOL_VERSION.split('/') as [string, string];
  const match = /^([^/]+)\/(\d+)(?:\.\d+)*$/u.exec(protocol);
  return match !== null && match[1] === name && match[2] === major;
}
