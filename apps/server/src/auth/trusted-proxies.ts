import { BlockList, isIP } from 'node:net';

/** An IPv4 address written as IPv4-mapped IPv6 (a dual-stack socket's view of it) as plain IPv4. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1] ?? address;
}

/** The addresses (IPs and CIDRs, INTERTHOUGHT_TRUSTED_PROXIES) whose forwarded headers are believed. */
export class TrustedProxies {
  readonly #list = new BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', prefix] = entry.split('/');
      const plain = prefix === undefined ? unmapped(address) : address;
      const type = isIP(plain) === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.#list.addAddress(plain, type);
      else this.#list.addSubnet(plain, Number(prefix), type);
    }
  }

  /** Whether a connection's peer address is one of them. */
  includes(remoteAddress: string | undefined): boolean {
    if (remoteAddress === undefined) return false;
    const address = unmapped(remoteAddress);
    const family = isIP(address);
    if (family === 0) return false;
    return this.#list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}
