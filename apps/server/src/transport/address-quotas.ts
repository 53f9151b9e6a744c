import { isIPv6 } from 'node:net';
import { TokenBucket } from './rate-limiter.js';

/**
 * The key a client's quotas are kept under: an IPv4 address as is, an IPv6 address by its /64
 * (one host or home usually holds a whole /64, so a per-address cap would be one address away
 * from useless). An IPv4 address mapped into IPv6 counts as the IPv4 address.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Open WebSockets per client address, against a cap: no one address can hold every socket the server has. */
export class ConnectionsPerAddress {
  readonly #open = new Map<string, number>();

  constructor(readonly max: number) {}

  hasRoom(key: string): boolean {
    return (this.#open.get(key) ?? 0) < this.max;
  }

  /** Count a socket that opened; false (not counted) when the address is already at the cap. */
  tryOpen(key: string): boolean {
    const count = this.#open.get(key) ?? 0;
    if (count >= this.max) return false;
    this.#open.set(key, count + 1);
    return true;
  }

  closed(key: string): void {
    const count = (this.#open.get(key) ?? 0) - 1;
    if (count > 0) this.#open.set(key, count);
    else this.#open.delete(key);
  }

  /** Addresses with at least one socket open. */
  get addresses(): number {
    return this.#open.size;
  }
}

/** Why a run start was refused: the client's own budget (its address's or its user's), or the server's. */
export type RunStartVerdict = 'ok' | 'own' | 'server';

interface AddressBucket {
  bucket: TokenBucket;
  usedAt: number;
}

/**
 * What one client can make the server compute: every agent run started (a session created, a
 * correction, a resume) takes a token from its own bucket (its address's, or its user's: see
 * `Quota`) and from the server's. A bucket
 * holds a minute's worth, so honest bursts pass and a flood is held to the per-minute rate.
 * Buckets idle for a minute are full again and are dropped, so the map stays as small as the set
 * of active addresses.
 */
export class RunStartBudget {
  readonly #byAddress = new Map<string, AddressBucket>();
  readonly #server: TokenBucket;
  #sweptAt: number;

  constructor(
    readonly perAddressPerMinute: number,
    readonly serverPerMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#server = new TokenBucket(serverPerMinute / 60, serverPerMinute, now);
    this.#sweptAt = now();
  }

  /** Take one start for `key`, whose bucket holds `perMinute` (the per-address rate unless told). */
  take(key: string, perMinute = this.perAddressPerMinute): RunStartVerdict {
    const now = this.now();
    this.#sweep(now);
    let entry = this.#byAddress.get(key);
    if (entry === undefined) {
      entry = { bucket: new TokenBucket(perMinute / 60, perMinute, this.now), usedAt: now };
      this.#byAddress.set(key, entry);
    }
    entry.usedAt = now;
    if (!entry.bucket.take()) return 'own';
    return this.#server.take() ? 'ok' : 'server';
  }

  get trackedAddresses(): number {
    return this.#byAddress.size;
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [key, entry] of this.#byAddress) if (now - entry.usedAt >= 60_000) this.#byAddress.delete(key);
  }
}
