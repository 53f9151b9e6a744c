import { describe, expect, it } from 'vitest';
import { isLoopbackHost, isOriginAllowed } from '../../src/access/host-and-origin.js';

describe('isOriginAllowed by default', () => {
  it('allows clients that send no Origin (wscat, Node)', () => {
    expect(isOriginAllowed(undefined, 'example.com', undefined)).toBe(true);
  });

  it('allows the origin of the page this server served', () => {
    expect(isOriginAllowed('https://thought.example.com', 'thought.example.com', undefined)).toBe(true);
    expect(isOriginAllowed('http://10.0.0.5:3000', '10.0.0.5:3000', undefined)).toBe(true);
  });

  it('allows loopback pages on any port', () => {
    for (const origin of ['http://localhost:5173', 'https://127.0.0.1:8443', 'http://[::1]:3000', 'http://localhost']) {
      expect(isOriginAllowed(origin, 'localhost:3000', undefined)).toBe(true);
    }
  });

  it('refuses a rebound DNS name posing as same-origin when the server listens on loopback', () => {
    expect(isOriginAllowed('http://evil.example:3000', 'evil.example:3000', undefined, true)).toBe(false);
    expect(isOriginAllowed('http://127.0.0.1:3000', '127.0.0.1:3000', undefined, true)).toBe(true);
    expect(isOriginAllowed('http://[::1]:3000', '[::1]:3000', undefined, true)).toBe(true);
  });

  it('tells loopback listen addresses apart', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('refuses other sites', () => {
    expect(isOriginAllowed('https://evil.example', 'localhost:3000', undefined)).toBe(false);
    expect(isOriginAllowed('http://localhost.evil.example', 'localhost:3000', undefined)).toBe(false);
  });

  it('refuses origins that are not http(s) or not URLs', () => {
    expect(isOriginAllowed('null', 'localhost:3000', undefined)).toBe(false);
    expect(isOriginAllowed('file:///etc/passwd', 'localhost:3000', undefined)).toBe(false);
  });
});

describe('isOriginAllowed with ALLOWED_ORIGINS', () => {
  const allowed = ['https://app.example'];

  it('allows exactly the listed origins', () => {
    expect(isOriginAllowed('https://app.example', 'api.example', allowed)).toBe(true);
    expect(isOriginAllowed('http://app.example', 'api.example', allowed)).toBe(false);
  });

  it('replaces the default policy', () => {
    expect(isOriginAllowed('http://localhost:5173', 'localhost:3000', allowed)).toBe(false);
  });
});
