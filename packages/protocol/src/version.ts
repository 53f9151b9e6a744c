/** The protocol name and major version the server announces in `hello.protocol`. */
export const PROTOCOL_VERSION = 'interthought/1' as const;
export type ProtocolVersion = typeof PROTOCOL_VERSION;
