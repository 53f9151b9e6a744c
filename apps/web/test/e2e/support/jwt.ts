import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The part of jose's `SignJWT` these tests use (jose is the server's dependency, not the web app's). */
interface JwtBuilder {
  setProtectedHeader(header: { alg: string }): JwtBuilder;
  setSubject(subject: string): JwtBuilder;
  setIssuedAt(): JwtBuilder;
  setExpirationTime(time: string | number): JwtBuilder;
  sign(key: Uint8Array): Promise<string>;
}
type SignJwtConstructor = new (payload: Record<string, unknown>) => JwtBuilder;

/** jose as the server resolves it: the same library that verifies these tokens signs them here. */
async function loadSignJwt(): Promise<SignJwtConstructor> {
  const fromServer = createRequire(new URL('../../../../server/package.json', import.meta.url));
  const jose = (await import(pathToFileURL(fromServer.resolve('jose')).href)) as { SignJWT: SignJwtConstructor };
  return jose.SignJWT;
}

/** A user an HS256 token speaks for: `sub`, the `name` claim, and the admin claim when set. */
export interface TokenUser {
  id: string;
  name: string;
  admin?: boolean;
}

/** Sign an HS256 JWT for `user` with the server's INTERTHOUGHT_JWT_SECRET, valid for `expiresIn` (e.g. '1h'). */
export async function signJwt(secret: string, user: TokenUser, expiresIn = '1h'): Promise<string> {
  const SignJWT = await loadSignJwt();
  return new SignJWT({ name: user.name, ...(user.admin ? { admin: true } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.id)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}
